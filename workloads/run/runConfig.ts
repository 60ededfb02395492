import { COUNT_KEYS, defaultGroups, GROUPS, PRESET_REPEAT, PRESET_SCALE_LEVELS, PRESETS, RUNTIMES, SIDES, type Group, type PresetName, type SampleCounts, type Side } from "../../analysis/contract/catalog";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "../../cluster/engineConfig";
import { STALL_MS } from "../host/runtimeWatch";

export { SIDES, type Side };

export interface RunConfig {
  stack: string;
  preset: PresetName;
  /** Sample counts per side: the preset's, with --samples applied to both sides. */
  counts: Record<Side, SampleCounts>;
  sides: Side[];
  groups: Group[];
  /** The scaling group's levels: actors made before its measurements (the preset's). */
  scaleLevels: readonly number[];
  resultsDir: string;
  /** Repetitions of the plan, each on fresh runtimes, the sides' order rotated (the preset's unless --repeat). */
  repeat: number;
  /** A planted change: microseconds each side's own handler waits before it replies (absent: none), to show a comparison catches a change of known size. */
  plantDelayUs: Partial<Record<Side, number>>;
  /** The Rivet Engine release to run (absent: the one installed with the project), fetched once from the registry and checked against its pinned sha256. */
  engineVersion?: string;
  wakeIdleMs: number;
  /** Local workerd's open-file limit; absent: raised to the hard limit (set lower only to see a machine limit named). */
  workerdOpenFiles?: number;
  /** Idle time before a DO wake: must exceed the runtime's eviction (local workerd's, docs/local-runs.md). */
  cfWakeIdleMs: number;
  requestTimeoutMs: number;
  /** How long a runtime may answer no call at all before it counts as stalled and its side stops (runtimeWatch.ts). */
  stallMs: number;
  sleepConfirmTimeoutMs: number;
  actorSleepTimeoutMs: number;
  engine: EngineSettings;
  /**
   * quickack: run inside a private network namespace whose loopback route has
   * delayed ACKs off (see docs/engine-latency.md); host: the machine's own loopback.
   */
  loopback: "quickack" | "host";
  /** single: one Engine on its file system; cluster: three Engines on Postgres + NATS behind haproxy, as in the cloud. */
  engineTopology: "single" | "cluster";
  quiet: boolean;
}

export class UsageError extends Error {}

/** What a parsed option sets: the run config's fields, before the preset's defaults fill the rest. */
interface Parsed {
  preset?: PresetName;
  repeat?: number;
  plantDelayUs?: Partial<Record<Side, number>>;
  engineVersion?: string;
  sides?: Side[];
  groups?: Group[];
  wakeIdleMs?: number;
  cfWakeIdleMs?: number;
  requestTimeoutMs?: number;
  stallMs?: number;
  actorSleepTimeoutMs?: number;
  samples?: Partial<SampleCounts>;
  loopback?: "quickack" | "host";
  engine?: Partial<EngineSettings>;
  resultsDir?: string;
  workerdOpenFiles?: number;
  engineTopology?: "single" | "cluster";
  quiet?: boolean;
}

/**
 * One option of a run: its flag, the stack key that sets it on a Pulumi
 * stack (where one does), what it takes, its default in words, its bounds,
 * one line of help, and how its value is read (an error names `name`: the
 * flag, or the stack key). Declared once, in RUN_OPTIONS; the parser, the
 * usage text, the stack's keys and the docs' flag table all come from it.
 */
export interface RunOption {
  flag: `--${string}`;
  /** The value's shape in the usage text; absent: a switch, which takes no value. */
  value?: string;
  /** The Pulumi stack key (`actor-bench:<key>`) that sets this option on a stack. */
  key?: string;
  /** The default, as the docs and --help say it. */
  default: string;
  /** The default as a stack's Pulumi.yaml declares it, where the option has a key and one value for every preset. */
  stackDefault?: number | string;
  bounds?: string;
  help: string;
  read(v: string, name: string, into: Parsed): void;
}

