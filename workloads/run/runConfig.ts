import { EVERY_OP, isPlantKey, PLANT_OPS, type Plant } from "../sides/plantSpec";
import {
  COUNT_KEYS,
  defaultGroups,
  GROUPS,
  PRESET_REPEAT,
  PRESET_SCALE_LEVELS,
  PRESETS,
  SCALE_LEVELS,
  type Group,
  type PresetName,
  type SampleCounts,
  type Side,
} from "../../analysis/contract/catalog";
import { STALL_MS } from "../host/runtimeWatch";
import { LOOPBACKS, type Loopback } from "../host/netns";
import { CAPACITY } from "../../analysis/contract/capacity";
import { IDLE_BOUNDS, IDLE_LADDERS, idleLabel, parseIdleLadder } from "../../analysis/contract/idleLadder";
import { readPriceTable } from "../../analysis/contract/priceFile";
import type { PriceTable } from "../../analysis/contract/prices";
import { DAY_MS, HelpRequested, oneOf, on, UsageError, whole, wholeNumber, type OptionSpec } from "../sides/options";
import { runtimeIds, SIDE_REGISTRY, type SideRegistry } from "../sides/registry";
import type { SideRunSettings } from "../sides/side";

export { HelpRequested, UsageError, wholeNumber, type Side };

/**
 * A stage's deadline unless --stage-deadline-ms says otherwise: ten minutes,
 * far past any stage of a runtime that keeps answering, so it ends only a
 * stage whose runtime has stopped keeping up.
 */
const STAGE_DEADLINE_MS = 600_000;

export interface RunConfig {
  stack: string;
  preset: PresetName;
  /** Sample counts per side: the preset's (the side's own where its package gives one), with --samples applied to every side. */
  counts: Record<Side, SampleCounts>;
  sides: Side[];
  groups: Group[];
  /** The scaling group's levels: actors made before its measurements (the preset's). */
  scaleLevels: readonly number[];
  /** The idle ladder's lengths, ms, ascending (the preset's unless --idle-ladder). */
  idleLadder: readonly number[];
  resultsDir: string;
  /** Repetitions of the plan, each on fresh runtimes, the sides' order rotated (the preset's unless --repeat). */
  repeat: number;
  /** A planted change: microseconds each side's own handler waits before it replies, by operation (absent: none), to show a comparison catches a change of known size. */
  plantDelayUs: Partial<Record<Side, Plant>>;
  /** How long slept actors stay idle before a wake, on a side that confirms sleep. */
  wakeIdleMs: number;
  requestTimeoutMs: number;
  /** How long a runtime may answer no call at all before it counts as stalled and its side stops (runtimeWatch.ts). */
  stallMs: number;
  /** How long any one stage may send calls: past it, the stage stops, keeps what it has and records the deadline as its outcome. */
  stageDeadlineMs: number;
  actorSleepTimeoutMs: number;
  /**
   * quickack: run inside a private network namespace whose loopback route has
   * delayed ACKs off (see docs/engine-latency.md); host: the machine's own loopback.
   */
  loopback: Loopback;
  /** Set when quickack was asked for and no private namespace could be made: why, and the run measured on the host loopback. */
  loopbackFallback?: string;
  /** Each side's own settings, by side: its options over its package's defaults. */
  sideSettings: Record<Side, unknown>;
  /** The p99 a capacity step must keep, client clock from the intended send, ms. */
  capacityP99Ms: number;
  /** A price table given for this run's report (--prices FILE), recorded in its manifest; absent: the repository's. */
  prices?: PriceTable;
  /** Capture the loopback's packets during the hop stages (analysis/contract/hops.ts), for the report's waterfall. */
  capture: boolean;
  /** Start a trace collector on the loopback for each side's runtime and keep the spans it exports (OpenTelemetry). */
  otel: boolean;
  quiet: boolean;
}

/**
 * Every default of the run's own options, written once: the parser fills the
 * config from it, and each option's --help text and stack default read it.
 * The preset decides the rest (counts, groups, repetitions, levels, ladder).
 */
export const RUN_DEFAULTS = {
  preset: "local" as PresetName,
  wakeIdleMs: 10_000,
  requestTimeoutMs: 30_000,
  stallMs: STALL_MS,
  stageDeadlineMs: STAGE_DEADLINE_MS,
  actorSleepTimeoutMs: 30_000,
  loopback: "quickack" as Loopback,
  capacityP99Ms: CAPACITY.objective.p99Ms,
  resultsDir: "results",
  capture: false,
  otel: false,
  quiet: false,
} satisfies Partial<RunConfig>;

