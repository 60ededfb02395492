import type { SideProfile } from "./sideProfile";
import { opGroup, parseCapacityMetric, type CapacityOp } from "./capacity";
import { idleMetric, parseIdleMetric } from "./idleLadder";

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

/** A side's id; each side's package declares its profile (analysis/contract/sideProfile.ts). */
export type Side = string;

/**
 * Suite order. Writes and reads by value size after the fixed-size ones, then alarms.
 * The idle ladder after the groups that measure one fixed idle
 * (its waits let other groups measure). Bursts late: they leave hundreds of awake actors behind
 * (docs/engine-latency.md). One actor's ceiling, then capacity, after them:
 * they load each side past what it holds. Scaling last: it fills the runtime with thousands of
 * actors to see what that costs.
 */
export const GROUPS = [
  "create",
  "wake",
  "warm",
  "sqlite",
  "seqwrite",
  "payload",
  "alarms",
  "idle",
  "burst",
  "ceiling",
  "capacity",
  "scale",
] as const;
export type Group = (typeof GROUPS)[number];

/** The driver's clock steps: process.hrtime, written to the nanosecond (ms with six decimals). */
export const CLIENT_TICK_MS = 0.000001;

/**
 * cold: a create or wake; a sample counts only when the actor proves a fresh instance.
 * warm: a running actor; a fresh instance is a restart inside the series, counted and shown.
 * idle: an actor left untouched for a time, then called: the cold flag is
 *   reported, not required (a step past the runtime's own idle sleep must
 *   prove it, which the idle ladder's table checks: analysis/stats/idle.ts).
 * baseline: no actor is called (client to Worker).
 */
type MetricKind = "cold" | "warm" | "idle" | "baseline";

/** Sample count names; a preset gives each side its own count for each. */
export const COUNT_KEYS = [
  "createPing",
  "createRead",
  "createWrite",
  "wake",
  "warm",
  "sqliteRead",
  "sqliteWrite",
  "sqliteScan",
  "burstAttempts",
  "seqWrite",
  "openSeconds",
  "scaleCreate",
  "scaleWake",
  "scaleBurst",
  "capacitySeconds",
  "idleWake",
  "payload",
  "alarms",
] as const;
type CountKey = (typeof COUNT_KEYS)[number];
export type SampleCounts = Record<CountKey, number>;

export interface MetricEntry {
  id: string;
  group: Group;
  /** Measured only by the sides whose profile lists it (optionalMetrics); absent: by every side. */
  optional?: true;
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
  /** How the charts' note names an optional metric that takes a chart role in place of the shared one. */
  chartWords?: string;
  /** A second headline row from an interval the actor itself reports (the reference's "in the actor" rows). */
  inActor?: { label: string; field: "sqlMs" | "actorMs" };
  /** A scaling-group stage: its level (actors made before it, asleep) and what it measures there. */
  scale?: { level: number; op: "create" | "wake" | "burst" };
  /** A capacity step: an open-model stage of one operation at one rate (analysis/contract/capacity.ts). */
  capacity?: { op: CapacityOp; ratePerSecond: number };
  /** An idle ladder step: actors left untouched this long, then called once (analysis/contract/idleLadder.ts). */
  idle?: { idleMs: number };
  /** A payload stage: one-row writes, or point reads, of values this many bytes long, made inside the actor. */
  payload?: { op: "write" | "read"; bytes: number };
  /** An alarms stage: alarms set this far ahead, on actors that stay awake or that go to sleep at once. */
  alarm?: { delayMs: number; asleep: boolean };
}

/**
 * The alarms group: each actor sets one alarm (the runtime's own: the DO's
 * Alarms API, RivetKit's scheduled action, a timer in the floor's server) this
 * far ahead; an alarm whose handler has not begun `boundMs` after it was due
 * counts as failed, never fired within the bound.
 */
export const ALARM = { delaysMs: [100, 1000, 10_000], boundMs: 5_000 } as const;
export const alarmMetric = (asleep: boolean, delayMs: number) => `alarm.${asleep ? "asleep" : "awake"}.d${delayMs}`;

