/**
 * The capacity curves of a run, recomputed from the raw samples: each step's
 * percentiles and verdict under the objective its record states, and each
 * repetition's knee (kneeOf), per side and operation. Nothing the driver
 * decided is trusted: a step's verdict is taken again from its samples. Pure.
 */
import { SEARCH_OPS, kneeOf, parseCapacityMetric, stepVerdict, type CapacityObjective, type CapacityOp } from "../contract/capacity";
import { stageReps, type StageRecord } from "../contract/runDirContract";
import { cpuPerOp } from "./cpuPerOp";
import type { RawSample } from "./summary";
import { mean, nearestRank } from "./percentiles";
import { sampleVariance, type KneeInterval } from "./repetitions";
import { tCritical } from "./studentT";

interface CapacityStep {
  rep: number;
  ratePerSecond: number;
  /** Arrivals the step planned (rate x seconds, or fewer where a machine limit capped them) and those it sent. */
  planned: number;
  sent: number;
  failed: number;
  /** Client ms from the intended send time, nearest rank, over the successes; null with none. */
  p50: number | null;
  p99: number | null;
  held: boolean;
  why: string;
  /** CPU ms per successful call: the side's own processes, and the driver's. */
  ownCpuMsPerOp: number | null;
  driverCpuMsPerOp: number | null;
  cappedBy?: string;
}

export interface CapacityCurve {
  side: string;
  op: CapacityOp;
  objective: CapacityObjective;
  /** Each repetition's knee: the highest rate held below the lowest missed (null: none held; the missed null: none missed). */
  reps: Array<{ rep: number; held: number | null; missed: number | null }>;
  /**
   * The range the knee lies in over the repetitions: from the lowest rate a
   * repetition held to the highest it missed. Not a confidence interval: the
   * search's resolution and the repetitions' spread, together. A null end is open.
   */
  range: { low: number | null; high: number | null };
  /** The rate held, as a fresh run would find it: its estimate and 95% interval over the repetitions (kneeInterval). */
  held: KneeInterval;
  steps: CapacityStep[];
}

export type { KneeInterval };

/**
 * The rate a fresh run holds, from each repetition's bracket [held, missed).
 * The estimate is the geometric mean of the brackets' geometric middles. The
 * 95% interval has two parts that add: where the knee lies inside the
 * brackets, which the repetitions share (the search is deterministic, so
 * they tend to land in the same bracket and more of them do not narrow it),
 * taken whole: from the mean of the brackets' low ends to the mean of their
 * high ends; and the spread between repetitions, a t interval on the middles'
 * logarithms (k - 1 degrees of freedom). None where a repetition's knee is
 * past the highest rate tried or below the lowest.
 */
export function kneeInterval(reps: ReadonlyArray<{ held: number | null; missed: number | null }>, confidence = 0.95): KneeInterval {
  if (reps.length === 0) return { estimate: null, lo: null, hi: null, none: "no repetition" };
  if (reps.some((r) => r.held === null || r.missed === null))
    return { estimate: null, lo: null, hi: null, none: "a repetition's knee lies past the highest rate tried or below the lowest" };
  const lows = reps.map((r) => Math.log(r.held!));
  const highs = reps.map((r) => Math.log(r.missed!));
  const mids = lows.map((l, i) => (l + highs[i]) / 2);
  const m = mean(mids);
  if (reps.length < 2) return { estimate: Math.exp(m), lo: null, hi: null, none: "one repetition" };
  const half = tCritical(reps.length - 1, confidence) * Math.sqrt(sampleVariance(mids) / reps.length);
  return { estimate: Math.exp(m), lo: Math.exp(mean(lows) - half), hi: Math.exp(mean(highs) + half) };
}

function stepNotes(
  st: StageRecord,
  notes: Record<string, unknown> | undefined,
): { planned: number; objective: CapacityObjective; cappedBy?: string } {
  const c = notes?.capacity as
    | { planned?: unknown; objective?: { p99Ms?: unknown; maxFailureShare?: unknown }; cappedBy?: unknown }
    | undefined;
  const o = c?.objective;
  const ok =
    c &&
    Number.isInteger(c.planned) &&
    (c.planned as number) > 0 &&
    typeof o?.p99Ms === "number" &&
    o.p99Ms > 0 &&
    typeof o.maxFailureShare === "number" &&
    o.maxFailureShare >= 0 &&
    o.maxFailureShare < 1;
  if (!ok)
    throw new Error(
      `stages/${st.side}.${st.metric}.json: a capacity step's notes.capacity must hold planned (a whole number above 0) and objective {p99Ms, maxFailureShare}; the stage record is not one this project wrote`,
    );
  return {
    planned: c.planned as number,
    objective: { p99Ms: o.p99Ms as number, maxFailureShare: o.maxFailureShare as number },
    ...(typeof c.cappedBy === "string" ? { cappedBy: c.cappedBy } : {}),
  };
}

/** Every capacity curve of a run: one per side and operation that has steps, in the sides' order. */
export function capacityCurves(
  stages: readonly StageRecord[],
  samples: (st: StageRecord) => readonly RawSample[],
  sideOrder: readonly string[],
): CapacityCurve[] {
  const curves: CapacityCurve[] = [];
  for (const side of sideOrder) {
    for (const op of SEARCH_OPS) {
      const own = stages.filter((st) => st.side === side && parseCapacityMetric(st.metric)?.op === op);
      if (own.length === 0) continue;
      const steps: CapacityStep[] = [];
      let objective: CapacityObjective | undefined;
      for (const st of own) {
        const rate = parseCapacityMetric(st.metric)!.ratePerSecond;
        const all = samples(st);
        for (const r of stageReps(st)) {
          const n = stepNotes(st, r.notes);
          if (objective && (objective.p99Ms !== n.objective.p99Ms || objective.maxFailureShare !== n.objective.maxFailureShare)) {
            throw new Error(`${side} capacity ${op}: its steps state different objectives; a curve is read under one`);
          }
          objective = n.objective;
          const mine = all.filter((s) => (s.rep ?? 0) === r.rep);
          const verdict = stepVerdict(n.planned, mine, n.objective, op === "create");
          const good = verdict.succeeded;
          const cpu = cpuPerOp({ ...st, repetitions: [r] });
          steps.push({
            rep: r.rep,
            ratePerSecond: rate,
            planned: n.planned,
            sent: mine.length,
            failed: mine.length - good.length,
            p50: good.length ? nearestRank(good, 50) : null,
            p99: good.length ? nearestRank(good, 99) : null,
            held: verdict.held,
            why: verdict.why,
            ownCpuMsPerOp: cpu?.ownMsPerOp ?? null,
            driverCpuMsPerOp: cpu?.driverMsPerOp ?? null,
            ...(n.cappedBy ? { cappedBy: n.cappedBy } : {}),
          });
        }
      }
      steps.sort((a, b) => a.rep - b.rep || a.ratePerSecond - b.ratePerSecond);
      const repIds = [...new Set(steps.map((s) => s.rep))];
      const reps = repIds.map((rep) => ({
        rep,
        ...kneeOf(steps.filter((s) => s.rep === rep).map((s) => ({ rate: s.ratePerSecond, held: s.held }))),
      }));
      const low = reps.some((r) => r.held === null) ? null : Math.min(...reps.map((r) => r.held!));
      const high = reps.some((r) => r.missed === null) ? null : Math.max(...reps.map((r) => r.missed!));
      curves.push({ side, op, objective: objective!, reps, range: { low, high }, held: kneeInterval(reps), steps });
    }
  }
  return curves;
}
