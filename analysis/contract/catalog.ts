/**
 * The metric catalog: one entry per metric, and every list the driver, the
 * report and the tests use is derived from it (metric order, groups, sides,
 * coldness, headline labels, sample counts per preset and side). Adding a
 * metric is one entry here plus the operation on each side's adapter.
 */

/**
 * What each operation does, the same on both sides: the RivetKit app imports
 * these and the Worker bundle inlines them.
 */
export const WORKLOAD = {
  /** Rows seeded for point reads and scanned by a scan. */
  scanRows: 1000,
  /** Bytes of every written row. */
  rowBytes: 128,
  /** Calls to a warm actor before its series is measured. */
  warmupCalls: 5,
  /** Seed of the point reads' row ids. */
  readSeed: 42,
} as const;

/**
 * The two runtimes, and the floor: the same operations on a plain Node HTTP
 * server over one SQLite file per key, no actor system (workloads/sides/floor/), the
 * physical limit each runtime's overhead is read against.
 */
export const SIDES = ["rivet", "cloudflare", "floor"] as const;
/** The sides that are actor runtimes (the headline compares these; the floor is read beside them). */
export const RUNTIMES = ["rivet", "cloudflare"] as const satisfies readonly Side[];
export type Side = (typeof SIDES)[number];

/**
 * Suite order. Bursts late: they leave hundreds of awake actors behind
 * (docs/engine-latency.md). Scaling last: it fills the runtime with
 * thousands of actors to see what that costs.
 */
export const GROUPS = ["create", "wake", "warm", "sqlite", "seqwrite", "burst", "scale"] as const;
export type Group = (typeof GROUPS)[number];

/**
 * What every view says about a side, in one place: its names, the clock its
 * `ms` is read from (the reference's protocol; the client's own round trip is
 * `ms` on Rivet and the floor, `clientMs` on the DO side), the same-clock
 * column's head and its own clock's (the reference's), its colour in every
 * chart, and the process whose log is read for machine limits.
 */
export const SIDE_WORDS: Record<Side, { name: string; short: string; clock: string; clockShort: string; clientColumn: string; ownColumn: string; runtimeProcess: string; colour: string }> = {
  rivet: {
    name: "Rivet Actor", short: "Rivet", clock: "client round trip through the Engine gateway (driver hrtime)", clockShort: "client round trip",
    clientColumn: "Rivet Actor (client)", ownColumn: "Rivet Actor (client)", runtimeProcess: "Engine", colour: "#4c78a8",
  },
  cloudflare: {
    name: "Durable Object", short: "DO", clock: "Worker's Date.now() around the awaited DO call", clockShort: "Worker-timed DO call",
    clientColumn: "Durable Object (client, via the Worker)", ownColumn: "Durable Object (Worker's clock)", runtimeProcess: "workerd", colour: "#f58518",
  },
  floor: {
    name: "Floor (Node http + SQLite file)", short: "Floor", clock: "client round trip to a plain Node server (driver hrtime)", clockShort: "client round trip",
    clientColumn: "Floor (client)", ownColumn: "Floor (client)", runtimeProcess: "floor server", colour: "#54a24b",
  },
};

const wordOf = <K extends keyof (typeof SIDE_WORDS)[Side]>(k: K) => Object.fromEntries(Object.entries(SIDE_WORDS).map(([side, w]) => [side, w[k]])) as Record<Side, string>;
export const SIDE_NAMES = wordOf("name");
export const SIDE_SHORT = wordOf("short");
/** Which clock each side's `ms` is read from. */
export const SIDE_CLOCKS = wordOf("clock");

/** Whether a side's `ms` is the driver's own round trip; where not, the driver's is `clientMs`. */
export const MS_IS_CLIENT_CLOCK: Record<Side, boolean> = { rivet: true, cloudflare: false, floor: true };

/** The driver's clock steps: process.hrtime, written to the nanosecond (ms with six decimals). */
export const CLIENT_TICK_MS = 0.000001;
/** The step of each side's `ms` clock: the Worker's Date.now() steps in whole milliseconds. */
export const MS_TICK: Record<Side, number> = { rivet: CLIENT_TICK_MS, cloudflare: 1, floor: CLIENT_TICK_MS };

/**
 * cold: a create or wake; a sample counts only when the actor proves a fresh instance.
 * warm: a running actor; a fresh instance is a restart inside the series, counted and shown.
 * baseline: no actor is called (client to Worker).
 */
export type MetricKind = "cold" | "warm" | "baseline";