/**
 * The payload group's value sizes, bytes: every side writes and reads these.
 * A side whose vendor documents a largest value adds that size as an optional
 * metric of its profile (PAYLOAD_LIMIT_SIZES), so the limit itself is tried.
 */
export const PAYLOAD_SIZES = [1024, 16_384, 131_072, 1_048_576] as const;
/** Documented largest values a side may add: the Durable Object's 2 MB string, BLOB or row. */
export const PAYLOAD_LIMIT_SIZES = [2_000_000] as const;
/** A size in words: 1 KiB, 16 KiB, 1 MiB, 2 MB. */
export const bytesWords = (b: number) =>
  b % 1_048_576 === 0 ? `${b / 1_048_576} MiB` : b % 1024 === 0 ? `${b / 1024} KiB` : b % 1e6 === 0 ? `${b / 1e6} MB` : `${b} B`;
export const payloadMetric = (op: "write" | "read", bytes: number) => `payload.${op}.b${bytes}`;

function payloadEntries(bytes: number, optional: boolean): MetricEntry[] {
  const words = bytesWords(bytes);
  return (["write", "read"] as const).map((op) => ({
    id: payloadMetric(op, bytes),
    group: "payload",
    ...(optional ? { optional: true as const } : {}),
    kind: "warm",
    count: "payload",
    payload: { op, bytes },
    inActor: {
      label: `${op === "write" ? "One-row write" : "Point read"} of a ${words} value, in the actor (its SQL interval)`,
      field: "sqlMs",
    },
  }));
}

export const BURST_CONCURRENCY = [1, 8, 32, 128] as const;

/**
 * The scaling group: creates, wakes and a burst measured again after this
 * many more actors (asleep) exist. Which levels a run takes is its preset's
 * (PRESET_SCALE_LEVELS); these are every level any preset takes.
 */
export const SCALE_LEVELS = [0, 100, 1000, 2000, 4000, 8000, 16000] as const;
/** The scaling group's burst concurrency (one level of the burst group's). */
export const SCALE_BURST_CONCURRENCY = 32;
/** Most requests an open-model stage has outstanding; past that, sends are late and the lateness counts. */
export const OPEN_MAX_IN_FLIGHT = 256;

/** How a throughput method reads, in a side's adapter properties and in a column head. */
export const THROUGHPUT_TEXT: Record<SideProfile["throughputMethod"], { text: string; head: string }> = {
  measured: { text: "measured: completions / stage wall time", head: "measured: completions / wall time" },
  "littles-law": {
    text: "Little's law on the Worker-timed mean (the reference's), with the driver's measured rate beside it",
    head: "Little's law on Worker-timed ms",
  },
};

