/**
 * The idle ladder of a run: per side and idle length, the wakes' client
 * round trip (the one clock every side has), how many answered from a fresh
 * instance, and whether that was required. A step past the runtime's own
 * idle sleep (its record's idle.coldRequired, from the adapter) must prove
 * every wake cold: one that did not is counted against it. Below it, the
 * cold share is what was found. Pure.
 */
import { CLIENT_TICK_MS } from "../contract/catalog";
import { parseIdleMetric, idleLabel } from "../contract/idleLadder";
import { stageReps, type StageRecord } from "../contract/runDirContract";
import { groupByRep, repSpread, type RepInterval } from "./repetitions";
import { nearestRank } from "./percentiles";
import type { RawSample } from "./summary";

export interface IdleStep {
  side: string;
  idleMs: number;
  /** `30s`, `2m`: the metric's own words for its length. */
  label: string;
  /** Wakes answered (every answer counts: the cold flag is reported). */
  n: number;
  errors: number;
  /** Of the answered, those from a fresh instance. */
  cold: number;
  /** True where the step is longer than the runtime's own idle sleep: every wake must be cold. */
  coldRequired: boolean;
  /** The idle after which the runtime sleeps an untouched actor, ms, as the run recorded it. */
  idleSleepMs: number | null;
  /** Client round trip, ms, nearest rank over the answered wakes; null with none. */
  p50: number | null;
  p90: number | null;
  /** The p50's 95% interval over repetitions, or why there is none. */
  p50Interval: RepInterval;
  /** The idle each wake actually had, ms, over every repetition (from each actor's last answer to its wake's send). */
  actualIdleMs: { min: number; max: number } | null;
  /** Repetitions whose stage was ended by its deadline: each outcome. */
  ended: string[];
}

/** Every idle ladder step of a run, by side (in `order`) and length. */
export function idleSteps(
  stages: readonly StageRecord[],
  samplesOf: (st: StageRecord) => readonly RawSample[],
  order: readonly string[],
): IdleStep[] {
  const out: IdleStep[] = [];
  for (const st of stages) {
    const step = parseIdleMetric(st.metric);
    if (!step) continue;
    const xs = samplesOf(st);
    const ok = xs.filter((x) => x.ok);
    const client = (x: RawSample) => (typeof x.clientMs === "number" ? x.clientMs : x.ms);
    const sorted = ok.map(client).sort((a, b) => a - b);
    const reps = stageReps(st);
    const notes = reps.map((r) => r.notes ?? {});
    const idle = notes.map((n) => n.idle as { coldRequired?: unknown; idleSleepMs?: unknown } | undefined).find((x) => x !== undefined);
    const actual = notes
      .map((n) => n.idleActualMs as { min?: unknown; max?: unknown } | undefined)
      .filter((a): a is { min: number; max: number } => typeof a?.min === "number" && typeof a?.max === "number");
    out.push({
      side: st.side,
      idleMs: step.idleMs,
      label: idleLabel(step.idleMs),
      n: ok.length,
      errors: xs.length - ok.length,
      cold: ok.filter((x) => x.cold === true).length,
      coldRequired: idle?.coldRequired === true,
      idleSleepMs: typeof idle?.idleSleepMs === "number" ? idle.idleSleepMs : null,
      p50: sorted.length ? nearestRank(sorted, 50) : null,
      p90: sorted.length ? nearestRank(sorted, 90) : null,
      p50Interval: repSpread(groupByRep(ok, client), CLIENT_TICK_MS).ci.p50,
      actualIdleMs: actual.length ? { min: Math.min(...actual.map((a) => a.min)), max: Math.max(...actual.map((a) => a.max)) } : null,
      ended: notes.map((n) => (n.deadline as { outcome?: unknown } | undefined)?.outcome).filter((x): x is string => typeof x === "string"),
    });
  }
  const rank = (side: string) => order.indexOf(side);
  return out.sort((a, b) => rank(a.side) - rank(b.side) || a.idleMs - b.idleMs);
}

/** Wakes of a step that should have proven a fresh instance and did not. */
export const missedColdProofs = (s: IdleStep): number => (s.coldRequired ? s.n - s.cold : 0);