/** A plain decimal whole number within [min, max] (no sign, exponent, hex or spaces); a UsageError naming `name` and the range otherwise. */
export function wholeNumber(name: string, v: string, min: number, max: number, unit: string): number {
  const n = /^[0-9]{1,10}$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${name} takes a whole number of ${unit} from ${min} to ${max}, written in plain digits; got ${JSON.stringify(v)}`);
  return n;
}

/** The most samples --samples may ask of one count: twenty times the largest the full preset takes. */
export const MAX_SAMPLES = 100_000;

/** `createPing=100,warm=500`: sample counts that override the preset's. */
export function parseSampleCounts(v: string, name = "--samples"): Partial<SampleCounts> {
  const known: readonly string[] = COUNT_KEYS;
  const out: Partial<SampleCounts> = {};
  for (const item of v.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [k, n, extra] = item.split("=");
    const count = /^[0-9]{1,6}$/.test(n ?? "") ? Number(n) : Number.NaN;
    if (extra !== undefined || !known.includes(k) || !(count >= 1 && count <= MAX_SAMPLES)) {
      throw new UsageError(`${name} takes name=count pairs with names ${known.join(", ")} and counts from 1 to ${MAX_SAMPLES} in plain digits, got "${item}"`);
    }
    out[k as keyof SampleCounts] = count;
  }
  if (Object.keys(out).length === 0) throw new UsageError(`${name} takes name=count pairs, got "${v}"`);
  return out;
}

const PLANT_MAX_US = 1_000_000;

/** `rivet=600,floor=600`: the microseconds each named side's handler waits before it replies. */
export function parsePlantDelays(v: string, name = "--plant-delay-us"): Partial<Record<Side, number>> {
  const out: Partial<Record<Side, number>> = {};
  for (const item of v.split(",").map((x) => x.trim()).filter(Boolean)) {
    const [side, n, extra] = item.split("=");
    if (extra !== undefined || n === undefined || !(SIDES as readonly string[]).includes(side)) {
      throw new UsageError(`${name} takes side=microseconds pairs with sides ${SIDES.join(", ")}, got "${item}"`);
    }
    out[side as Side] = wholeNumber(name, n, 0, PLANT_MAX_US, "microseconds");
  }
  if (Object.keys(out).length === 0) throw new UsageError(`${name} takes side=microseconds pairs, got "${v}"`);
  return out;
}

/** A whole-number option: its bounds in the usage text and the docs, its reading checked against them. */
function whole(min: number, max: number, unit: string, set: (p: Parsed, n: number) => void): Pick<RunOption, "bounds" | "read"> {
  return { bounds: `${min} to ${max} ${unit}`, read: (v, name, p) => set(p, wholeNumber(name, v, min, max, unit)) };
}

/** One of a few words. */
function oneOf<T extends string>(values: readonly T[], said: string, set: (p: Parsed, v: T) => void): Pick<RunOption, "read"> {
  return {
    read: (v, name, p) => {
      if (!(values as readonly string[]).includes(v)) throw new UsageError(`${name} must be ${said}, got "${v}"`);
      set(p, v as T);
    },
  };
}

/** A switch: present means on. */
const on = (set: (p: Parsed) => void): Pick<RunOption, "read"> => ({ read: (_v, _name, p) => set(p) });

const engine = (p: Parsed, e: Partial<EngineSettings>) => (p.engine = { ...p.engine, ...e });

/** Waits up to a day: setTimeout cannot wait longer than 2^31-1 ms, and no stage needs to. */
const DAY_MS = 86_400_000;

/** Every option of `npm start` and of a stack's runs, in the order --help lists them. */
export const RUN_OPTIONS: readonly RunOption[] = [
  {
    flag: "--preset", value: Object.keys(PRESETS).join("|"), key: "preset", default: "local", stackDefault: "local", help: "sample counts and repetitions (docs/local-runs.md, Presets)",
    ...oneOf(Object.keys(PRESETS) as PresetName[], `one of ${Object.keys(PRESETS).join(", ")}`, (p, v) => (p.preset = v)),
  },
  {
    flag: "--repeat", value: "N", default: "the preset's", help: "repetitions of the plan, each on fresh runtimes, the sides' order rotated",
    ...whole(1, 20, "repetitions", (p, n) => (p.repeat = n)),
  },
  {
    flag: "--plant-delay-us", value: "side=N,...", default: "none", bounds: `0 to ${PLANT_MAX_US} microseconds a side`,
    help: "a planted change: each named side's own handler waits N microseconds before it replies (workloads/sides/plant.ts), to show a comparison catches a change of known size",
    read: (v, name, p) => (p.plantDelayUs = { ...p.plantDelayUs, ...parsePlantDelays(v, name) }),
  },
  {
    flag: "--engine-version", value: "X.Y.Z", default: "the installed Engine", help: "runs that Rivet Engine release, fetched once from the npm registry, its sha256 checked against the pin in cluster/engineRelease.ts",
    read: (v, name, p) => {
      if (!/^\d{1,4}\.\d{1,4}\.\d{1,4}(-[0-9A-Za-z.]{1,40})?$/.test(v)) throw new UsageError(`${name} takes a release number such as 2.3.18, got ${JSON.stringify(v)}`);
      p.engineVersion = v;
    },
  },
  {
    flag: "--side", value: "rivet|cloudflare|floor|both|all", key: "side", default: "all", stackDefault: "both", help: "which side: both is the two runtimes, all adds the floor (a stack measures the runtimes only: its default is both)",
    read: (v, name, p) => {
      if (v === "both") p.sides = [...RUNTIMES];
      else if (v === "all") p.sides = [...SIDES];
      else if ((SIDES as readonly string[]).includes(v)) p.sides = [v as Side];
      else throw new UsageError(`${name} must be rivet, cloudflare, floor, both (the two runtimes) or all (with the floor), got "${v}"`);
    },
  },
  {
    flag: "--groups", value: "LIST", key: "groups", default: "the preset's", help: `comma list of ${GROUPS.join(", ")}, always run in this order`,
    read: (v, name, p) => {
      const names = v.split(",").map((s) => s.trim()).filter(Boolean);
      const bad = names.filter((g) => !(GROUPS as readonly string[]).includes(g));
      if (bad.length > 0 || names.length === 0) throw new UsageError(`${name} takes a comma list of ${GROUPS.join(", ")}; unknown: ${bad.join(", ") || "(empty)"}`);
      p.groups = GROUPS.filter((g) => names.includes(g));
    },
  },
  {
    flag: "--samples", value: "name=N,...", key: "samples", default: "the preset's", bounds: `1 to ${MAX_SAMPLES} a count`, help: "override single counts on every side, e.g. createPing=500,warm=1000",
    read: (v, name, p) => (p.samples = { ...p.samples, ...parseSampleCounts(v, name) }),
  },
  {
    flag: "--wake-idle-ms", value: "N", key: "wakeIdleMs", default: "10000", stackDefault: 10_000, help: "how long every Rivet actor is confirmed asleep before it is woken",
    ...whole(1, DAY_MS, "milliseconds", (p, n) => (p.wakeIdleMs = n)),
  },
  {
    flag: "--cf-wake-idle-ms", value: "N", key: "cfWakeIdleMs", default: "12000", stackDefault: 12_000,
    help: "how long every DO stays idle before its wake; must exceed the runtime's eviction (local workerd's: docs/local-runs.md; a cloud stack sets the reference's 10 minutes)",
    ...whole(1, DAY_MS, "milliseconds", (p, n) => (p.cfWakeIdleMs = n)),
  },
  {
    flag: "--request-timeout-ms", value: "N", key: "requestTimeoutMs", default: "30000", stackDefault: 30_000, help: "per request; a timeout is a failure with its error text",
    ...whole(1, DAY_MS, "milliseconds", (p, n) => (p.requestTimeoutMs = n)),
  },
  {
    flag: "--stall-ms", value: "N", default: String(STALL_MS), help: "a runtime that answers no call for this long is stalled: its side stops, named in the run",
    ...whole(1000, DAY_MS, "milliseconds", (p, n) => (p.stallMs = n)),
  },
  {
    flag: "--actor-sleep-timeout-ms", value: "N", key: "actorSleepTimeoutMs", default: "30000", stackDefault: 30_000, help: "RivetKit's idle sleep timeout of the benchmark actors",
    ...whole(1, DAY_MS, "milliseconds", (p, n) => (p.actorSleepTimeoutMs = n)),
  },
  {
    flag: "--loopback", value: "quickack|host", key: "loopback", default: "quickack", stackDefault: "quickack", help: "a private network namespace whose loopback has delayed ACKs off, or the host's loopback",
    ...oneOf(["quickack", "host"] as const, "quickack or host", (p, v) => (p.loopback = v)),
  },
  { flag: "--engine-nagle", default: "off", help: "leave the Engine's gateway without TCP_NODELAY", ...on((p) => engine(p, { tcpNodelay: false })) },
  { flag: "--engine-keep-backtrace", default: "off", help: "leave RUST_BACKTRACE to the Engine and the app", ...on((p) => engine(p, { keepRustBacktrace: true })) },
  { flag: "--engine-load-shedding", default: "off", help: "keep the Engine's workflow load shedding on", ...on((p) => engine(p, { loadShedding: true })) },
  { flag: "--engine-rust-log", value: "LEVEL", default: "off", help: "set RUST_LOG for the Engine", read: (v, _name, p) => engine(p, { rustLog: v }) },
  {
    flag: "--results-dir", value: "DIR", default: "results", help: "where run directories go",
    read: (v, name, p) => {
      if (v.trim() === "") throw new UsageError(`${name} needs a folder name, got an empty one`);
      p.resultsDir = v;
    },
  },
  {
    flag: "--workerd-open-files", value: "N", default: "the hard limit", help: "local workerd's open-file limit; a run whose DOs cannot fit under it is refused before it starts",
    ...whole(1, 1_048_576, "open files", (p, n) => (p.workerdOpenFiles = n)),
  },
  {
    flag: "--engine-topology", value: "single|cluster", key: "engineTopology", default: "single", stackDefault: "single", help: "one Engine on its file system, or three on Postgres and NATS behind haproxy, as in the cloud",
    ...oneOf(["single", "cluster"] as const, "single or cluster", (p, v) => (p.engineTopology = v)),
  },
  { flag: "--quiet", default: "off", help: "nothing printed while the run runs", ...on((p) => (p.quiet = true)) },
];

/** The usage text, every option with its default and bounds, from RUN_OPTIONS. */
export const USAGE = [
  "usage: npm start -- [flags]",
  ...RUN_OPTIONS.map((o) => `  ${`${o.flag}${o.value ? ` ${o.value}` : ""}`.padEnd(40)} ${o.help}; default ${o.default}${o.bounds ? `; ${o.bounds}` : ""}`),
].join("\n");

/** The run config from parsed options: the preset's counts, groups, repetitions and levels where none was given. */
export function runConfigOf(p: Parsed): RunConfig {
  const preset = p.preset ?? "local";
  const cfg: RunConfig = {
    stack: "local",
    preset,
    counts: Object.fromEntries(SIDES.map((side) => [side, { ...PRESETS[preset][side], ...p.samples }])) as Record<Side, SampleCounts>,
    sides: p.sides ?? [...SIDES],
    groups: p.groups ?? defaultGroups(preset),
    scaleLevels: PRESET_SCALE_LEVELS[preset],
    resultsDir: p.resultsDir ?? "results",
    repeat: p.repeat ?? PRESET_REPEAT[preset],
    plantDelayUs: p.plantDelayUs ?? {},
    ...(p.engineVersion ? { engineVersion: p.engineVersion } : {}),
    wakeIdleMs: p.wakeIdleMs ?? 10_000,
    cfWakeIdleMs: p.cfWakeIdleMs ?? 12_000,
    requestTimeoutMs: p.requestTimeoutMs ?? 30_000,
    stallMs: p.stallMs ?? STALL_MS,
    sleepConfirmTimeoutMs: 60_000,
    actorSleepTimeoutMs: p.actorSleepTimeoutMs ?? 30_000,
    engine: { ...DEFAULT_ENGINE_SETTINGS, ...p.engine },
    loopback: p.loopback ?? "quickack",
    engineTopology: p.engineTopology ?? "single",
    ...(p.workerdOpenFiles ? { workerdOpenFiles: p.workerdOpenFiles } : {}),
    quiet: p.quiet ?? false,
  };
  if (cfg.engineTopology === "cluster" && cfg.loopback === "quickack") {
    // The quickack namespace is a user namespace too, where only root is mapped, and Postgres refuses to run as root.
    throw new UsageError("--engine-topology cluster needs --loopback host: its Postgres cannot run inside the quickack namespace (a user namespace with root as its only user)");
  }
  return cfg;
}

/** Parses `npm start` arguments into the effective run config; throws UsageError naming the bad flag. */
export function parseRunArgs(argv: readonly string[]): RunConfig {
  const p: Parsed = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--help" || flag === "-h") throw new UsageError(USAGE);
    const o = RUN_OPTIONS.find((x) => x.flag === flag);
    if (!o) throw new UsageError(`unknown argument "${flag}"\n${USAGE}`);
    let v = "";
    if (o.value) {
      const next = argv[++i];
      if (next === undefined || next.startsWith("--")) throw new UsageError(`${flag} needs a value\n${USAGE}`);
      v = next;
    }
    o.read(v, flag, p);
  }
  return runConfigOf(p);
}

/** The options a stack's keys set, by key. */
export const STACK_RUN_OPTIONS: ReadonlyArray<RunOption & { key: string }> = RUN_OPTIONS.filter((o): o is RunOption & { key: string } => o.key !== undefined);

/**
 * The run config a stack's keys give (values as Pulumi holds them, strings),
 * read by the same rules as the flags, each error naming its key; and the
 * same settings as `npm start` flags, for the runs on the runner.
 */
export function stackRunOptions(raw: Readonly<Record<string, string | undefined>>): { run: RunConfig; runArgs: string[] } {
  const p: Parsed = {};
  const runArgs: string[] = [];
  for (const o of STACK_RUN_OPTIONS) {
    const v = raw[o.key];
    if (v === undefined) continue;
    o.read(v, `config actor-bench:${o.key}:`, p);
    runArgs.push(o.flag, v);
  }
  return { run: runConfigOf(p), runArgs };
}
