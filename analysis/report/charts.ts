import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vega from "vega";
import * as vl from "vega-lite";
import { Resvg } from "@resvg/resvg-js";
import type { ManifestLike } from "../contract/verify";
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
import { CATALOG, CLIENT_TICK_MS, chartMetric, GROUPS, metricEntry, sideMeasures } from "../contract/catalog";
import type { SideBook } from "../contract/sideProfile";
import { nearestRank } from "../stats/percentiles";
// d3-array for domains, ticks and bins only: its quantiles interpolate (R-7), and percentiles here are nearest rank.
import { bin, extent, ticks } from "d3-array";
import { scaleRows, type ScaleRow } from "../stats/scale";
import type { CapacityCurve } from "../stats/capacity";
import type { IdleStep } from "../stats/idle";
import type { CostLoadModel, RunModel } from "./model";

const MAX_POINTS = 400;

async function render(spec: vl.TopLevelSpec, outDir: string, name: string): Promise<void> {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  writeFileSync(join(outDir, `${name}.svg`), svg);
  const png = new Resvg(svg, { background: "white", fitTo: { mode: "zoom", value: 2 }, font: { loadSystemFonts: true } }).render().asPng();
  writeFileSync(join(outDir, `${name}.png`), png);
}

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

/** Each bar's 95% interval over repetitions as a rule over it, where the run has one. */
const INTERVAL_RULES = {
  transform: [{ filter: "isValid(datum.lo) && isValid(datum.hi)" }],
  mark: { type: "rule" as const, color: "#1b1f24", strokeWidth: 1.5 },
  encoding: { y: { field: "lo", type: "quantitative" as const }, y2: { field: "hi" } },
};

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

/** " (none on the <short>'s whole-ms clock)": the sides whose own clock is too coarse to subtract, where there are any. */
function coarseClocks(book: SideBook): string {
  const coarse = book.order.map((x) => book.get(x)).filter((p) => !p.msIsClientClock && p.msTick > CLIENT_TICK_MS);
  return coarse.length
    ? ` (none on the ${coarse.map((p) => `${p.short}'s`).join(" or ")} whole-ms clock${coarse.length > 1 ? "s" : ""})`
    : "";
}

/** One colour per side in every chart: the side's short name, coloured as its profile says. */
const sideColour = (book: SideBook) =>
  ({
    field: "sideShort",
    type: "nominal",
    title: null,
    scale: { domain: book.order.map((x) => book.get(x).short), range: book.order.map((x) => book.get(x).colour) },
  }) as const;

/** Bars of one group side by side in the registry's order of the sides, as the tables list them. */
const sideOrder = (book: SideBook) => ({ field: "sideShort", type: "nominal", sort: book.order.map((x) => book.get(x).short) }) as const;

/**
 * Each bar's value written above it (p50 ms, three significant digits) and
 * above its interval rule, turned upright: a label is then narrower than its bar, so the labels of bars side
 * by side never overlap, however close their values.
 */
const BAR_LABELS = {
  // Above the bar's interval rule where it has one, so rule and label never cross.
  transform: [{ calculate: "isValid(datum.hi) ? max(datum.ms, datum.hi) : datum.ms", as: "labelAt" }],
  mark: { type: "text" as const, angle: 270, align: "left" as const, baseline: "middle" as const, dx: 3, fontSize: 9 },
  encoding: {
    y: { field: "labelAt", type: "quantitative" as const },
    text: { field: "ms", type: "quantitative" as const, format: ".3~r" },
  },
};

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
        op: c.op,
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
      op: c.op,
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

/** A legend of line dashes that draws each dash as a stroke (a line mark's legend otherwise shows every dash as one dot). */
const DASH_LEGEND = {
  symbolType: "stroke",
  symbolSize: 400,
  symbolStrokeWidth: 2,
  encode: { symbols: { update: { stroke: { value: "#1b1f24" } } } },
} as const;

/** Percentile lines told apart by their dash. */
const PERCENTILE_DASH = { field: "percentile", type: "nominal", title: null, legend: DASH_LEGEND } as const;

