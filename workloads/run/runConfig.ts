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
  /** Idle time before a DO wake: must exceed the runtime's eviction (local workerd: ~10 s). */
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

const USAGE = `usage: npm start -- [--preset ${Object.keys(PRESETS).join("|")}] [--repeat N] [--side rivet|cloudflare|floor|both|all] [--groups ${GROUPS.join(",")}]
  [--plant-delay-us side=N,...] [--engine-version X.Y.Z] [--wake-idle-ms N] [--cf-wake-idle-ms N] [--request-timeout-ms N] [--stall-ms N] [--actor-sleep-timeout-ms N] [--samples name=N,...] [--results-dir DIR]
  [--loopback quickack|host] [--engine-topology single|cluster] [--engine-nagle] [--engine-load-shedding] [--engine-keep-backtrace] [--engine-rust-log LEVEL] [--workerd-open-files N] [--quiet]`;

/** The bounds of every whole-number flag: what it may be set to, and in what unit it is said. */
export const FLAG_BOUNDS = {
  "--repeat": { min: 1, max: 20, unit: "repetitions" },
  "--plant-delay-us": { min: 0, max: 1_000_000, unit: "microseconds" },
  // Waits up to a day: setTimeout cannot wait longer than 2^31-1 ms, and no stage needs to.
  "--wake-idle-ms": { min: 1, max: 86_400_000, unit: "milliseconds" },
  "--cf-wake-idle-ms": { min: 1, max: 86_400_000, unit: "milliseconds" },
  "--request-timeout-ms": { min: 1, max: 86_400_000, unit: "milliseconds" },
  "--stall-ms": { min: 1000, max: 86_400_000, unit: "milliseconds" },
  "--actor-sleep-timeout-ms": { min: 1, max: 86_400_000, unit: "milliseconds" },
  "--workerd-open-files": { min: 1, max: 1_048_576, unit: "open files" },
} as const;