export const CATALOG: readonly MetricEntry[] = [
  {
    id: "create.ping",
    group: "create",
    kind: "cold",
    firstRequest: "ping",
    count: "createPing",
    label: "Actor create, first request answered (no storage)",
    chart: "create",
  },
  {
    id: "create.unique",
    group: "create",
    optional: true,
    kind: "cold",
    firstRequest: "ping",
    count: "createPing",
    label: "Actor create, unique id (DO only)",
    chart: "create",
    chartWords: "the unique-id create",
  },
  {
    id: "create.read",
    group: "create",
    kind: "cold",
    firstRequest: "read",
    count: "createRead",
    label: "Create, first request is a SQLite read",
  },
  {
    id: "create.write",
    group: "create",
    kind: "cold",
    firstRequest: "write",
    count: "createWrite",
    label: "Create, first request is a durable SQLite write",
  },
  { id: "wake.ping", group: "wake", kind: "cold", firstRequest: "ping", count: "wake", label: "Actor wake, first request answered" },
  { id: "wake.read", group: "wake", kind: "cold", firstRequest: "read", count: "wake", label: "Wake, first request is a SQLite read" },
  {
    id: "wake.write",
    group: "wake",
    kind: "cold",
    firstRequest: "write",
    count: "wake",
    label: "Wake, first request is a durable SQLite write",
  },
  { id: "warm.ping", group: "warm", kind: "warm", count: "warm", label: "Warm request (no storage)", chart: "request" },
  { id: "warm.getOrCreate", group: "warm", optional: true, kind: "warm", count: "warm", label: "Warm request, getOrCreate (Rivet only)" },
  { id: "baseline.noop", group: "warm", optional: true, kind: "baseline", count: "warm", label: "Client to Worker, no DO call (/noop)" },
  {
    id: "sqlite.read",
    group: "sqlite",
    kind: "warm",
    count: "sqliteRead",
    label: "SQLite point read, warm, round trip",
    inActor: { label: "SQLite point read, warm, in the actor (its SQL interval, performance.now())", field: "sqlMs" },
  },
  {
    id: "sqlite.write",
    group: "sqlite",
    kind: "warm",
    count: "sqliteWrite",
    label: "SQLite durable write (1 row), round trip",
    chart: "write",
    inActor: { label: "SQLite durable write (1 row), in the actor (its SQL interval, performance.now())", field: "sqlMs" },
  },
  {
    id: "sqlite.scan",
    group: "sqlite",
    kind: "warm",
    count: "sqliteScan",
    label: `SQLite scan of ${WORKLOAD.scanRows.toLocaleString("en-US")} rows, round trip`,
  },
  {
    id: "seqwrite",
    group: "seqwrite",
    kind: "warm",
    count: "seqWrite",
    throughput: { mode: "sequential" },
    throughputLabel: "Sequential durable writes on one actor (woken once)",
  },
  ...BURST_CONCURRENCY.map(
    (c): MetricEntry => ({
      id: `burst.c${c}`,
      group: "burst",
      kind: "cold",
      count: "burstAttempts",
      throughput: { mode: "burst", concurrency: c },
      throughputLabel: `Burst creates at concurrency ${c}`,
    }),
  ),
  ...PAYLOAD_SIZES.flatMap((b) => payloadEntries(b, false)),
  ...ALARM.delaysMs.flatMap((delayMs): MetricEntry[] =>
    [false, true].map((asleep) => ({
      id: alarmMetric(asleep, delayMs),
      group: "alarms",
      // An alarm that has to wake its actor must prove the instance it ran on was fresh.
      kind: asleep ? "cold" : "warm",
      count: "alarms",
      alarm: { delayMs, asleep },
    })),
  ),
  ...PAYLOAD_LIMIT_SIZES.flatMap((b) => payloadEntries(b, true)),
  ...SCALE_LEVELS.flatMap((level): MetricEntry[] => [
    { id: `scale.wake.e${level}`, group: "scale", kind: "cold", count: "scaleWake", scale: { level, op: "wake" } },
    { id: `scale.create.e${level}`, group: "scale", kind: "cold", count: "scaleCreate", scale: { level, op: "create" } },
    {
      id: `scale.burst.e${level}`,
      group: "scale",
      kind: "cold",
      count: "scaleBurst",
      scale: { level, op: "burst" },
      throughput: { mode: "burst", concurrency: SCALE_BURST_CONCURRENCY },
    },
  ]),
];

const BY_ID = new Map<string, MetricEntry>(CATALOG.map((e) => [e.id, e]));

/** An open-model stage at `rate` creates a second; each side's profile says which rates it takes. */
function openModelEntry(rate: number): MetricEntry {
  return { id: `open.r${rate}`, group: "burst", kind: "cold", count: "openSeconds", throughput: { mode: "open", ratePerSecond: rate } };
}
const OPEN_ID = /^open\.r([1-9]\d{0,5})$/;
/** A capacity step at `rate` of `op`: which steps a run takes, its search decides (analysis/contract/capacity.ts). */
function capacityEntry(op: CapacityOp, rate: number): MetricEntry {
  return {
    id: `capacity.${op}.r${rate}`,
    group: opGroup(op),
    kind: op === "create" ? "cold" : "warm",
    count: "capacitySeconds",
    capacity: { op, ratePerSecond: rate },
  };
}
/** An idle ladder step of `idleMs`: which lengths a run takes, its ladder says (--idle-ladder). */
export function idleEntry(idleMs: number): MetricEntry {
  return { id: idleMetric(idleMs), group: "idle", kind: "idle", count: "idleWake", firstRequest: "ping", idle: { idleMs } };
}
/** Where the idle ladder, the open-model stages and the capacity steps stand in the metric order: the ladder before the bursts, the others after them, all before the scaling group. */
const IDLE_SLOT = "wake.idle.*";
const OPEN_SLOT = "open.r*";
const CAPACITY_SLOT = "capacity.*";

