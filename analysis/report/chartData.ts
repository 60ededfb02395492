/** The data of every chart: pure functions from a run's samples, summary and model to the rows a chart draws (charts.ts builds the specs). */
import {
  clientPercentiles,
  msIsClientClock,
  msTick,
  profileIn,
  stageStatistics,
  statsOf,
  type RunSamples,
  type RunSummary,
} from "../stats/summary";
import { linearInterval, type Interval } from "../stats/repetitions";
import { CATALOG, CLIENT_TICK_MS, chartMetric, metricEntry, sideMeasures } from "../contract/catalog";
import type { SideBook } from "../contract/sideProfile";
import { nearestRank } from "../stats/percentiles";
// d3-array for domains, ticks and bins only: its quantiles interpolate, and percentiles here are nearest rank.
import { bin, extent, ticks } from "d3-array";
import type { ScaleRow } from "../stats/scale";
import type { CapacityCurve } from "../stats/capacity";
import { OP_WORDS } from "../contract/capacity";
import type { PayloadRow } from "../stats/payload";
import { bytesWords } from "../contract/catalog";
import type { IdleStep } from "../stats/idle";
import type { CostLoadModel } from "./model";

const MAX_POINTS = 400;

const sortedMs = (samples: RunSamples, side: string, metric: string): readonly number[] => statsOf(samples, side, metric)?.sortedMs ?? [];

/**
 * Data of the headline chart, each side on its own clock (the reference's):
 * the request group is the side's median warm round trip; the create and
 * write groups subtract that median from every sample first.
 */
export function headlineData(
  samples: RunSamples,
  summary: RunSummary,
): Array<{ group: string; side: string; sideShort: string; ms: number; n: number } & Interval> {
  const out: Array<{ group: string; side: string; sideShort: string; ms: number; n: number } & Interval> = [];
  const rowOf = (side: string, metric: string) => summary.rows.find((r) => r.side === side && r.metric === metric);
  for (const side of summary.sides.order) {
    const p = summary.sides.get(side);
    const request = chartMetric(p, "request");
    const base = request ? sortedMs(samples, side, request) : [];
    if (!request || base.length === 0) continue;
    const baseline = nearestRank(base, 50);
    const name = `${p.name} (${p.clockShort})`;
    const sideShort = p.short;
    const baseRow = rowOf(side, request);
    const baseReps = baseRow?.repetitions.perRep.p50 ?? [];
    out.push({
      group: "Warm request (the baseline)",
      side: name,
      sideShort,
      ms: baseline,
      n: base.length,
      ...(baseRow ? bounds(baseRow.repetitions.ci.p50) : NO_INTERVAL),
    });
    for (const [group, role] of [
      ["Create minus baseline", "create"],
      ["Write minus baseline", "write"],
    ] as const) {
      const metric = chartMetric(p, role);
      if (!metric) continue;
      const xs = sortedMs(samples, side, metric).map((x) => x - baseline);
      const reps = rowOf(side, metric)?.repetitions.perRep.p50 ?? [];
      const tick = msTick(p, metric);
      // Repetition by repetition, the stage's p50 minus that repetition's baseline; none on a clock too coarse to subtract.
      const diff =
        reps.length === baseReps.length && tick <= CLIENT_TICK_MS
          ? linearInterval(
              reps.map((x, r) => x - baseReps[r]),
              tick,
            )
          : NO_INTERVAL;
      if (xs.length) out.push({ group, side: name, sideShort, ms: nearestRank(xs, 50), n: xs.length, ...bounds(diff) });
    }
  }
  return out;
}

const NO_INTERVAL: Interval = { lo: null, hi: null };
const bounds = (c: Interval): Interval => ({ lo: c.lo, hi: c.hi });
/** An interval on a log axis: a lower end at or below zero is drawn at the axis's floor, 0.01 ms. */
const logBounds = (c: Interval): Interval => ({ lo: c.lo === null ? null : Math.max(c.lo, 0.01), hi: c.hi });

/**
 * Data of the same-clock chart: the client's p50 round trip on every side,
 * for every latency row, with the 95% interval over repetitions of a fresh
 * run's p50 on that clock (null where the run has none).
 */