/** What parsed options set: a part of the run config, the --side word, the count overrides and each side's own settings. */
type Parsed = Partial<
  Pick<RunConfig, keyof typeof RUN_DEFAULTS | "repeat" | "groups" | "idleLadder" | "scaleLevels" | "prices" | "plantDelayUs">
> & {
  /** --side: a side's id, both (the runtimes) or all. */
  side?: string;
  samples?: Partial<SampleCounts>;
  /** Each side's own options, by side. */
  own: Record<Side, Record<string, unknown>>;
};

/** An option's default as --help says it and as a stack's Pulumi.yaml declares it, from RUN_DEFAULTS. */
const defaultOf = (k: keyof typeof RUN_DEFAULTS) => {
  const v = RUN_DEFAULTS[k] as string | number;
  return { default: String(v), stackDefault: v };
};

/**
 * One option of a run, in the form every option takes (workloads/sides/options.ts).
 * The run's own are declared here, each side's in its package; RUN_OPTIONS
 * holds them all, and the parser, the usage text, the stack's keys and the
 * docs' flag table all come from it.
 */
type RunOption = OptionSpec<Parsed>;

/** The most samples --samples may ask of one count: twenty times the largest the full preset takes. */
const MAX_SAMPLES = 100_000;

/** `createPing=100,warm=500`: sample counts that override the preset's. */
function parseSampleCounts(v: string, name = "--samples"): Partial<SampleCounts> {
  const known: readonly string[] = COUNT_KEYS;
  const out: Partial<SampleCounts> = {};
  for (const item of v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [k, n, extra] = item.split("=");
    const count = /^[0-9]{1,6}$/.test(n ?? "") ? Number(n) : Number.NaN;
    if (extra !== undefined || !known.includes(k) || !(count >= 1 && count <= MAX_SAMPLES)) {
      throw new UsageError(
        `${name} takes name=count pairs with names ${known.join(", ")} and counts from 1 to ${MAX_SAMPLES} in plain digits, got "${item}"`,
      );
    }
    out[k as keyof SampleCounts] = count;
  }
  if (Object.keys(out).length === 0) throw new UsageError(`${name} takes name=count pairs, got "${v}"`);
  return out;
}

const PLANT_MAX_US = 1_000_000;

/**
 * `<side>=600` (every operation of the side) or `<side>:<op>=600` (that
 * operation only), comma-separated: the microseconds each named side's
 * handler waits before it replies.
 */
function parsePlantDelays(v: string, name = "--plant-delay-us", registry: SideRegistry = SIDE_REGISTRY): Partial<Record<Side, Plant>> {
  const ids = registry.map((d) => d.profile.id);
  const out: Partial<Record<Side, Record<string, number>>> = {};
  for (const item of v
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean)) {
    const [target, n, extra] = item.split("=");
    const [side, op = EVERY_OP, more] = (target ?? "").split(":");
    if (extra !== undefined || n === undefined || more !== undefined || !ids.includes(side) || !isPlantKey(op)) {
      throw new UsageError(
        `${name} takes side=microseconds or side:operation=microseconds with sides ${ids.join(", ")} and operations ${PLANT_OPS.join(", ")}, got "${item}"`,
      );
    }
    out[side] = { ...out[side], [op]: wholeNumber(name, n, 0, PLANT_MAX_US, "microseconds") };
  }
  if (Object.keys(out).length === 0) throw new UsageError(`${name} takes side=microseconds pairs, got "${v}"`);
  return out;
}

function ladderText(ms: readonly number[]): string {
  return ms.map(idleLabel).join(",");
}

/** The run's options that say what is measured: preset, repetitions, planted change, sides. */
const WHAT_OPTIONS = (registry: SideRegistry): RunOption[] => [
  {
    flag: "--preset",
    value: Object.keys(PRESETS).join("|"),
    key: "preset",
    ...defaultOf("preset"),
    help: "sample counts and repetitions (docs/local-runs.md, Presets)",
    ...oneOf(Object.keys(PRESETS) as PresetName[], `one of ${Object.keys(PRESETS).join(", ")}`, (p, v) => (p.preset = v)),
  },
  {
    flag: "--repeat",
    value: "N",
    default: "the preset's",
    help: "repetitions of the plan, each on fresh runtimes, the sides' order rotated",
    ...whole(1, 20, "repetitions", (p, n) => (p.repeat = n)),
  },
  {
    flag: "--plant-delay-us",
    value: "side[:op]=N,...",
    default: "none",
    bounds: `0 to ${PLANT_MAX_US} microseconds an operation`,
    help: "a planted change: the named side's own handler waits N microseconds before it replies, in every operation or in the one named (rivet:write=500) (workloads/sides/plant.ts), to show a comparison catches a change of known size",
    read: (v, name, p) => {
      const given = parsePlantDelays(v, name, registry);
      p.plantDelayUs = {
        ...p.plantDelayUs,
        ...Object.fromEntries(Object.entries(given).map(([side, plant]) => [side, { ...p.plantDelayUs?.[side], ...plant }])),
      };
    },
  },
  {
    flag: "--side",
    value: [...registry.map((d) => d.profile.id), "both", "all"].join("|"),
    key: "side",
    default: "all",
    stackDefault: "both",
    help: "which side: both is the runtimes, all adds the control sides (a stack measures the runtimes only: its default is both)",
    read: (v, name, p) => {
      if (v !== "both" && v !== "all" && !registry.some((d) => d.profile.id === v)) {
        throw new UsageError(
          `${name} must be ${registry.map((d) => d.profile.id).join(", ")}, both (the runtimes) or all (every side), got "${v}"`,
        );
      }
      p.side = v;
    },
  },
];