/** Canonical metric order: catalog order, the idle ladder before the bursts, the open-model stages (by rate) and the capacity steps after them. */
export const METRIC_ORDER: readonly string[] = (() => {
  const ids = [...BY_ID.keys()];
  const firstBurst = ids.findIndex((id) => BY_ID.get(id)!.group === "burst");
  const firstScale = ids.findIndex((id) => BY_ID.get(id)!.group === "scale");
  return [...ids.slice(0, firstBurst), IDLE_SLOT, ...ids.slice(firstBurst, firstScale), OPEN_SLOT, CAPACITY_SLOT, ...ids.slice(firstScale)];
})();

/** A metric's rank in METRIC_ORDER (idle steps, open-model stages and capacity steps share a slot each; the caller orders them by name), or -1. */
export function metricRank(id: string): number {
  return METRIC_ORDER.indexOf(
    OPEN_ID.test(id) ? OPEN_SLOT : parseCapacityMetric(id) ? CAPACITY_SLOT : parseIdleMetric(id) ? IDLE_SLOT : id,
  );
}

/** The entry of a catalog metric, or undefined for anything else (e.g. the driver benchmark's own series). */
export function metricEntry(id: string): MetricEntry | undefined {
  const open = OPEN_ID.exec(id);
  if (open) return openModelEntry(Number(open[1]));
  const step = parseCapacityMetric(id);
  if (step) return capacityEntry(step.op, step.ratePerSecond);
  const idle = parseIdleMetric(id);
  return idle ? idleEntry(idle.idleMs) : BY_ID.get(id);
}

/** The entry of a catalog metric; throws naming the id when it is not one. */
export function catalogEntry(id: string): MetricEntry {
  const e = metricEntry(id);
  if (!e) throw new Error(`"${id}" is not a metric of the catalog (analysis/contract/catalog.ts); known: ${METRIC_ORDER.join(", ")}`);
  return e;
}

/** Whether a metric's samples count only with a proven cold start. Anything outside the catalog is not. */
export function isColdMetric(id: string): boolean {
  return metricEntry(id)?.kind === "cold";
}

/** Whether a side measures a metric: every side the shared ones, a side its optional ones and its own open-model rates. */
export function sideMeasures(p: Pick<SideProfile, "optionalMetrics" | "openRates">, id: string): boolean {
  const e = metricEntry(id);
  if (!e) return false;
  if (e.throughput?.mode === "open") return p.openRates.includes(e.throughput.ratePerSecond);
  return !e.optional || p.optionalMetrics.includes(id);
}

/**
 * The metric a side's bar shows in the headline chart's group `role`: the
 * side's own optional entry with that role where it has one (the DO's
 * unique-id create, as the reference draws it), else the shared one.
 */
export function chartMetric(
  p: Pick<SideProfile, "optionalMetrics" | "openRates">,
  role: NonNullable<MetricEntry["chart"]>,
): string | undefined {
  const withRole = CATALOG.filter((e) => e.chart === role && sideMeasures(p, e.id));
  return (withRole.find((e) => e.optional) ?? withRole[0])?.id;
}

/** Every metric a side measures, in metric order: the shared ones, its optional ones, its open-model rates after the bursts. */
export function sideEntries(p: Pick<SideProfile, "optionalMetrics" | "openRates">): MetricEntry[] {
  const open = [...p.openRates].sort((a, b) => a - b).map(openModelEntry);
  const shared = CATALOG.filter((e) => sideMeasures(p, e.id));
  const at = shared.findIndex((e) => e.group === "scale");
  return at < 0 ? [...shared, ...open] : [...shared.slice(0, at), ...open, ...shared.slice(at)];
}

/** Metric ids one side writes for one group, in metric order. */
export function metricsOf(p: Pick<SideProfile, "optionalMetrics" | "openRates">, group: Group): string[] {
  return sideEntries(p)
    .filter((e) => e.group === group)
    .map((e) => e.id);
}

