import { COUNT_KEYS, defaultGroups, GROUPS, PRESET_SCALE_LEVELS, PRESETS, RUNTIMES, SIDES, type Group, type PresetName, type SampleCounts, type Side } from "../analysis/catalog";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "../cluster/engineConfig";

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
  wakeIdleMs: number;
  /** Local workerd's open-file limit; absent: raised to the hard limit (set lower only to see a machine limit named). */
  workerdOpenFiles?: number;
  /** Idle time before a DO wake: must exceed the runtime's eviction (local workerd: ~10 s). */
  cfWakeIdleMs: number;
  requestTimeoutMs: number;
  sleepConfirmTimeoutMs: number;
  actorSleepTimeoutMs: number;
  engine: EngineSettings;
  /**
   * quickack: run inside a private network namespace whose loopback route has
   * delayed ACKs off (see workloads/rivet/LATENCY.md); host: the machine's own loopback.
   */
  loopback: "quickack" | "host";
  /** single: one Engine on its file system; cluster: three Engines on Postgres + NATS behind haproxy, as in the cloud. */
  engineTopology: "single" | "cluster";
  quiet: boolean;
}

export class UsageError extends Error {}

const USAGE = `usage: npm start -- [--preset quick|local|full] [--side rivet|cloudflare|floor|both|all] [--groups ${GROUPS.join(",")}]
  [--wake-idle-ms N] [--cf-wake-idle-ms N] [--request-timeout-ms N] [--actor-sleep-timeout-ms N] [--samples name=N,...] [--results-dir DIR]
  [--loopback quickack|host] [--engine-topology single|cluster] [--engine-nagle] [--engine-load-shedding] [--engine-keep-backtrace] [--engine-rust-log LEVEL] [--workerd-open-files N] [--quiet]`;

function positiveInt(flag: string, v: string | undefined): number {
  const n = Number(v);
  if (v === undefined || !Number.isInteger(n) || n <= 0) {
    throw new UsageError(`${flag} needs a positive whole number of milliseconds, got ${v === undefined ? "nothing" : JSON.stringify(v)}`);
  }
  return n;
}

/** `createPing=100,warm=500`: sample counts that override the preset's. */
export function parseSampleCounts(v: string): Partial<SampleCounts> {
  const known: readonly string[] = COUNT_KEYS;
  const out: Partial<SampleCounts> = {};
  for (const item of v.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [k, n, extra] = item.split("=");
    const count = Number(n);
    if (extra !== undefined || !known.includes(k) || !Number.isInteger(count) || count <= 0) {
      throw new UsageError(`--samples takes name=count pairs with names ${known.join(", ")} and whole counts above 0, got "${item}"`);
    }
    out[k as keyof SampleCounts] = count;
  }
  if (Object.keys(out).length === 0) throw new UsageError(`--samples takes name=count pairs, got "${v}"`);
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
    wakeIdleMs: 10_000,
    cfWakeIdleMs: 15_000,
    requestTimeoutMs: 30_000,
    sleepConfirmTimeoutMs: 60_000,
    actorSleepTimeoutMs: 30_000,
    engine: { ...DEFAULT_ENGINE_SETTINGS },
    loopback: "quickack",
    engineTopology: "single",
    quiet: false,
  };
  let overrides: Partial<SampleCounts> = {};
  let groupsGiven = false;
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
        if (!(v in PRESETS)) throw new UsageError(`--preset must be one of ${Object.keys(PRESETS).join(", ")}, got "${v}"`);
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
      case "--wake-idle-ms":
        cfg.wakeIdleMs = positiveInt(flag, value());
        break;
      case "--cf-wake-idle-ms":
        cfg.cfWakeIdleMs = positiveInt(flag, value());
        break;
      case "--request-timeout-ms":
        cfg.requestTimeoutMs = positiveInt(flag, value());
        break;
      case "--actor-sleep-timeout-ms":
        cfg.actorSleepTimeoutMs = positiveInt(flag, value());
        break;
      case "--samples":
        overrides = { ...overrides, ...parseSampleCounts(value()) };
        break;
      case "--results-dir":
        cfg.resultsDir = value();
        break;
      case "--workerd-open-files":
        cfg.workerdOpenFiles = positiveInt(flag, value());
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
  cfg.scaleLevels = PRESET_SCALE_LEVELS[cfg.preset];
  cfg.counts = Object.fromEntries(SIDES.map((side) => [side, { ...cfg.counts[side], ...overrides }])) as Record<Side, SampleCounts>;
  if (cfg.engineTopology === "cluster" && cfg.loopback === "quickack") {
    // The quickack namespace is a user namespace too, where only root is mapped, and Postgres refuses to run as root.
    throw new UsageError("--engine-topology cluster needs --loopback host: its Postgres cannot run inside the quickack namespace (a user namespace with root as its only user)");
  }
  return cfg;
}