/** Log-scale axis values 1, 2, 5 per decade over these rates, SI-formatted and thinned where labels would touch. */
const rateAxis = (rates: readonly number[], title?: string) => ({
  values: logTicks(Math.min(...rates), Math.max(...rates)),
  format: "~s",
  labelOverlap: "greedy",
  labelAngle: -30,
  ...(title ? { title } : {}),
});

/**
 * The capacity chart, one panel per operation: each repetition's steps (filled held, open missed), the objective as a
 * dashed rule, and each side's estimated capacity with its 95% interval as a thick bar along the objective.
 */
function capacitySpec(
  data: ReturnType<typeof capacityChartData>,
  p99Ms: number,
  colour: ReturnType<typeof sideColour>,
  run: string,
): ChartSpec {
  const rates = data.flatMap((d) => [d.rate, ...(d.lo !== null && d.hi !== null ? [d.lo, d.hi] : [])]);
  const x = {
    field: "rate",
    type: "quantitative",
    scale: { type: "log" },
    axis: rateAxis(rates),
    title: "arrivals per second (log scale)",
  };
  const y = { field: "p99", type: "quantitative", scale: { type: "log" }, title: "p99 ms (log scale)" };
  const steps = { filter: "datum.kind === 'step'" };
  return {
    name: "capacity",
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v5.json",
      title: [
        `Capacity: p99 against the arrival rate, client clock from the intended send, ${run}`,
        `dashed rule: the objective, p99 within ${p99Ms} ms; filled points held, open points missed;`,
        "thick bar on the rule: the side's estimated capacity with its 95% interval over repetitions",
      ],
      data: { values: data },
      facet: { column: { field: "op", type: "nominal", title: null, sort: ["warm", "create", "write"] } },
      spec: {
        width: 260,
        height: 240,
        layer: [
          {
            transform: [steps],
            mark: { type: "line", point: false, opacity: 0.6 },
            encoding: { x, y, color: colour, detail: { field: "series", type: "nominal" } },
          },
          {
            transform: [steps],
            mark: { type: "point", size: 40 },
            encoding: { x, y, color: colour, fill: { condition: { test: "datum.verdict === 'held'", ...colour }, value: "white" } },
          },
          { mark: { type: "rule", strokeDash: [4, 4], color: "black" }, encoding: { y: { datum: p99Ms } } },
          {
            transform: [{ filter: "datum.kind === 'knee' && isValid(datum.lo) && isValid(datum.hi)" }],
            mark: { type: "rule", strokeWidth: 5, opacity: 0.7 },
            encoding: { x: { ...x, field: "lo" }, x2: { field: "hi" }, y, color: colour },
          },
          {
            transform: [{ filter: "datum.kind === 'knee'" }],
            mark: { type: "tick", orient: "vertical", thickness: 2, size: 16 },
            encoding: {
              x,
              y,
              color: colour,
              tooltip: [{ field: "series" }, { field: "rate", format: ".3~r" }, { field: "lo" }, { field: "hi" }],
            },
          },
        ],
      },
      resolve: { scale: { x: "independent" } },
    } as vl.TopLevelSpec,
  };
}

/** One chart of a run: its name (the file name of its SVG and PNG, the id of its place in a page) and its Vega-Lite spec. */
export interface ChartSpec {
  name: string;
  spec: vl.TopLevelSpec;
}

/**
 * Every chart of a run as a Vega-Lite spec, named; pure. The report renders
 * them to SVG and PNG, the site draws the same specs in the page.
 */