/** Sample count names; a preset gives each side its own count for each. */
export const COUNT_KEYS = [
  "createPing", "createRead", "createWrite", "wake", "warm", "sqliteRead", "sqliteWrite", "sqliteScan", "burstAttempts", "seqWrite", "openSeconds",
  "scaleCreate", "scaleWake", "scaleBurst",
] as const;
export type CountKey = (typeof COUNT_KEYS)[number];
export type SampleCounts = Record<CountKey, number>;

export interface MetricEntry {
  id: string;
  group: Group;
  sides: readonly Side[];
  kind: MetricKind;
  /** The preset count that sets n (for an open-model stage: seconds, times its rate). */
  count: CountKey;
  /** The headline row's label (the column names the clock); absent: not a headline row. */
  label?: string;
  /** Throughput: closed-loop burst at a concurrency, sequential on one actor, or open model at a rate. */
  throughput?: { mode: "burst"; concurrency: number } | { mode: "sequential" } | { mode: "open"; ratePerSecond: number };
  /** The throughput table's row label of a closed-loop throughput stage. */
  throughputLabel?: string;
  /** A create's or wake's first request, the sample: what it does (ping: no storage; read and write: the store actor's SQLite). */
  firstRequest?: "ping" | "read" | "write";
  /** Role in the headline chart: the request baseline, or a group drawn minus that baseline. */
  chart?: "request" | "create" | "write";
  /** A second headline row from an interval the actor itself reports (the reference's "in the actor" rows). */
  inActor?: { label: string; field: "sqlMs" | "actorMs" };
  /** A scaling-group stage: its level (actors made before it, asleep) and what it measures there. */
  scale?: { level: number; op: "create" | "wake" | "burst" };
}

export const BURST_CONCURRENCY = [1, 8, 32, 128] as const;

/**
 * The scaling group: creates, wakes and a burst measured again after this
 * many more actors (asleep) exist. Which levels a run takes is its preset's
 * (PRESET_SCALE_LEVELS); these are every level any preset takes.
 */
export const SCALE_LEVELS = [0, 100, 1000, 10000] as const;
/** The scaling group's burst concurrency (one level of the burst group's). */
export const SCALE_BURST_CONCURRENCY = 32;
/**
 * Arrival rates (creates per second) of the open-model stages, kept below
 * each side's closed-loop capacity on a 2-core machine: a rate at the knee
 * measures the knee, not the side (the floor's 400/s, measured: docs/local-runs.md).
 */
export const OPEN_RATES: Record<Side, readonly number[]> = { rivet: [5, 10, 20], cloudflare: [50, 100, 200], floor: [50, 100, 200] };
/** Most requests an open-model stage has outstanding; past that, sends are late and the lateness counts. */
export const OPEN_MAX_IN_FLIGHT = 256;

/**
 * How the report turns a closed-loop stage into a rate: measured (completions /
 * wall time), or Little's law on the mean `ms` (the reference's for the DO,
 * whose `ms` is Worker-timed), with the measured rate beside it.
 */
export const THROUGHPUT_METHOD: Record<Side, "measured" | "littles-law"> = { rivet: "measured", cloudflare: "littles-law", floor: "measured" };

const THROUGHPUT_TEXT: Record<(typeof THROUGHPUT_METHOD)[Side], string> = {
  measured: "measured: completions / stage wall time",
  "littles-law": "Little's law on the Worker-timed mean (the reference's), with the driver's measured rate beside it",
};

/** A throughput method as a column head names it. */
export const THROUGHPUT_HEAD: Record<(typeof THROUGHPUT_METHOD)[Side], string> = {
  measured: "measured: completions / wall time",
  "littles-law": "Little's law on Worker-timed ms",
};

/** A side's throughput method in words, for its adapter's properties (one source with the report's arithmetic). */
export function throughputText(side: Side): string {
  return THROUGHPUT_TEXT[THROUGHPUT_METHOD[side]];
}

const ALL_SIDES = SIDES;

