/**
 * Writes and reads by value size, per side: each stage's client round trip
 * (the one clock every side has) with its 95% interval over repetitions, the
 * actor's own SQL interval where it reports one, and its failures with the
 * first error the runtime gave. Pure: read from the summary and the samples.
 */
import { metricEntry, payloadMetric } from "../contract/catalog";
import { stageKey } from "../contract/runDirContract";
import type { RepInterval } from "./repetitions";
import { msIsClientClock, statsOf, type RunSamples, type RunSummary } from "./summary";

export interface PayloadCell {
  /** Client round trip, driver hrtime, ms: p50 with its 95% interval over repetitions, and p99; null with no success. */
  p50: number | null;
  p50Interval: RepInterval;
  p99: number | null;
  /** The actor's own SQL interval (performance.now() around the statement), p50 ms; null where the side reports none. */
  sqlP50: number | null;
  n: number;
  errors: number;
  /** The first failure's error, as the runtime gave it (shortened); null with none. */
  firstError: string | null;
}

export interface PayloadRow {
  side: string;
  bytes: number;
  write: PayloadCell | null;
  read: PayloadCell | null;
}

const NO_INTERVAL: RepInterval = { lo: null, hi: null, none: "no stage" };

function cell(summary: RunSummary, samples: RunSamples, side: string, metric: string): PayloadCell | null {
  const row = summary.rows.find((r) => r.side === side && r.metric === metric);
  if (!row) return null;
  const stats = statsOf(samples, side, metric);
  const client = msIsClientClock(summary.sides.get(side), metric);
  const spread = client ? row.repetitions : row.clientRepetitions;
  const firstError = samples.get(stageKey(side, metric))?.find((s) => !s.ok)?.error ?? null;
  return {
    p50: stats?.client?.p50 ?? null,
    p50Interval: spread?.ci.p50 ?? NO_INTERVAL,
    p99: stats?.client?.p99 ?? null,
    sqlP50: stats?.interval("sqlMs")?.p50 ?? null,
    n: row.n,
    errors: row.errors,
    firstError: firstError === null ? null : firstError.slice(0, 200),
  };
}

/** One row per side and size the run measured, in the sides' order and by size. */
export function payloadRows(summary: RunSummary, samples: RunSamples): PayloadRow[] {
  const out: PayloadRow[] = [];
  for (const side of summary.sides.order) {
    const sizes = new Set<number>();
    for (const r of summary.rows) {
      const p = r.side === side ? metricEntry(r.metric)?.payload : undefined;
      if (p) sizes.add(p.bytes);
    }
    for (const bytes of [...sizes].sort((a, b) => a - b)) {
      out.push({
        side,
        bytes,
        write: cell(summary, samples, side, payloadMetric("write", bytes)),
        read: cell(summary, samples, side, payloadMetric("read", bytes)),
      });
    }
  }
  return out;
}
