/** Sample counts per stage. `full` is the reference's; the others scale it down. */
export interface SampleCounts {
  createPing: number;
  createRead: number;
  createWrite: number;
  wake: number;
  warm: number;
  sqliteRead: number;
  sqliteWrite: number;
  sqliteScan: number;
  burstAttempts: number;
  seqWrite: number;
  /** Seconds of each open-model stage (requests = rate x seconds). */
  openSeconds: number;
}

export const PRESETS = {
  quick: {
    createPing: 20, createRead: 20, createWrite: 20, wake: 10, warm: 100,
    sqliteRead: 50, sqliteWrite: 50, sqliteScan: 20, burstAttempts: 128, seqWrite: 100, openSeconds: 3,
  },
  local: {
    createPing: 300, createRead: 240, createWrite: 240, wake: 120, warm: 500,
    sqliteRead: 300, sqliteWrite: 300, sqliteScan: 200, burstAttempts: 256, seqWrite: 1000, openSeconds: 5,
  },
  full: {
    createPing: 1500, createRead: 1200, createWrite: 1200, wake: 1200, warm: 2000,
    sqliteRead: 1200, sqliteWrite: 1200, sqliteScan: 1000, burstAttempts: 500, seqWrite: 5000, openSeconds: 10,
  },
} as const satisfies Record<string, SampleCounts>;

export type PresetName = keyof typeof PRESETS;

/**
 * Suite order. Bursts go last: they leave hundreds of awake actors that load the
 * Engine for RivetKit's 30 s sleep timeout (workloads/rivet/LATENCY.md), which
 * would distort, or time out, whatever ran after them.
 */
export const GROUPS = ["create", "wake", "warm", "sqlite", "seqwrite", "burst"] as const;
export type Group = (typeof GROUPS)[number];

export const BURST_CONCURRENCY = [1, 8, 32, 128] as const;

/**
 * Arrival rates (creates per second) of the open-model stages, next to the
 * closed-loop bursts: around and past what each side sustained locally
 * (Rivet 10-20/s, the local DO 150-200/s measured by the driver).
 */
export const OPEN_RATES = { rivet: [5, 10, 20], cloudflare: [50, 100, 200] } as const;
/** Most requests an open-model stage has outstanding; past that, sends are late and the lateness counts. */
export const OPEN_MAX_IN_FLIGHT = 256;

/** Metric ids each group writes on the Rivet side (file names and summary rows). */
export const RIVET_METRICS: Record<Group, string[]> = {
  create: ["create.ping", "create.read", "create.write"],
  wake: ["wake.ping", "wake.read", "wake.write"],
  warm: ["warm.ping", "warm.getOrCreate"],
  sqlite: ["sqlite.read", "sqlite.write", "sqlite.scan"],
  burst: [...BURST_CONCURRENCY.map((c) => `burst.c${c}`), ...OPEN_RATES.rivet.map((r) => `open.r${r}`)],
  seqwrite: ["seqwrite"],
};

/** Metric ids each group writes on the Cloudflare side. */
export const CLOUDFLARE_METRICS: Record<Group, string[]> = {
  create: ["create.ping", "create.read", "create.write", "create.unique"],
  wake: ["wake.ping", "wake.read", "wake.write"],
  warm: ["warm.ping", "baseline.noop"],
  sqlite: ["sqlite.read", "sqlite.write", "sqlite.scan"],
  burst: [...BURST_CONCURRENCY.map((c) => `burst.c${c}`), ...OPEN_RATES.cloudflare.map((r) => `open.r${r}`)],
  seqwrite: ["seqwrite"],
};

export { isColdMetric } from "../analysis/metrics";
