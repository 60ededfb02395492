/**
 * The charts of a run: a list of named builders, each turning the run model
 * into Vega-Lite specs (chartData.ts computes their data). The report renders
 * them to SVG and PNG; the site draws the same specs in the page.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vega from "vega";
import * as vl from "vega-lite";
import { Resvg } from "@resvg/resvg-js";
import { extent } from "d3-array";
import type { ManifestLike } from "../contract/verify";
import type { RunSamples, RunSummary } from "../stats/summary";
import { CLIENT_TICK_MS, GROUPS } from "../contract/catalog";
import type { SideBook } from "../contract/sideProfile";
import { scaleRows } from "../stats/scale";
import type { RunModel } from "./model";
import {
  barLogDomain,
  capacityChartData,
  payloadChartData,
  cdfData,
  costLoadChartData,
  headlineData,
  histogramData,
  idleChartData,
  logDomain,
  logTicks,
  sameClockData,
  scaleChartData,
} from "./chartData";

async function render(spec: vl.TopLevelSpec, outDir: string, name: string): Promise<void> {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  writeFileSync(join(outDir, `${name}.svg`), svg);
  const png = new Resvg(svg, { background: "white", fitTo: { mode: "zoom", value: 2 }, font: { loadSystemFonts: true } }).render().asPng();
  writeFileSync(join(outDir, `${name}.png`), png);
}

/** Each bar's 95% interval over repetitions as a rule over it, where the run has one. */
const INTERVAL_RULES = {
  transform: [{ filter: "isValid(datum.lo) && isValid(datum.hi)" }],
  mark: { type: "rule" as const, color: "#1b1f24", strokeWidth: 1.5 },
  encoding: { y: { field: "lo", type: "quantitative" as const }, y2: { field: "hi" } },
};

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

/** A legend of line dashes that draws each dash as a stroke (a line mark's legend otherwise shows every dash as one dot). */
const DASH_LEGEND = {
  symbolType: "stroke",
  symbolSize: 400,
  symbolStrokeWidth: 2,
  encode: { symbols: { update: { stroke: { value: "#1b1f24" } } } },
} as const;

/** Percentile lines told apart by their dash. */
const PERCENTILE_DASH = { field: "percentile", type: "nominal", title: null, legend: DASH_LEGEND } as const;

/** A quantitative log-scale position over a fixed domain, its ticks 1, 2 and 5 per decade. */
const logPosition = (field: string, domain: [number, number], title: string) =>
  ({
    field,
    type: "quantitative",
    scale: { type: "log", domain },
    axis: { values: logTicks(...domain) },
    title,
  }) as const;

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

/** One chart of a run: its name (the file name of its SVG and PNG, the id of its place in a page) and its Vega-Lite spec. */
export interface ChartSpec {
  name: string;
  spec: vl.TopLevelSpec;
}

/** What every builder reads: the run, its samples, summary and model, the sides' colours and order, and the run's name. */
interface ChartInput {
  m: ManifestLike;
  samples: RunSamples;
  summary: RunSummary;
  model?: Pick<RunModel, "capacity" | "costLoad" | "idle" | "payload">;
  SIDE_COLOUR: ReturnType<typeof sideColour>;
  SIDE_ORDER: ReturnType<typeof sideOrder>;
}
type ChartBuilder = (c: ChartInput) => ChartSpec[];

/** p50 per group, each side on its own clock, the reference's chart. */
const headlineChart: ChartBuilder = ({ m, samples, summary, SIDE_COLOUR, SIDE_ORDER }) => {
  const head = headlineData(samples, summary);
  if (!head.length) return [];
  return [
    {
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
    },
  ];
};

/** p50 of every row on the client's clock, log scale. */
const sameClockChart: ChartBuilder = ({ m, samples, summary, SIDE_COLOUR, SIDE_ORDER }) => {
  const same = sameClockData(samples, summary);
  if (!same.length) return [];
  const sameDomain = barLogDomain(same.map((d) => d.ms));
  return [
    {
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
          y: logPosition("ms", sameDomain, "client round trip, ms (p50, log scale)"),
        },
        // A bar on a log scale needs a stated foot: the domain's lower end, the power of ten below the fastest row.
        layer: [{ mark: { type: "bar" }, encoding: { y2: { datum: sameDomain[0] }, color: SIDE_COLOUR } }, INTERVAL_RULES, BAR_LABELS],
      },
    },
  ];
};

/** Creates and wakes against the actors existing. */
const scaleChart: ChartBuilder = ({ m, summary, SIDE_COLOUR }) => {
  const scale = scaleChartData(scaleRows(m, summary), summary.sides);
  if (!scale.length) return [];
  return [
    {
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
    },
  ];
};

/** Wakes against idle length. */
const idleChart: ChartBuilder = ({ m, summary, model, SIDE_COLOUR }) => {
  const idle = idleChartData(model?.idle ?? [], summary.sides);
  if (!idle.length) return [];
  return [
    {
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
    },
  ];
};

/** p99 against the arrival rate, with each side's estimated capacity. */
const capacityChart: ChartBuilder = ({ m, summary, model, SIDE_COLOUR }) => {
  const capacity = capacityChartData(model?.capacity ?? [], summary.sides);
  return capacity.length ? [capacitySpec(capacity, model!.capacity[0].objective.p99Ms, SIDE_COLOUR, `${m.stack} run ${m.runId}`)] : [];
};