export const CATALOG: readonly MetricEntry[] = [
  { id: "create.ping", group: "create", sides: ALL_SIDES, kind: "cold", firstRequest: "ping", count: "createPing", label: "Actor create, first request answered (no storage)", chart: "create" },
  { id: "create.unique", group: "create", sides: ["cloudflare"], kind: "cold", firstRequest: "ping", count: "createPing", label: "Actor create, unique id (DO only)", chart: "create" },
  { id: "create.read", group: "create", sides: ALL_SIDES, kind: "cold", firstRequest: "read", count: "createRead", label: "Create, first request is a SQLite read" },
  { id: "create.write", group: "create", sides: ALL_SIDES, kind: "cold", firstRequest: "write", count: "createWrite", label: "Create, first request is a durable SQLite write" },
  { id: "wake.ping", group: "wake", sides: ALL_SIDES, kind: "cold", firstRequest: "ping", count: "wake", label: "Actor wake, first request answered" },
  { id: "wake.read", group: "wake", sides: ALL_SIDES, kind: "cold", firstRequest: "read", count: "wake", label: "Wake, first request is a SQLite read" },
  { id: "wake.write", group: "wake", sides: ALL_SIDES, kind: "cold", firstRequest: "write", count: "wake", label: "Wake, first request is a durable SQLite write" },
  { id: "warm.ping", group: "warm", sides: ALL_SIDES, kind: "warm", count: "warm", label: "Warm request (no storage)", chart: "request" },
  { id: "warm.getOrCreate", group: "warm", sides: ["rivet"], kind: "warm", count: "warm", label: "Warm request, getOrCreate (Rivet only)" },
  { id: "baseline.noop", group: "warm", sides: ["cloudflare"], kind: "baseline", count: "warm", label: "Client to Worker, no DO call (/noop)" },
  { id: "sqlite.read", group: "sqlite", sides: ALL_SIDES, kind: "warm", count: "sqliteRead", label: "SQLite point read, warm, round trip",
    inActor: { label: "SQLite point read, warm, in the actor (its SQL interval, performance.now())", field: "sqlMs" } },
  { id: "sqlite.write", group: "sqlite", sides: ALL_SIDES, kind: "warm", count: "sqliteWrite", label: "SQLite durable write (1 row), round trip", chart: "write",
    inActor: { label: "SQLite durable write (1 row), in the actor (its SQL interval, performance.now())", field: "sqlMs" } },
  { id: "sqlite.scan", group: "sqlite", sides: ALL_SIDES, kind: "warm", count: "sqliteScan", label: `SQLite scan of ${WORKLOAD.scanRows.toLocaleString("en-US")} rows, round trip` },
  { id: "seqwrite", group: "seqwrite", sides: ALL_SIDES, kind: "warm", count: "seqWrite", throughput: { mode: "sequential" }, throughputLabel: "Sequential durable writes on one actor (woken once)" },
  ...BURST_CONCURRENCY.map((c): MetricEntry => ({ id: `burst.c${c}`, group: "burst", sides: ALL_SIDES, kind: "cold", count: "burstAttempts", throughput: { mode: "burst", concurrency: c }, throughputLabel: `Burst creates at concurrency ${c}` })),
  ...SIDES.flatMap((side) => OPEN_RATES[side].map((r): MetricEntry => ({ id: `open.r${r}`, group: "burst", sides: [side], kind: "cold", count: "openSeconds", throughput: { mode: "open", ratePerSecond: r } }))),
  ...SCALE_LEVELS.flatMap((level): MetricEntry[] => [
    { id: `scale.wake.e${level}`, group: "scale", sides: ALL_SIDES, kind: "cold", count: "scaleWake", scale: { level, op: "wake" } },
    { id: `scale.create.e${level}`, group: "scale", sides: ALL_SIDES, kind: "cold", count: "scaleCreate", scale: { level, op: "create" } },
    { id: `scale.burst.e${level}`, group: "scale", sides: ALL_SIDES, kind: "cold", count: "scaleBurst", scale: { level, op: "burst" }, throughput: { mode: "burst", concurrency: SCALE_BURST_CONCURRENCY } },
  ]),
];

const BY_ID = new Map<string, MetricEntry>();
for (const e of CATALOG) {
  const had = BY_ID.get(e.id);
  // open.r<rate> may repeat across sides only when the sides differ.
  BY_ID.set(e.id, had ? { ...had, sides: [...had.sides, ...e.sides] } : e);
}

/** Canonical metric order: catalog order, first occurrence. */
export const METRIC_ORDER: readonly string[] = [...BY_ID.keys()];

/** The entry of a catalog metric, or undefined for anything else (e.g. the driver benchmark's own series). */
export function metricEntry(id: string): MetricEntry | undefined {
  return BY_ID.get(id);
}

/** The entry of a catalog metric; throws naming the id when it is not one. */
export function catalogEntry(id: string): MetricEntry {
  const e = BY_ID.get(id);
  if (!e) throw new Error(`"${id}" is not a metric of the catalog (analysis/contract/catalog.ts); known: ${METRIC_ORDER.join(", ")}`);
  return e;
}

/** Whether a metric's samples count only with a proven cold start. Anything outside the catalog is not. */
export function isColdMetric(id: string): boolean {
  return BY_ID.get(id)?.kind === "cold";
}

/**
 * The metric a side's bar shows in the headline chart's group `role`: the
 * side's own entry with that role where it has one (the DO's unique-id create,
 * as the reference draws it), else the shared one.
 */