export function sameClockData(
  samples: RunSamples,
  summary: RunSummary,
): Array<{ metric: string; side: string; sideShort: string; ms: number; n: number } & Interval> {
  const out: Array<{ metric: string; side: string; sideShort: string; ms: number; n: number } & Interval> = [];
  for (const e of CATALOG.filter((x) => x.label && !x.throughput)) {
    for (const side of summary.sides.order.filter((x) => sideMeasures(summary.sides.get(x), e.id))) {
      const prof = summary.sides.get(side);
      const p = clientPercentiles(samples, side, e.id);
      if (!p || out.some((o) => o.metric === e.id && o.side === prof.name)) continue;
      const row = summary.rows.find((r) => r.side === side && r.metric === e.id);
      const spread = row?.clientRepetitions ?? (row && msIsClientClock(prof, e.id) ? row.repetitions : undefined);
      out.push({
        metric: e.id,
        side: prof.name,
        sideShort: prof.short,
        ms: Math.max(p.p50, 0.01),
        n: p.n,
        ...(spread ? bounds(spread.ci.p50) : NO_INTERVAL),
      });
    }
  }
  return out;
}

/** Empirical CDF points of each series, thinned to at most MAX_POINTS evenly spaced ranks. */
export function cdfData(
  samples: RunSamples,
  group: string,
): Array<{ series: string; sideShort: string; metric: string; ms: number; fraction: number }> {
  const out: Array<{ series: string; sideShort: string; metric: string; ms: number; fraction: number }> = [];
  for (const [key, s] of samples) {
    const [side, ...rest] = key.split(".");
    const metric = rest.join(".");
    if (metricEntry(metric)?.group !== group || metricEntry(metric)?.throughput?.mode === "open") continue;
    const xs = stageStatistics(profileIn(samples, side), metric, s).sortedMs;
    const step = Math.max(1, Math.ceil(xs.length / MAX_POINTS));
    const sideShort = profileIn(samples, side).short;
    const series = `${sideShort} ${metric}`;
    for (let i = 0; i < xs.length; i += step)
      out.push({ series, sideShort, metric, ms: Math.max(xs[i], 0.01), fraction: (i + 1) / xs.length });
    if (xs.length && (xs.length - 1) % step !== 0)
      out.push({ series, sideShort, metric, ms: Math.max(xs[xs.length - 1], 0.01), fraction: 1 });
  }
  return out;
}

/** The y domain of a log-scale bar chart: from the power of ten below the smallest value to twice the largest, so every bar has height. */
export function barLogDomain(values: readonly number[]): [number, number] {
  const [lo, hi] = logDomain(values);
  return [10 ** Math.floor(Math.log10(lo) - 1e-9), hi * 2];
}

/** Log-scale tick values from lo to hi: 1, 2 and 5 times each power of ten (d3's ticks per decade). */
export function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo && v <= hi) out.push(v);
    }
  }
  return out.length >= 2 ? out : ticks(lo, hi, 5);
}

/** The x domain of a log-scale chart over these values: d3's extent, floored at 0.01 ms. */
export function logDomain(values: readonly number[]): [number, number] {
  const [lo, hi] = extent(values, (v) => Math.max(v, 0.01));
  return lo === undefined || hi === undefined ? [0.01, 1] : lo === hi ? [lo / 2, hi * 2] : [lo, hi];
}

/**
 * Histogram data of a cold-start group: each series' counted samples binned
 * by d3's bin on log10(ms) (so a 5 ms and a 5 s tail both show), as
 * {series, from, to, count} in ms.
 */
export function histogramData(
  samples: RunSamples,
  group: string,
): Array<{ series: string; sideShort: string; from: number; to: number; count: number }> {
  const all: Array<{ series: string; ms: number }> = [];
  for (const [key, s] of samples) {
    const [side, ...rest] = key.split(".");
    const metric = rest.join(".");
    if (metricEntry(metric)?.group !== group || metricEntry(metric)?.throughput) continue;
    for (const ms of stageStatistics(profileIn(samples, side), metric, s).sortedMs)
      all.push({ series: `${profileIn(samples, side).short} ${metric}`, ms: Math.max(ms, 0.01) });
  }
  if (all.length === 0) return [];
  const [lo, hi] = logDomain(all.map((x) => x.ms));
  const thresholds = ticks(Math.log10(lo), Math.log10(hi), 30);
  const binner = bin<{ ms: number }, number>()
    .value((x) => Math.log10(x.ms))
    .domain([Math.log10(lo), Math.log10(hi)])
    .thresholds(thresholds);
  const out: Array<{ series: string; sideShort: string; from: number; to: number; count: number }> = [];
  for (const series of [...new Set(all.map((x) => x.series))]) {
    for (const b of binner(all.filter((x) => x.series === series))) {
      if (b.length > 0) out.push({ series, sideShort: series.split(" ")[0], from: 10 ** b.x0!, to: 10 ** b.x1!, count: b.length });
    }
  }
  return out;
}