/** The run's options that select groups, counts and the idle ladder. */
const SELECT_OPTIONS: readonly RunOption[] = [
  {
    flag: "--groups",
    value: "LIST",
    key: "groups",
    default: "the preset's",
    help: `comma list of ${GROUPS.join(", ")}, always run in this order`,
    read: (v, name, p) => {
      const names = v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = names.filter((g) => !(GROUPS as readonly string[]).includes(g));
      if (bad.length > 0 || names.length === 0)
        throw new UsageError(`${name} takes a comma list of ${GROUPS.join(", ")}; unknown: ${bad.join(", ") || "(empty)"}`);
      p.groups = GROUPS.filter((g) => names.includes(g));
    },
  },
  {
    flag: "--samples",
    value: "name=N,...",
    key: "samples",
    default: "the preset's",
    bounds: `1 to ${MAX_SAMPLES} a count`,
    help: "override single counts on every side, e.g. createPing=500,warm=1000",
    read: (v, name, p) => (p.samples = { ...p.samples, ...parseSampleCounts(v, name) }),
  },
  {
    flag: "--scale-levels",
    value: "LIST",
    default: "the preset's",
    bounds: `2 or more of ${SCALE_LEVELS.join(", ")}, ascending`,
    help: "the scaling group's levels: actors made (asleep) before each level's creates, wakes and burst; memory per actor is fitted over them (docs/cost.md)",
    read: (v, name, p) => {
      const levels = v.split(",").map((x) => Number(x.trim()));
      const known = (SCALE_LEVELS as readonly number[]).includes.bind(SCALE_LEVELS);
      if (levels.length < 2 || !levels.every((l) => known(l)) || levels.some((l, i) => i > 0 && l <= levels[i - 1]))
        throw new UsageError(`${name} takes 2 or more of ${SCALE_LEVELS.join(", ")} in ascending order, got "${v}"`);
      p.scaleLevels = levels;
    },
  },
  {
    flag: "--idle-ladder",
    value: "LIST",
    key: "idleLadder",
    default: `${ladderText(IDLE_LADDERS.local)} (full: ${ladderText(IDLE_LADDERS.long)})`,
    stackDefault: ladderText(IDLE_LADDERS.long),
    bounds: `${idleLabel(IDLE_BOUNDS.minMs)} to ${idleLabel(IDLE_BOUNDS.maxMs)} each, at most ${IDLE_BOUNDS.maxSteps}`,
    help: "the idle group's lengths: actors left untouched this long, then woken (docs/idle.md)",
    read: (v, name, p) => {
      const r = parseIdleLadder(v);
      if ("error" in r) throw new UsageError(`${name} takes a comma list of lengths such as 10s,30s,1m,5m: ${r.error}`);
      p.idleLadder = r.lengths;
    },
  },
];