/** A plain decimal whole number within `flag`'s bounds (no sign, exponent, hex or spaces); a UsageError naming the flag and range otherwise. */
export function wholeNumber(flag: keyof typeof FLAG_BOUNDS, v: string): number {
  const { min, max, unit } = FLAG_BOUNDS[flag];
  const n = /^[0-9]{1,10}$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${flag} takes a whole number of ${unit} from ${min} to ${max}, written in plain digits; got ${JSON.stringify(v)}`);
  return n;
}

/** The most samples --samples may ask of one count: twenty times the largest the full preset takes. */
export const MAX_SAMPLES = 100_000;

/** `createPing=100,warm=500`: sample counts that override the preset's. */
export function parseSampleCounts(v: string): Partial<SampleCounts> {
  const known: readonly string[] = COUNT_KEYS;
  const out: Partial<SampleCounts> = {};
  for (const item of v.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [k, n, extra] = item.split("=");
    const count = /^[0-9]{1,6}$/.test(n ?? "") ? Number(n) : Number.NaN;
    if (extra !== undefined || !known.includes(k) || !(count >= 1 && count <= MAX_SAMPLES)) {
      throw new UsageError(`--samples takes name=count pairs with names ${known.join(", ")} and counts from 1 to ${MAX_SAMPLES} in plain digits, got "${item}"`);
    }
    out[k as keyof SampleCounts] = count;
  }
  if (Object.keys(out).length === 0) throw new UsageError(`--samples takes name=count pairs, got "${v}"`);
  return out;
}

/** `rivet=600,floor=600`: the microseconds each named side's handler waits before it replies. */
export function parsePlantDelays(v: string): Partial<Record<Side, number>> {
  const out: Partial<Record<Side, number>> = {};
  for (const item of v.split(",").map((x) => x.trim()).filter(Boolean)) {
    const [side, n, extra] = item.split("=");
    if (extra !== undefined || n === undefined || !(SIDES as readonly string[]).includes(side)) {
      throw new UsageError(`--plant-delay-us takes side=microseconds pairs with sides ${SIDES.join(", ")}, got "${item}"`);
    }
    out[side as Side] = wholeNumber("--plant-delay-us", n);
  }
  if (Object.keys(out).length === 0) throw new UsageError(`--plant-delay-us takes side=microseconds pairs, got "${v}"`);
  return out;
}

/** Parses `npm start` arguments into the effective run config; throws UsageError naming the bad flag. */
export function parseRunArgs(argv: readonly string[]): RunConfig {
  const cfg: RunConfig = {
    stack: "local",
    preset: "local",
    counts: PRESETS.local,
    sides: [...SIDES],
    groups: defaultGroups("local"),
    scaleLevels: PRESET_SCALE_LEVELS.local,
    resultsDir: "results",
    repeat: PRESET_REPEAT.local,
    plantDelayUs: {},
    wakeIdleMs: 10_000,
    cfWakeIdleMs: 12_000,
    requestTimeoutMs: 30_000,
    stallMs: STALL_MS,
    sleepConfirmTimeoutMs: 60_000,
    actorSleepTimeoutMs: 30_000,
    engine: { ...DEFAULT_ENGINE_SETTINGS },
    loopback: "quickack",
    engineTopology: "single",
    quiet: false,
  };
  let overrides: Partial<SampleCounts> = {};
  let groupsGiven = false;
  let repeatGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new UsageError(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    switch (flag) {
      case "--preset": {
        const v = value();
        if (!Object.hasOwn(PRESETS, v)) throw new UsageError(`--preset must be one of ${Object.keys(PRESETS).join(", ")}, got "${v}"`);
        cfg.preset = v as PresetName;
        cfg.counts = PRESETS[cfg.preset];
        break;
      }
      case "--side": {
        const v = value();
        if (v === "both") cfg.sides = [...RUNTIMES];
        else if (v === "all") cfg.sides = [...SIDES];
        else if ((SIDES as readonly string[]).includes(v)) cfg.sides = [v as Side];
        else throw new UsageError(`--side must be rivet, cloudflare, floor, both (the two runtimes) or all (with the floor), got "${v}"`);
        break;
      }
      case "--groups": {
        const names = value().split(",").map((s) => s.trim()).filter(Boolean);
        const bad = names.filter((g) => !(GROUPS as readonly string[]).includes(g));
        if (bad.length > 0 || names.length === 0) {
          throw new UsageError(`--groups takes a comma list of ${GROUPS.join(", ")}; unknown: ${bad.join(", ") || "(empty)"}`);
        }
        cfg.groups = GROUPS.filter((g) => names.includes(g));
        groupsGiven = true;
        break;
      }
      case "--repeat":
        cfg.repeat = wholeNumber(flag, value());
        repeatGiven = true;
        break;
      case "--plant-delay-us":
        cfg.plantDelayUs = { ...cfg.plantDelayUs, ...parsePlantDelays(value()) };
        break;
      case "--engine-version": {
        const v = value();
        if (!/^\d{1,4}\.\d{1,4}\.\d{1,4}(-[0-9A-Za-z.]{1,40})?$/.test(v)) throw new UsageError(`--engine-version takes a release number such as 2.3.18, got ${JSON.stringify(v)}`);
        cfg.engineVersion = v;
        break;
      }
      case "--wake-idle-ms":
        cfg.wakeIdleMs = wholeNumber(flag, value());
        break;
      case "--cf-wake-idle-ms":
        cfg.cfWakeIdleMs = wholeNumber(flag, value());
        break;
      case "--request-timeout-ms":
        cfg.requestTimeoutMs = wholeNumber(flag, value());
        break;
      case "--stall-ms":
        cfg.stallMs = wholeNumber(flag, value());
        break;
      case "--actor-sleep-timeout-ms":
        cfg.actorSleepTimeoutMs = wholeNumber(flag, value());
        break;
      case "--samples":
        overrides = { ...overrides, ...parseSampleCounts(value()) };
        break;
      case "--results-dir": {
        const v = value();
        if (v.trim() === "") throw new UsageError("--results-dir needs a folder name, got an empty one");
        cfg.resultsDir = v;
        break;
      }
      case "--workerd-open-files":
        cfg.workerdOpenFiles = wholeNumber(flag, value());
        break;
      case "--engine-load-shedding":
        cfg.engine.loadShedding = true;
        break;
      case "--engine-nagle":
        cfg.engine.tcpNodelay = false;
        break;
      case "--engine-keep-backtrace":
        cfg.engine.keepRustBacktrace = true;
        break;
      case "--engine-rust-log":
        cfg.engine.rustLog = value();
        break;
      case "--engine-topology": {
        const v = value();
        if (v !== "single" && v !== "cluster") throw new UsageError(`--engine-topology must be single or cluster, got "${v}"`);
        cfg.engineTopology = v;
        break;
      }
      case "--loopback": {
        const v = value();
        if (v !== "quickack" && v !== "host") throw new UsageError(`--loopback must be quickack or host, got "${v}"`);
        cfg.loopback = v;
        break;
      }
      case "--quiet":
        cfg.quiet = true;
        break;
      case "--help":
      case "-h":
        throw new UsageError(USAGE);
      default:
        throw new UsageError(`unknown argument "${flag}"\n${USAGE}`);
    }
  }
  if (!groupsGiven) cfg.groups = defaultGroups(cfg.preset);
  if (!repeatGiven) cfg.repeat = PRESET_REPEAT[cfg.preset];
  cfg.scaleLevels = PRESET_SCALE_LEVELS[cfg.preset];
  cfg.counts = Object.fromEntries(SIDES.map((side) => [side, { ...cfg.counts[side], ...overrides }])) as Record<Side, SampleCounts>;
  if (cfg.engineTopology === "cluster" && cfg.loopback === "quickack") {
    // The quickack namespace is a user namespace too, where only root is mapped, and Postgres refuses to run as root.
    throw new UsageError("--engine-topology cluster needs --loopback host: its Postgres cannot run inside the quickack namespace (a user namespace with root as its only user)");
  }
  return cfg;
}
