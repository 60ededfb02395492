/**
 * Alarm lateness per side, delay and case (the actor stayed awake, or went to
 * sleep and the alarm had to wake it): percentiles of the samples' lateMs (when
 * the handler began less when it was due, on the actor's own Date.now(), whole
 * ms) with the p50's 95% interval over repetitions, the failures (alarms not
 * fired within the bound) with the first message, and the alarms that did not
 * prove a fresh instance where one was required. Pure.
 */
import { metricEntry } from "../contract/catalog";
import { stageKey } from "../contract/runDirContract";
import { nearestRank } from "./percentiles";
import { groupByRep, repSpread, type RepInterval } from "./repetitions";
import { statsOf, type RunSamples, type RunSummary } from "./summary";

/** The actor's clock the lateness is read on steps in whole milliseconds. */
export const ALARM_CLOCK_TICK_MS = 1;

export interface AlarmRow {
  side: string;
  delayMs: number;
  asleep: boolean;
  /** Alarms counted: fired, and where the actor slept, on a fresh instance. */
  n: number;
  /** Alarms that had not fired within the bound, or whose record could not be read. */
  failed: number;
  /** Fired alarms of the asleep case that ran on an instance already live (not counted in n). */
  notCold: number;
  firstError: string | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p50Interval: RepInterval;
}

/** One row per side, delay and case the run measured, in the sides' and the catalog's order. */
export function alarmRows(summary: RunSummary, samples: RunSamples): AlarmRow[] {
  const out: AlarmRow[] = [];
  for (const side of summary.sides.order) {
    for (const row of summary.rows.filter((r) => r.side === side)) {
      const a = metricEntry(row.metric)?.alarm;
      const stats = a ? statsOf(samples, side, row.metric) : null;
      if (!a || !stats) continue;
      const late = stats.counted.filter((s) => typeof s.lateMs === "number");
      const sorted = late.map((s) => s.lateMs!).sort((x, y) => x - y);
      const q = (p: number) => (sorted.length ? nearestRank(sorted, p) : null);
      out.push({
        side,
        delayMs: a.delayMs,
        asleep: a.asleep,
        n: sorted.length,
        failed: row.errors,
        notCold: a.asleep ? row.notCold : 0,
        firstError:
          samples
            .get(stageKey(side, row.metric))
            ?.find((s) => !s.ok)
            ?.error?.slice(0, 200) ?? null,
        p50: q(50),
        p90: q(90),
        p99: q(99),
        p50Interval: repSpread(
          groupByRep(late, (s) => s.lateMs!),
          ALARM_CLOCK_TICK_MS,
        ).ci.p50,
      });
    }
  }
  return out;
}