export function chartSpecs(
  m: ManifestLike,
  samples: RunSamples,
  summary: RunSummary,
  model?: Pick<RunModel, "capacity" | "costLoad" | "idle">,
): ChartSpec[] {
  const SIDE_COLOUR = sideColour(summary.sides);
  const SIDE_ORDER = sideOrder(summary.sides);
  const specs: ChartSpec[] = [];
  const head = headlineData(samples, summary);
  if (head.length) {
    specs.push({
      name: "headline",
      spec: {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: [
          `p50 ms, each side on its own clock, ${m.stack} run ${m.runId}`,
          `black rules: 95% intervals over repetitions${coarseClocks(summary.sides)}`,
        ],
        width: 600,
        height: 260,
        data: { values: head },
        encoding: {
          x: { field: "group", type: "nominal", title: null, sort: null, axis: { labelAngle: 0, labelLimit: 240 } },
          xOffset: SIDE_ORDER,
          // Linear: a create or write minus the baseline can be below zero, which no log scale shows.
          y: { field: "ms", type: "quantitative", title: "ms (p50)" },
        },
        layer: [{ mark: { type: "bar" }, encoding: { color: SIDE_COLOUR } }, INTERVAL_RULES, BAR_LABELS],
      },
    });
  }
  const same = sameClockData(samples, summary);
  if (same.length) {
    const sameDomain = barLogDomain(same.map((d) => d.ms));
    specs.push({
      name: "same-clock",
      spec: {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: [
          `p50 ms on one clock: the client's round trip (driver hrtime), ${m.stack} run ${m.runId}`,
          "black rules: 95% interval over repetitions of a fresh run's p50",
        ],
        width: 900,
        height: 260,
        data: { values: same },
        encoding: {
          x: { field: "metric", type: "nominal", title: null, sort: null, axis: { labelAngle: -30 } },
          xOffset: SIDE_ORDER,
          y: {
            field: "ms",
            type: "quantitative",
            scale: { type: "log", domain: sameDomain },
            axis: { values: logTicks(...sameDomain) },
            title: "client round trip, ms (p50, log scale)",
          },
        },
        // A bar on a log scale needs a stated foot: the domain's lower end, the power of ten below the fastest row.
        layer: [{ mark: { type: "bar" }, encoding: { y2: { datum: sameDomain[0] }, color: SIDE_COLOUR } }, INTERVAL_RULES, BAR_LABELS],
      },
    });
  }
  const scale = scaleChartData(scaleRows(m, summary), summary.sides);
  if (scale.length) {
    specs.push({
      name: "scale",
      spec: {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: [
          `Create and wake latency against the actors that exist, each side's own clock, ${m.stack} run ${m.runId}`,
          "vertical rules: 95% interval over repetitions of a fresh run's figure, where the run has two or more",
        ],
        width: 520,
        height: 300,
        data: { values: scale },
        encoding: {
          x: {
            field: "existing",
            type: "quantitative",
            scale: { type: "symlog" },
            axis: { labelOverlap: "greedy", labelAngle: -30 },
            title: "actors existing (asleep) as the stage began (symlog)",
          },
          color: SIDE_COLOUR,
          strokeDash: PERCENTILE_DASH,
          detail: { field: "series", type: "nominal" },
        },
        layer: [
          {
            mark: { type: "line", point: true },
            encoding: {
              y: { field: "ms", type: "quantitative", scale: { type: "log" }, title: "ms (log scale)" },
              shape: { field: "op", type: "nominal", title: null },
            },
          },
          INTERVAL_RULES,
        ],
      } as vl.TopLevelSpec,
    });
  }
  const idle = idleChartData(model?.idle ?? [], summary.sides);
  if (idle.length) {
    specs.push({
      name: "idle",
      spec: {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: [
          `Wake against idle length: p50 and p90, client round trip (driver hrtime), ${m.stack} run ${m.runId}`,
          "each actor called once, left untouched that long, then woken by one call; rules: 95% interval of the p50 over repetitions",
        ],
        width: 480,
        height: 280,
        data: { values: idle },
        encoding: {
          x: {
            field: "idleS",
            type: "quantitative",
            scale: { type: "log", domain: extent(idle.map((d) => d.idleS)) },
            axis: { values: [...new Set(idle.map((d) => d.idleS))], labelOverlap: "greedy" },
            title: "idle before the wake, s (log scale)",
          },
          color: SIDE_COLOUR,
          strokeDash: PERCENTILE_DASH,
          detail: { field: "series", type: "nominal" },
        },
        layer: [
          {
            mark: { type: "line", point: true },
            encoding: {
              y: { field: "ms", type: "quantitative", scale: { type: "log" }, title: "wake ms (log scale)" },
              tooltip: [{ field: "series" }, { field: "idle" }, { field: "ms" }, { field: "cold" }],
            },
          },
          INTERVAL_RULES,
        ],
      } as vl.TopLevelSpec,
    });
  }
  const capacity = capacityChartData(model?.capacity ?? [], summary.sides);
  if (capacity.length) specs.push(capacitySpec(capacity, model!.capacity[0].objective.p99Ms, SIDE_COLOUR, `${m.stack} run ${m.runId}`));
  if (model?.costLoad) {
    specs.push({
      name: "cost-load",
      spec: {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: [
          `US dollars per million operations against sustained load, ${m.stack} run ${m.runId}`,
          `a machine priced by CPU (this run's ${model.costLoad.vcpus} vCPUs) against prices per operation`,
        ],
        data: { values: costLoadChartData(model.costLoad, summary.sides) },
        facet: { column: { field: "op", type: "nominal", title: null, sort: ["warm", "create", "write"] } },
        spec: {
          width: 260,
          height: 240,
          mark: { type: "line" },
          encoding: {
            x: { field: "load", type: "quantitative", scale: { type: "log" }, title: "operations per second, sustained (log scale)" },
            y: { field: "usd", type: "quantitative", scale: { type: "log" }, title: "USD per million operations (log scale)" },
            color: SIDE_COLOUR,
            strokeDash: { field: "series", type: "nominal", title: null, legend: { ...DASH_LEGEND, labelLimit: 320 } },
          },
        },
        resolve: { scale: { x: "independent" } },
      } as vl.TopLevelSpec,
    });
  }
  for (const group of GROUPS) {
    if (group === "scale" || group === "capacity" || group === "idle") continue;
    const data = cdfData(samples, group);
    if (data.length === 0) continue;
    const domain = logDomain(data.map((d) => d.ms));
    specs.push({
      name: `cdf-${group}`,
      spec: {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: `${group}: latency distribution (CDF), each side's own clock, ${m.stack} run ${m.runId}`,
        width: 480,
        height: 280,
        data: { values: data },
        mark: { type: "line", interpolate: "step-after" },
        encoding: {
          x: {
            field: "ms",
            type: "quantitative",
            scale: { type: "log", domain },
            axis: { values: logTicks(...domain) },
            title: "ms (log scale)",
          },
          y: { field: "fraction", type: "quantitative", title: "fraction of samples", scale: { domain: [0, 1] } },
          color: SIDE_COLOUR,
          strokeDash: { field: "metric", type: "nominal", title: null, legend: DASH_LEGEND },
        },
      },
    });
  }
  // Cold starts: how the samples spread, tail included.
  for (const group of ["create", "wake"]) {
    const data = histogramData(samples, group);
    if (data.length === 0) continue;
    const domain = logDomain(data.flatMap((d) => [d.from, d.to]));
    specs.push({
      name: `hist-${group}`,
      spec: {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: `${group}: samples per latency bin, each side's own clock, ${m.stack} run ${m.runId}`,
        width: 480,
        height: 70,
        data: { values: data },
        mark: { type: "rect" },
        encoding: {
          x: {
            field: "from",
            type: "quantitative",
            scale: { type: "log", domain },
            axis: { values: logTicks(...domain) },
            title: "ms (log scale)",
          },
          x2: { field: "to" },
          y: { field: "count", type: "quantitative", title: "samples", stack: null },
          color: SIDE_COLOUR,
          // One small histogram per series, stacked: bars of different series never overlap.
          row: { field: "series", type: "nominal", title: null, header: { labelAngle: 0, labelAlign: "left" } },
        },
      },
    });
  }
  return specs;
}

/** Renders every chart of the run into outDir as <name>.svg and <name>.png; returns the names. */
export async function renderCharts(
  m: ManifestLike,
  samples: RunSamples,
  summary: RunSummary,
  outDir: string,
  model?: Pick<RunModel, "capacity" | "costLoad" | "idle">,
): Promise<string[]> {
  const specs = chartSpecs(m, samples, summary, model);
  for (const { name, spec } of specs) await render(spec, outDir, name);
  return specs.map((c) => c.name);
}