/** Samples a side takes for a metric under the given counts. */
export function sampleCount(e: MetricEntry, counts: SampleCounts): number {
  const t = e.throughput;
  if (e.capacity) return Math.max(1, Math.round(e.capacity.ratePerSecond * counts.capacitySeconds));
  if (e.idle) return counts.idleWake;
  return t?.mode === "open" ? t.ratePerSecond * counts.openSeconds : counts[e.count];
}

/**
 * Sample counts per preset, the same for every side unless its package says
 * otherwise. `full` is the reference's n (Rivet's 1,000 to 5,000 per row; the
 * Durable Object side gives its own, 200 to 2,000); the others scale it down.
 * `local`, the default, is sized so that its repetitions of every headline
 * row finish within about ten minutes on a 2-core machine; `large` is the
 * older single-run size with the scaling group.
 */
export const PRESETS = {
  quick: {
    createPing: 20,
    createRead: 20,
    createWrite: 20,
    wake: 10,
    warm: 100,
    sqliteRead: 50,
    sqliteWrite: 50,
    sqliteScan: 20,
    burstAttempts: 128,
    seqWrite: 100,
    openSeconds: 3,
    scaleCreate: 10,
    scaleWake: 10,
    scaleBurst: 32,
    capacitySeconds: 1,
    idleWake: 5,
    payload: 10,
    alarms: 5,
  },
  local: {
    createPing: 40,
    createRead: 30,
    createWrite: 30,
    wake: 15,
    warm: 200,
    sqliteRead: 150,
    sqliteWrite: 150,
    sqliteScan: 60,
    burstAttempts: 128,
    seqWrite: 200,
    openSeconds: 3,
    scaleCreate: 20,
    scaleWake: 20,
    scaleBurst: 64,
    capacitySeconds: 2,
    idleWake: 10,
    payload: 20,
    alarms: 10,
  },
  large: {
    createPing: 300,
    createRead: 240,
    createWrite: 240,
    wake: 120,
    warm: 500,
    sqliteRead: 300,
    sqliteWrite: 300,
    sqliteScan: 200,
    burstAttempts: 256,
    seqWrite: 1000,
    openSeconds: 5,
    scaleCreate: 100,
    scaleWake: 100,
    scaleBurst: 128,
    capacitySeconds: 3,
    idleWake: 30,
    payload: 40,
    alarms: 20,
  },
  full: {
    createPing: 1500,
    createRead: 1200,
    createWrite: 1200,
    wake: 1200,
    warm: 2000,
    sqliteRead: 1200,
    sqliteWrite: 1200,
    sqliteScan: 1000,
    burstAttempts: 500,
    seqWrite: 5000,
    openSeconds: 10,
    scaleCreate: 200,
    scaleWake: 200,
    scaleBurst: 256,
    capacitySeconds: 5,
    idleWake: 100,
    payload: 100,
    alarms: 50,
  },
} as const satisfies Record<string, SampleCounts>;
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
 * ten minutes; large goes to 4,000, past where a small machine's runtime
 * may stop keeping up; full doubles on to 16,000. A side's curve ends at the
 * first level it could not keep up with (workloads/experiment/groups/scale.ts).
 */
export const PRESET_SCALE_LEVELS: Record<PresetName, readonly number[]> = {
  quick: [0, 100],
  local: [0, 100],
  large: [0, 1000, 4000],
  full: [0, 1000, 2000, 4000, 8000, 16000],
};
/** Groups only large and full run by default: writes by value size (megabytes a call), alarms (seconds of waiting), the idle ladder (minutes of waiting), one actor's ceiling, capacity and scaling (they load the runtime far past the headline's stages). */
const LONG_GROUPS: readonly Group[] = ["payload", "alarms", "idle", "ceiling", "capacity", "scale"];
/** The groups a preset runs when --groups is not given. */
export function defaultGroups(preset: PresetName): Group[] {
  return GROUPS.filter((g) => !LONG_GROUPS.includes(g) || preset === "large" || preset === "full");
}
