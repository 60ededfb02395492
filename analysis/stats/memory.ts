/**
 * What an actor costs in memory, from the scaling group: each stage records
 * the resident set of every process the run watches at its start and end
 * (notes.rssKb, VmRSS from /proc/<pid>/status). Per sleeping actor: the
 * slope, fitted over every level's wake stage (each begun with every actor of
 * the run asleep), of the side's own processes' resident set on the actors
 * the run had. Per live actor: the growth across the highest level's burst
 * (each of its creates still awake at its end) over the creates that
 * succeeded. Each repetition on fresh runtimes gives its own; the figure is
 * their mean with a 95% interval over them. Pure.
 */
import { metricEntry } from "../contract/catalog";
import { stageReps, type ManifestLike, type StageRecord } from "../contract/runDirContract";
import { DRIVER_PROCESS } from "./cpuPerOp";
import { linearInterval, type RepInterval } from "./repetitions";

export interface MemoryPerActor {
  side: string;
  /** The side's own processes the figures are over. */
  processes: string[];
  /** kB per sleeping actor (the mean over repetitions of each one's slope), or null where the run has no two levels to compare. */
  sleepingKb: number | null;
  /** Its 95% interval over repetitions, or why none. */
  sleepingInterval: RepInterval;
  /** Wake levels the slope is fitted over. */
  levels: number;
  /** The actors the sleeping figure is over: how many more existed at the higher level. */
  sleepingActors: number;
  /** kB per live actor, or null where the highest level's burst recorded none. */
  liveKb: number | null;
  liveInterval: RepInterval;
  liveActors: number;
  /** Each repetition's own figures, in repetition order. */
  perRep: Array<{ sleepingKb: number | null; liveKb: number | null }>;
  /**
   * Where the sleeping figure starts: the run's actors on this side and its own processes' resident set as the lowest
   * level's wakes began. A process whose resident set an earlier group already raised (the capacity group, say) reuses
   * what its allocator kept for the next actors, so its growth, and the figure, come out lower than on a fresh runtime.
   */
  atLowest: { existing: number | null; ownRssKb: number };
}

type Rss = Record<string, { start: number; end: number } | null>;

const repOf = (st: StageRecord | undefined, rep: number) => (st ? stageReps(st).find((r) => r.rep === rep) : undefined);
const rssOf = (st: StageRecord | undefined, rep: number) => (repOf(st, rep)?.notes?.rssKb ?? null) as Rss | null;
const existingOf = (st: StageRecord | undefined, rep: number) => {
  const at = (repOf(st, rep)?.notes?.startState as { atStage?: { existing?: unknown } } | undefined)?.atStage?.existing;
  return typeof at === "number" && Number.isFinite(at) ? at : null;
};

/** The own processes two records both measured, and their summed resident set at `when`. */
function own(rss: Rss, names: readonly string[], when: "start" | "end"): number {
  return names.reduce((t, k) => t + rss[k]![when], 0);
}

/** The least-squares slope of y on x; null with fewer than two distinct x. */
export function slope(points: ReadonlyArray<{ x: number; y: number }>): number | null {
  if (new Set(points.map((p) => p.x)).size < 2) return null;
  const mx = points.reduce((t, p) => t + p.x, 0) / points.length;
  const my = points.reduce((t, p) => t + p.y, 0) / points.length;
  const sxy = points.reduce((t, p) => t + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((t, p) => t + (p.x - mx) ** 2, 0);
  return sxy / sxx;
}

/** The figure over repetitions: the mean and its 95% t interval (linear: a slope can be near zero or below). */
function overReps(values: readonly number[]): { kb: number | null; interval: RepInterval } {
  if (values.length === 0) return { kb: null, interval: { lo: null, hi: null, none: "no repetition measured it" } };
  return { kb: values.reduce((t, v) => t + v, 0) / values.length, interval: linearInterval(values, 0) };
}

/** The scaling group's stages of one side that memory is read from: the wakes by level, and the top level's burst. */
function scaleStages(m: ManifestLike, side: string) {
  const scale = Object.values(m.stages).filter((s) => s.side === side && metricEntry(s.metric)?.scale);
  const level = (s: StageRecord) => metricEntry(s.metric)!.scale!.level;
  const wakes = scale.filter((s) => metricEntry(s.metric)!.scale!.op === "wake").sort((a, b) => level(a) - level(b));
  const top = wakes.length ? level(wakes[wakes.length - 1]) : -1;
  const burst = scale.find((s) => metricEntry(s.metric)!.scale!.op === "burst" && level(s) === top);
  return { wakes, burst };
}

/** One repetition's figures: the slope of own resident set on actors asleep over the levels' wakes, and the live growth across the top burst. */
function repFigures(wakes: readonly StageRecord[], burst: StageRecord | undefined, rep: number, names: readonly string[]) {
  const points = wakes.flatMap((w) => {
    const rss = rssOf(w, rep);
    const x = existingOf(w, rep);
    return rss && x !== null && names.every((k) => rss[k]) ? [{ x, y: own(rss, names, "start") }] : [];
  });
  const b = repOf(burst, rep);
  const rb = rssOf(burst, rep);
  const live = b ? b.attempts - b.errors : 0;
  return {
    sleepingKb: slope(points),
    actors: points.length > 1 ? Math.max(...points.map((p) => p.x)) - Math.min(...points.map((p) => p.x)) : 0,
    liveKb: live > 0 && rb && names.every((k) => rb[k]) ? (own(rb, names, "end") - own(rb, names, "start")) / live : null,
    live,
  };
}

/**
 * Memory per actor of every side with a scaling group. Per sleeping actor:
 * in each repetition (fresh runtimes), the least-squares slope of the side's
 * own processes' resident set at each level's wake stage (every actor of the
 * run asleep) on the actors the run had then; per live actor: the growth
 * across the top level's burst over its creates. Each figure is the mean over
 * repetitions with its 95% t interval; the counts and the starting point are
 * the first repetition's.
 */
export function memoryPerActor(m: ManifestLike): MemoryPerActor[] {
  const out: MemoryPerActor[] = [];
  for (const side of [...new Set(Object.values(m.stages).map((s) => s.side))]) {
    const { wakes, burst } = scaleStages(m, side);
    if (wakes.length === 0) continue;
    const reps = stageReps(wakes[0]).map((r) => r.rep);
    const first = rssOf(wakes[0], reps[0]);
    if (!first) continue;
    const names = Object.keys(first).filter((k) => k !== DRIVER_PROCESS && first[k]);
    if (names.length === 0) continue;
    const per = reps.map((rep) => repFigures(wakes, burst, rep, names));
    const sleeping = overReps(per.flatMap((f) => (f.sleepingKb === null ? [] : [f.sleepingKb])));
    const live = overReps(per.flatMap((f) => (f.liveKb === null ? [] : [f.liveKb])));
    out.push({
      side,
      processes: names,
      sleepingKb: sleeping.kb,
      sleepingInterval: sleeping.interval,
      sleepingActors: per[0].actors,
      levels: wakes.length,
      liveKb: live.kb,
      liveInterval: live.interval,
      liveActors: per[0].live,
      perRep: per.map((f) => ({ sleepingKb: f.sleepingKb, liveKb: f.liveKb })),
      atLowest: { existing: existingOf(wakes[0], reps[0]), ownRssKb: own(first, names, "start") },
    });
  }
  return out;
}