export function chartMetric(side: Side, role: NonNullable<MetricEntry["chart"]>): string | undefined {
  const withRole = CATALOG.filter((e) => e.chart === role && e.sides.includes(side));
  return (withRole.find((e) => e.sides.length === 1) ?? withRole[0])?.id;
}

/** Metric ids one side writes for one group, in catalog order. */
export function metricsOf(side: Side, group: Group): string[] {
  return CATALOG.filter((e) => e.group === group && e.sides.includes(side)).map((e) => e.id);
}

/** Samples a side takes for a metric under the given counts. */
export function sampleCount(e: MetricEntry, counts: SampleCounts): number {
  const t = e.throughput;
  return t?.mode === "open" ? t.ratePerSecond * counts.openSeconds : counts[e.count];
}

const same = (c: SampleCounts) => ({ rivet: c, cloudflare: c, floor: c });

/**
 * Sample counts per preset and side. `full` is the reference's n for each side
 * (Rivet 1,000 to 5,000 per row; Durable Objects 200 to 2,000); the others
 * scale it down and give every side the same n. `local`, the default, is
 * sized so that its repetitions of every headline row finish within about
 * ten minutes on a 2-core machine; `large` is the older single-run size with
 * the scaling group.
 */
export const PRESETS = {
  quick: same({
    createPing: 20, createRead: 20, createWrite: 20, wake: 10, warm: 100,
    sqliteRead: 50, sqliteWrite: 50, sqliteScan: 20, burstAttempts: 128, seqWrite: 100, openSeconds: 3,
    scaleCreate: 10, scaleWake: 10, scaleBurst: 32,
  }),
  local: same({
    createPing: 40, createRead: 30, createWrite: 30, wake: 15, warm: 200,
    sqliteRead: 150, sqliteWrite: 150, sqliteScan: 60, burstAttempts: 128, seqWrite: 200, openSeconds: 3,
    scaleCreate: 20, scaleWake: 20, scaleBurst: 64,
  }),
  large: same({
    createPing: 300, createRead: 240, createWrite: 240, wake: 120, warm: 500,
    sqliteRead: 300, sqliteWrite: 300, sqliteScan: 200, burstAttempts: 256, seqWrite: 1000, openSeconds: 5,
    scaleCreate: 100, scaleWake: 100, scaleBurst: 128,
  }),
  full: {
    rivet: {
      createPing: 1500, createRead: 1200, createWrite: 1200, wake: 1200, warm: 2000,
      sqliteRead: 1200, sqliteWrite: 1200, sqliteScan: 1000, burstAttempts: 500, seqWrite: 5000, openSeconds: 10,
      scaleCreate: 200, scaleWake: 200, scaleBurst: 256,
    },
    cloudflare: {
      createPing: 200, createRead: 200, createWrite: 200, wake: 200, warm: 300,
      sqliteRead: 300, sqliteWrite: 300, sqliteScan: 300, burstAttempts: 500, seqWrite: 2000, openSeconds: 10,
      scaleCreate: 200, scaleWake: 200, scaleBurst: 256,
    },
    // The floor takes the larger of the two sides' counts: it is read against both.
    floor: {
      createPing: 1500, createRead: 1200, createWrite: 1200, wake: 1200, warm: 2000,
      sqliteRead: 1200, sqliteWrite: 1200, sqliteScan: 1000, burstAttempts: 500, seqWrite: 5000, openSeconds: 10,
      scaleCreate: 200, scaleWake: 200, scaleBurst: 256,
    },
  },
} as const satisfies Record<string, Record<Side, SampleCounts>>;
export type PresetName = keyof typeof PRESETS;

/**
 * Repetitions of the plan a preset runs when --repeat is not given: each on
 * fresh runtimes, so a figure's uncertainty can be taken between them. quick
 * is one (a check that everything runs, not a figure to compare); full's
 * three cost three times the reference's machine hours on a cloud stack.
 */
export const PRESET_REPEAT: Record<PresetName, number> = { quick: 1, local: 3, large: 3, full: 3 };

/**
 * The scaling group's levels per preset. It is off by default in quick and
 * local (a run asks for it with --groups) so that `npm start` stays within
 * ten minutes; large stops at 1,000; full takes the 10,000 the question needs.
 */
export const PRESET_SCALE_LEVELS: Record<PresetName, readonly number[]> = { quick: [0, 100], local: [0, 100], large: [0, 1000], full: [0, 1000, 10000] };
/** The groups a preset runs when --groups is not given. */
export function defaultGroups(preset: PresetName): Group[] {
  return GROUPS.filter((g) => g !== "scale" || preset === "large" || preset === "full");
}
