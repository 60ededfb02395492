/**
 * What an actor costs in memory, from the scaling group: each stage records
 * the resident set of every process the run watches at its start and end
 * (notes.rssKb, VmRSS from /proc/<pid>/status). Per sleeping actor: the
 * growth of the side's own processes' resident set between the lowest and
 * the highest level's wake stage (each begun with every actor of the run
 * asleep) over the actors made between them. Per live actor: the growth
 * across the highest level's burst (each of its creates still awake at its
 * end) over the creates that succeeded. The first repetition's records, as
 * the scaling table's counts. Pure.
 */
import { metricEntry } from "../contract/catalog";
import { stageReps, type ManifestLike, type StageRecord } from "../contract/runDirContract";
import { DRIVER_PROCESS } from "./cpuPerOp";

export interface MemoryPerActor {
  side: string;
  /** The side's own processes the figures are over. */
  processes: string[];
  /** kB per sleeping actor, or null where the run has no two levels to compare. */
  sleepingKb: number | null;
  /** The actors the sleeping figure is over: how many more existed at the higher level. */
  sleepingActors: number;
  /** kB per live actor, or null where the highest level's burst recorded none. */
  liveKb: number | null;
  liveActors: number;
  /**
   * Where the sleeping figure starts: the run's actors on this side and its own processes' resident set as the lowest
   * level's wakes began. A process whose resident set an earlier group already raised (the capacity group, say) reuses
   * what its allocator kept for the next actors, so its growth, and the figure, come out lower than on a fresh runtime.
   */
  atLowest: { existing: number | null; ownRssKb: number };
}

type Rss = Record<string, { start: number; end: number } | null>;

const first = (st: StageRecord | undefined) => (st ? stageReps(st)[0] : undefined);
const rssOf = (st: StageRecord | undefined) => (first(st)?.notes?.rssKb ?? null) as Rss | null;
const existingOf = (st: StageRecord | undefined) => {
  const at = (first(st)?.notes?.startState as { atStage?: { existing?: unknown } } | undefined)?.atStage?.existing;
  return typeof at === "number" && Number.isFinite(at) ? at : null;
};

/** The own processes two records both measured, and their summed resident set at `when`. */
function own(rss: Rss, names: readonly string[], when: "start" | "end"): number {
  return names.reduce((t, k) => t + rss[k]![when], 0);
}

export function memoryPerActor(m: ManifestLike): MemoryPerActor[] {
  const out: MemoryPerActor[] = [];
  const sides = [...new Set(Object.values(m.stages).map((s) => s.side))];
  for (const side of sides) {
    const scale = Object.values(m.stages).filter((s) => s.side === side && metricEntry(s.metric)?.scale);
    const wakes = scale
      .filter((s) => metricEntry(s.metric)!.scale!.op === "wake")
      .sort((a, b) => metricEntry(a.metric)!.scale!.level - metricEntry(b.metric)!.scale!.level);
    if (wakes.length === 0) continue;
    const lo = wakes[0];
    const hi = wakes[wakes.length - 1];
    const top = metricEntry(hi.metric)!.scale!.level;
    const burst = scale.find((s) => metricEntry(s.metric)!.scale!.op === "burst" && metricEntry(s.metric)!.scale!.level === top);
    const [rLo, rHi, rBurst] = [rssOf(lo), rssOf(hi), rssOf(burst)];
    if (!rLo) continue;
    const names = Object.keys(rLo).filter((k) => k !== DRIVER_PROCESS && rLo[k] && (!rHi || rHi[k]) && (!rBurst || rBurst[k]));
    if (names.length === 0) continue;
    const [eLo, eHi] = [existingOf(lo), existingOf(hi)];
    const sleepingActors = lo !== hi && eLo !== null && eHi !== null ? eHi - eLo : 0;
    const lowKb = own(rLo, names, "start");
    const sleepingKb = sleepingActors > 0 && rHi ? (own(rHi, names, "start") - lowKb) / sleepingActors : null;
    const b = first(burst);
    const liveActors = b ? b.attempts - b.errors : 0;
    const liveKb = liveActors > 0 && rBurst ? (own(rBurst, names, "end") - own(rBurst, names, "start")) / liveActors : null;
    out.push({
      side,
      processes: names,
      sleepingKb,
      sleepingActors,
      liveKb,
      liveActors,
      atLowest: { existing: eLo, ownRssKb: lowKb },
    });
  }
  return out;
}