/** The scaling chart's points: p50 and p99 of each side's creates and wakes against the actors existing, each with its interval over repetitions. */
export function scaleChartData(
  rows: readonly ScaleRow[],
  book: SideBook,
): Array<{ series: string; sideShort: string; op: string; percentile: string; existing: number; ms: number } & Interval> {
  return rows.flatMap((r) => {
    if (r.op === "burst" || r.existing === null || r.n === 0) return [];
    const sideShort = book.get(r.side).short;
    const series = `${sideShort} ${r.op}`;
    return (["p50", "p99"] as const).map((q) => ({
      series,
      sideShort,
      op: r.op,
      percentile: q,
      existing: r.existing!,
      ms: Math.max(r[q], 0.01),
      ...logBounds(r.ci[q]),
    }));
  });
}

/**
 * The capacity chart's points: each step's p99 against its rate, per side, operation and repetition (steps with no
 * success have no p99 and no point); and per side and operation one "knee" row: the estimate with its 95% interval,
 * drawn at the objective's height.
 */
export function capacityChartData(
  curves: readonly CapacityCurve[],
  book: SideBook,
): Array<{ kind: "step" | "knee"; sideShort: string; op: string; series: string; rate: number; p99: number; verdict: string } & Interval> {
  return curves.flatMap((c) => {
    const sideShort = book.get(c.side).short;
    const steps = c.steps
      .filter((st) => st.p99 !== null)
      .map((st) => ({
        kind: "step" as const,
        sideShort,
        op: OP_WORDS[c.op],
        series: `${sideShort} repetition ${st.rep + 1}`,
        rate: st.ratePerSecond,
        p99: Math.max(st.p99!, 0.01),
        verdict: st.held ? "held" : "missed",
        ...NO_INTERVAL,
      }));
    if (c.held.estimate === null) return steps;
    const knee = {
      kind: "knee" as const,
      sideShort,
      op: OP_WORDS[c.op],
      series: `${sideShort} capacity`,
      rate: c.held.estimate,
      p99: c.objective.p99Ms,
      verdict: "estimate",
      ...bounds(c.held),
    };
    return [...steps, knee];
  });
}

/** The idle chart's points: each step's p50 (with its interval over repetitions) and p90, client round trip, against its idle length, per side (steps with no answer have no point). */
export function idleChartData(
  steps: readonly IdleStep[],
  book: SideBook,
): Array<{ sideShort: string; series: string; percentile: string; idleS: number; idle: string; ms: number; cold: string } & Interval> {
  return steps.flatMap((s) => {
    const sideShort = book.get(s.side).short;
    const cold = `${s.cold} of ${s.n} cold`;
    return (["p50", "p90"] as const).flatMap((q) =>
      s[q] === null
        ? []
        : [
            {
              sideShort,
              series: `${sideShort} ${q}`,
              percentile: q,
              idleS: s.idleMs / 1000,
              idle: s.label,
              ms: Math.max(s[q]!, 0.01),
              cold,
              ...(q === "p50" ? logBounds(s.p50Interval) : NO_INTERVAL),
            },
          ],
    );
  });
}

/** The cost-against-load chart's lines: each CPU-priced side's machine curve, each usage-priced side flat across the same loads. */
export function costLoadChartData(
  model: CostLoadModel,
  book: SideBook,
): Array<{ sideShort: string; op: string; series: string; load: number; usd: number }> {
  return model.ops.flatMap((o) => {
    const loads = o.machine.flatMap((m) => m.points.map((p) => p.load));
    const [lo, hi] = [Math.min(...loads), Math.max(...loads)];
    return [
      ...o.machine.flatMap((m) =>
        m.points.map((p) => ({
          sideShort: book.get(m.side).short,
          op: o.op,
          series: `${book.get(m.side).short}: ${m.pricing}`,
          load: p.load,
          usd: p.usdPerMillion,
        })),
      ),
      ...o.flat.flatMap((f) =>
        [lo, hi].map((load) => ({
          sideShort: book.get(f.side).short,
          op: o.op,
          series: `${book.get(f.side).short}: ${f.pricing}`,
          load,
          usd: f.usdPerMillion,
        })),
      ),
    ];
  });
}

/** The payload chart's points: each side's p50 client round trip (with its 95% interval over repetitions) against the value size, writes and reads. */
export function payloadChartData(
  rows: readonly PayloadRow[],
  book: SideBook,
): Array<{ sideShort: string; op: string; series: string; kib: number; size: string; ms: number } & Interval> {
  return rows.flatMap((r) => {
    const sideShort = book.get(r.side).short;
    return (["write", "read"] as const).flatMap((op) => {
      const c = r[op];
      if (!c || c.p50 === null) return [];
      return [
        {
          sideShort,
          op,
          series: `${sideShort} ${op}`,
          kib: r.bytes / 1024,
          size: bytesWords(r.bytes),
          ms: Math.max(c.p50, 0.01),
          ...logBounds(c.p50Interval),
        },
      ];
    });
  });
}