/** US dollars per million operations against sustained load. */
const costLoadChart: ChartBuilder = ({ m, summary, model, SIDE_COLOUR }) => {
  if (!model?.costLoad) return [];
  return [
    {
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
    },
  ];
};

/** p50 round trip against the value size, per side, writes and reads. */
const payloadChart: ChartBuilder = ({ m, summary, model, SIDE_COLOUR }) => {
  const data = payloadChartData(model?.payload ?? [], summary.sides);
  if (!data.length) return [];
  return [
    {
      name: "payload",
      spec: {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: [
          `Writes and reads by value size: p50, client round trip (driver hrtime), ${m.stack} run ${m.runId}`,
          "one row a call, the value made in the actor; rules: 95% interval of the p50 over repetitions",
        ],
        width: 480,
        height: 280,
        data: { values: data },
        encoding: {
          x: {
            field: "kib",
            type: "quantitative",
            scale: { type: "log", domain: extent(data.map((d) => d.kib)) },
            axis: { values: [...new Set(data.map((d) => d.kib))], labelOverlap: "greedy" },
            title: "value size, KiB (log scale)",
          },
          color: SIDE_COLOUR,
          strokeDash: { field: "op", type: "nominal", title: null, legend: DASH_LEGEND },
          detail: { field: "series", type: "nominal" },
        },
        layer: [
          {
            mark: { type: "line", point: true },
            encoding: {
              y: { field: "ms", type: "quantitative", scale: { type: "log" }, title: "p50 ms (log scale)" },
              tooltip: [{ field: "series" }, { field: "size" }, { field: "ms" }],
            },
          },
          INTERVAL_RULES,
        ],
      } as vl.TopLevelSpec,
    },
  ];
};

/** A latency CDF per stage group (the scaling, capacity, ceiling and idle groups have charts of their own). */
const cdfCharts: ChartBuilder = ({ m, samples, SIDE_COLOUR }) =>
  GROUPS.filter((g) => g !== "scale" && g !== "capacity" && g !== "ceiling" && g !== "idle").flatMap((group) => {
    const data = cdfData(samples, group);
    if (data.length === 0) return [];
    const domain = logDomain(data.map((d) => d.ms));
    return [
      {
        name: `cdf-${group}`,
        spec: {
          $schema: "https://vega.github.io/schema/vega-lite/v5.json",
          title: `${group}: latency distribution (CDF), each side's own clock, ${m.stack} run ${m.runId}`,
          width: 480,
          height: 280,
          data: { values: data },
          mark: { type: "line", interpolate: "step-after" },
          encoding: {
            x: logPosition("ms", domain, "ms (log scale)"),
            y: { field: "fraction", type: "quantitative", title: "fraction of samples", scale: { domain: [0, 1] } },
            color: SIDE_COLOUR,
            strokeDash: { field: "metric", type: "nominal", title: null, legend: DASH_LEGEND },
          },
        },
      },
    ];
  });

/** Cold starts: how the samples spread, tail included. */
const histCharts: ChartBuilder = ({ m, samples, SIDE_COLOUR }) =>
  ["create", "wake"].flatMap((group) => {
    const data = histogramData(samples, group);
    if (data.length === 0) return [];
    const domain = logDomain(data.flatMap((d) => [d.from, d.to]));
    return [
      {
        name: `hist-${group}`,
        spec: {
          $schema: "https://vega.github.io/schema/vega-lite/v5.json",
          title: `${group}: samples per latency bin, each side's own clock, ${m.stack} run ${m.runId}`,
          width: 480,
          height: 70,
          data: { values: data },
          mark: { type: "rect" },
          encoding: {
            x: logPosition("from", domain, "ms (log scale)"),
            x2: { field: "to" },
            y: { field: "count", type: "quantitative", title: "samples", stack: null },
            color: SIDE_COLOUR,
            // One small histogram per series, stacked: bars of different series never overlap.
            row: { field: "series", type: "nominal", title: null, header: { labelAngle: 0, labelAlign: "left" } },
          },
        },
      },
    ];
  });

/** Every chart a run can have, in the order the report and the site show them. */
const CHART_BUILDERS: readonly ChartBuilder[] = [
  headlineChart,
  sameClockChart,
  scaleChart,
  payloadChart,
  idleChart,
  capacityChart,
  costLoadChart,
  cdfCharts,
  histCharts,
];

/**
 * Every chart of a run as a Vega-Lite spec, named; pure. The report renders
 * them to SVG and PNG, the site draws the same specs in the page.
 */
export function chartSpecs(
  m: ManifestLike,
  samples: RunSamples,
  summary: RunSummary,
  model?: Pick<RunModel, "capacity" | "costLoad" | "idle" | "payload">,
): ChartSpec[] {
  const input = { m, samples, summary, model, SIDE_COLOUR: sideColour(summary.sides), SIDE_ORDER: sideOrder(summary.sides) };
  return CHART_BUILDERS.flatMap((build) => build(input));
}

export async function renderCharts(
  m: ManifestLike,
  samples: RunSamples,
  summary: RunSummary,
  outDir: string,
  model?: Pick<RunModel, "capacity" | "costLoad" | "idle" | "payload">,
): Promise<string[]> {
  const specs = chartSpecs(m, samples, summary, model);
  for (const { name, spec } of specs) await render(spec, outDir, name);
  return specs.map((c) => c.name);
}
