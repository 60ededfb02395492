/**
 * The scaling group's figures: for each side and level, what the creates,
 * wakes and burst measured and how many actors of the run existed as each
 * stage began (from the stage's own record). Pure: the report's table and
 * chart are both drawn from these rows.
 */
import { metricEntry } from "../contract/catalog";
import { stageReps, stageKey, type ManifestLike } from "../contract/runDirContract";
import type { Interval } from "./repetitions";
import type { RunSummary } from "./summary";

export interface ScaleRow {
  side: string;
  level: number;
  op: "create" | "wake" | "burst";
  /** Actors of this run on this side when the stage began (its first repetition's notes.startState.atStage); null when not recorded. */
  existing: number | null;
  n: number;
  errors: number;
  p50: number;
  p99: number;
  /** The 95% intervals over repetitions of a fresh run's p50 and p99 (null bounds where the run has none). */
  ci: { p50: Interval; p99: Interval };
  /** Completions per second as the driver measured them (burst only; the same method on every side). */
  perSecond: number | null;
  /** Where a repetition's stage was ended by its deadline, or (on the wakes) its curve ended at this level: each such outcome. */
  ended?: string[];
}

const OPS = ["wake", "create", "burst"] as const;

export function scaleRows(m: ManifestLike, s: RunSummary): ScaleRow[] {
  const out: ScaleRow[] = [];
  for (const r of s.rows) {
    const scale = metricEntry(r.metric)?.scale;
    if (!scale) continue;
    // The first repetition's count: every repetition runs the same plan on a fresh runtime, so each makes as many actors.
    const st = m.stages[stageKey(r.side, r.metric)];
    const at = ((st ? stageReps(st)[0]?.notes : undefined)?.startState as { atStage?: { existing?: unknown } } | undefined)?.atStage
      ?.existing;
    const t = s.throughput.find((x) => x.side === r.side && x.metric === r.metric && x.method === "measured");
    const reps = st ? stageReps(st) : [];
    const deadlines = reps
      .map((p) => (p.notes?.deadline as { outcome?: unknown } | undefined)?.outcome)
      .filter((x): x is string => typeof x === "string");
    // The level where a side's curve ended (a preparation or a stage could not keep up), said once, on its wakes.
    const curveEnds =
      scale.op === "wake"
        ? reps
            .map((p) => p.notes?.curveEnd)
            .filter((x): x is string => typeof x === "string")
            .map((x) => `the curve ends here (${x})`)
        : [];
    const ended = [...new Set([...deadlines, ...curveEnds])];
    out.push({
      side: r.side,
      level: scale.level,
      op: scale.op,
      existing: typeof at === "number" && Number.isFinite(at) ? at : null,
      n: r.n,
      errors: r.errors,
      p50: r.p50,
      p99: r.p99,
      ci: {
        p50: { lo: r.repetitions.ci.p50.lo, hi: r.repetitions.ci.p50.hi },
        p99: { lo: r.repetitions.ci.p99.lo, hi: r.repetitions.ci.p99.hi },
      },
      perSecond: t ? t.perSecond : null,
      ...(ended.length ? { ended } : {}),
    });
  }
  const rank = (side: string) => s.sides.order.indexOf(side);
  return out.sort((a, b) => rank(a.side) - rank(b.side) || a.level - b.level || OPS.indexOf(a.op) - OPS.indexOf(b.op));
}