/** The run's options that say how long things wait and where results go. */
const LIMIT_OPTIONS: readonly RunOption[] = [
  {
    flag: "--wake-idle-ms",
    value: "N",
    key: "wakeIdleMs",
    ...defaultOf("wakeIdleMs"),
    help: "how long every actor is confirmed asleep before it is woken, on a side that confirms sleep",
    ...whole(1, DAY_MS, "milliseconds", (p, n) => (p.wakeIdleMs = n)),
  },
  {
    flag: "--request-timeout-ms",
    value: "N",
    key: "requestTimeoutMs",
    ...defaultOf("requestTimeoutMs"),
    help: "per request; a timeout is a failure with its error text",
    ...whole(1, DAY_MS, "milliseconds", (p, n) => (p.requestTimeoutMs = n)),
  },
  {
    flag: "--stall-ms",
    value: "N",
    default: String(RUN_DEFAULTS.stallMs),
    help: "a runtime that answers no call for this long is stalled: its side stops, named in the run",
    ...whole(1000, DAY_MS, "milliseconds", (p, n) => (p.stallMs = n)),
  },
  {
    flag: "--capacity-p99-ms",
    value: "N",
    key: "capacityP99Ms",
    ...defaultOf("capacityP99Ms"),
    help: `the capacity group's objective: a rate is held when its p99 (client clock from the intended send) is within this and at most ${CAPACITY.objective.maxFailureShare * 100}% of its calls fail`,
    ...whole(1, 60_000, "milliseconds", (p, n) => (p.capacityP99Ms = n)),
  },
  {
    flag: "--prices",
    value: "FILE",
    key: "prices",
    default: "analysis/contract/prices.ts",
    help: "a price table (JSON, that file's shape) for the report's cost per million operations; recorded in the run's manifest",
    reportOnly: true,
    read: (v, name, p) => {
      try {
        p.prices = readPriceTable(v, name);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    },
  },
  {
    flag: "--stage-deadline-ms",
    value: "N",
    key: "stageDeadlineMs",
    ...defaultOf("stageDeadlineMs"),
    help: 'how long one stage may send calls; past it the stage stops, keeps its samples and records "deadline: X of N done" as its outcome',
    ...whole(1000, DAY_MS, "milliseconds", (p, n) => (p.stageDeadlineMs = n)),
  },
  {
    flag: "--actor-sleep-timeout-ms",
    value: "N",
    key: "actorSleepTimeoutMs",
    ...defaultOf("actorSleepTimeoutMs"),
    help: "the benchmark actors' idle sleep timeout, on every side that has one",
    ...whole(1, DAY_MS, "milliseconds", (p, n) => (p.actorSleepTimeoutMs = n)),
  },
  {
    flag: "--loopback",
    value: "quickack|host",
    key: "loopback",
    ...defaultOf("loopback"),
    help: "a private network namespace whose loopback has delayed ACKs off, or the host's loopback",
    ...oneOf(LOOPBACKS, LOOPBACKS.join(" or "), (p, v) => (p.loopback = v)),
  },
  {
    flag: "--results-dir",
    value: "DIR",
    default: RUN_DEFAULTS.resultsDir,
    help: "where run directories go",
    read: (v, name, p) => {
      if (v.trim() === "") throw new UsageError(`${name} needs a folder name, got an empty one`);
      p.resultsDir = v;
    },
  },
  {
    flag: "--capture",
    default: "off",
    help: "capture the loopback (tcpdump, as root) during the warm, create, wake and SQLite stages, kept compressed with the run, for the report's waterfall of where each call's time goes",
    ...on((p) => (p.capture = true)),
  },
  {
    flag: "--otel",
    default: "off",
    help: "start an OpenTelemetry collector on the loopback for each side's runtime and keep the trace spans it exports with the run (the Rivet Engine exports them; the report sets them beside --capture's segments)",
    ...on((p) => (p.otel = true)),
  },
  { flag: "--quiet", default: "off", help: "nothing printed while the run runs", ...on((p) => (p.quiet = true)) },
];

/** A side's options as run options: each reads into that side's own draft. */
function sideOptions(registry: SideRegistry): RunOption[] {
  return registry.flatMap((d) =>
    d.options.map(
      (o): RunOption => ({ ...o, side: d.profile.id, read: (v, name, p) => o.read(v, name, (p.own[d.profile.id] ??= {}) as never) }),
    ),
  );
}

/** Every option of `npm start` and of a stack's runs, in the order --help lists them: the run's own, then each side's. */
export const runOptions = (registry: SideRegistry = SIDE_REGISTRY): readonly RunOption[] => [
  ...WHAT_OPTIONS(registry),
  ...SELECT_OPTIONS,
  ...LIMIT_OPTIONS,
  ...sideOptions(registry),
];
export const RUN_OPTIONS: readonly RunOption[] = runOptions();

/** The usage text, every option with its default and bounds. */
export const usage = (options: readonly RunOption[] = RUN_OPTIONS): string =>
  [
    "usage: npm start -- [flags]",
    ...options.map(
      (o) => `  ${`${o.flag}${o.value ? ` ${o.value}` : ""}`.padEnd(40)} ${o.help}; default ${o.default}${o.bounds ? `; ${o.bounds}` : ""}`,
    ),
  ].join("\n");
export const USAGE = usage();

export const FLAGS_START = "<!-- flags:start (generated from the option table by `npm run flags`; do not edit) -->";
export const FLAGS_END = "<!-- flags:end -->";

/** The docs' flags table, from the option table: every option with its stack key, its side, its default and bounds. */
export function flagsMarkdown(options: readonly RunOption[] = RUN_OPTIONS): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const rows = options.map((o) => [
    `\`${cell(`${o.flag}${o.value ? ` ${o.value}` : ""}`)}\``,
    o.key ? `\`${o.key}\`` : "-",
    o.side ?? "every",
    cell(o.default),
    o.bounds ? cell(o.bounds) : "-",
    cell(o.help),
  ]);
  return [
    "| flag | stack key | side | default | bounds | what it does |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

/** The run config from parsed options: the preset's counts, groups, repetitions and levels where none was given; each side's settings over its defaults. */
function runConfigOf(p: Parsed, registry: SideRegistry = SIDE_REGISTRY): RunConfig {
  const { side, samples, own, ...given } = p;
  const preset = given.preset ?? RUN_DEFAULTS.preset;
  const ids = registry.map((d) => d.profile.id);
  const cfg: RunConfig = {
    ...RUN_DEFAULTS,
    stack: "local",
    counts: Object.fromEntries(registry.map((d) => [d.profile.id, { ...(d.presetCounts?.[preset] ?? PRESETS[preset]), ...samples }])),
    sides: side === undefined || side === "all" ? ids : side === "both" ? runtimeIds(registry) : [side],
    groups: defaultGroups(preset),
    scaleLevels: PRESET_SCALE_LEVELS[preset],
    idleLadder: preset === "full" ? IDLE_LADDERS.long : IDLE_LADDERS.local,
    repeat: PRESET_REPEAT[preset],
    plantDelayUs: {},
    ...given,
    sideSettings: Object.fromEntries(registry.map((d) => [d.profile.id, { ...(d.defaults as object), ...own[d.profile.id] }])),
  };
  for (const d of registry) {
    const problem = d.check?.(sideSettingsOf(cfg, d.profile.id));
    if (problem) throw new UsageError(problem);
  }
  return cfg;
}

/** What one side is given of a run config (SideRunSettings): the run's shared settings, its share, its own settings. */
export function sideSettingsOf<S = unknown>(cfg: RunConfig, side: Side): SideRunSettings<S> {
  return {
    requestTimeoutMs: cfg.requestTimeoutMs,
    wakeIdleMs: cfg.wakeIdleMs,
    actorSleepTimeoutMs: cfg.actorSleepTimeoutMs,
    loopback: cfg.loopback,
    plant: cfg.plantDelayUs[side] ?? {},
    counts: cfg.counts[side],
    groups: cfg.groups,
    scaleLevels: cfg.scaleLevels,
    own: cfg.sideSettings[side] as S,
  };
}

/** Parses `npm start` arguments into the effective run config; throws UsageError naming the bad flag. */
export function parseRunArgs(argv: readonly string[], registry: SideRegistry = SIDE_REGISTRY): RunConfig {
  const options = registry === SIDE_REGISTRY ? RUN_OPTIONS : runOptions(registry);
  const help = usage(options);
  const p: Parsed = { own: {} };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--help" || flag === "-h") throw new HelpRequested(help);
    const o = options.find((x) => x.flag === flag);
    if (!o) throw new UsageError(`unknown argument "${flag}"\n${help}`);
    let v = "";
    if (o.value) {
      const next = argv[++i];
      if (next === undefined || next.startsWith("--")) throw new UsageError(`${flag} needs a value\n${help}`);
      v = next;
    }
    o.read(v, flag, p);
  }
  return runConfigOf(p, registry);
}

/** The options a stack's keys set, by key. */
export const STACK_RUN_OPTIONS: ReadonlyArray<RunOption & { key: string }> = RUN_OPTIONS.filter(
  (o): o is RunOption & { key: string } => o.key !== undefined,
);

/**
 * The run config a stack's keys give (values as Pulumi holds them, strings),
 * read by the same rules as the flags, each error naming its key; and the
 * same settings as `npm start` flags, for the runs on the runner.
 */
export function stackRunOptions(raw: Readonly<Record<string, string | undefined>>): { run: RunConfig; runArgs: string[] } {
  const p: Parsed = { own: {} };
  const runArgs: string[] = [];
  for (const o of STACK_RUN_OPTIONS) {
    const v = raw[o.key];
    if (v === undefined) continue;
    o.read(v, `config actor-bench:${o.key}:`, p);
    if (!o.reportOnly) runArgs.push(o.flag, v);
  }
  return { run: runConfigOf(p), runArgs };
}
