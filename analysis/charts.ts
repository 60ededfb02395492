import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vega from "vega";
import * as vl from "vega-lite";
import { Resvg } from "@resvg/resvg-js";
import type { ManifestLike } from "./verify";
import { countedSamples, type RawSample, type RunSummary } from "./summary";
import { isColdMetric } from "./metrics";
import { nearestRank } from "./percentiles";

const SIDE_NAME: Record<string, string> = { rivet: "Rivet Actor", cloudflare: "Durable Object" };
const SIDE_SHORT: Record<string, string> = { rivet: "Rivet", cloudflare: "DO" };
const GROUPS = ["create", "wake", "warm", "sqlite", "burst", "seqwrite"] as const;
const MAX_POINTS = 400;

async function render(spec: vl.TopLevelSpec, outDir: string, name: string): Promise<void> {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  writeFileSync(join(outDir, `${name}.svg`), svg);
  const png = new Resvg(svg, { background: "white", fitTo: { mode: "zoom", value: 2 }, font: { loadSystemFonts: true } }).render().asPng();
  writeFileSync(join(outDir, `${name}.png`), png);
}

const sortedMs = (samples: RawSample[] | undefined, metric: string) =>
  samples ? countedSamples(samples, isColdMetric(metric)).map((s) => s.ms).sort((a, b) => a - b) : [];

/** Data of the headline chart: request = median warm round trip; create and write with that median subtracted from every sample. */
export function headlineData(samples: Map<string, RawSample[]>): Array<{ group: string; side: string; ms: number; n: number }> {
  const out: Array<{ group: string; side: string; ms: number; n: number }> = [];
  for (const side of ["rivet", "cloudflare"]) {
    const base = sortedMs(samples.get(`${side}.warm.ping`), "warm.ping");
    if (base.length === 0) continue;
    const baseline = nearestRank(base, 50);
    out.push({ group: "Request from your backend", side: SIDE_NAME[side], ms: baseline, n: base.length });
    const createMetric = side === "cloudflare" ? "create.unique" : "create.ping";
    for (const [group, metric] of [["Create (minus baseline)", createMetric], ["Write (minus baseline)", "sqlite.write"]] as const) {
      const xs = sortedMs(samples.get(`${side}.${metric}`), metric).map((x) => x - baseline);
      if (xs.length) out.push({ group, side: SIDE_NAME[side], ms: nearestRank(xs, 50), n: xs.length });
    }
  }
  return out;
}

/** Empirical CDF points of each series, thinned to at most MAX_POINTS evenly spaced ranks. */
export function cdfData(samples: Map<string, RawSample[]>, group: string): Array<{ series: string; ms: number; fraction: number }> {
  const out: Array<{ series: string; ms: number; fraction: number }> = [];
  for (const [key, s] of samples) {
    const [side, ...rest] = key.split(".");
    const metric = rest.join(".");
    if (metric.split(".")[0] !== group) continue;
    const xs = sortedMs(s, metric);
    const step = Math.max(1, Math.ceil(xs.length / MAX_POINTS));
    for (let i = 0; i < xs.length; i += step) out.push({ series: `${SIDE_SHORT[side]} ${metric}`, ms: Math.max(xs[i], 0.01), fraction: (i + 1) / xs.length });
    if (xs.length && (xs.length - 1) % step !== 0) out.push({ series: `${SIDE_SHORT[side]} ${metric}`, ms: Math.max(xs[xs.length - 1], 0.01), fraction: 1 });
  }
  return out;
}

/** Writes charts/*.svg and *.png; returns the chart names, in order. */
export async function renderCharts(m: ManifestLike, samples: Map<string, RawSample[]>, _summary: RunSummary, outDir: string): Promise<string[]> {
  const names: string[] = [];
  const head = headlineData(samples);
  if (head.length) {
    await render(
      {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: `p50 ms, ${m.stack} run ${m.runId}`,
        width: 600,
        height: 260,
        data: { values: head },
        mark: { type: "bar" },
        encoding: {
          x: { field: "group", type: "nominal", title: null, sort: null, axis: { labelAngle: 0, labelLimit: 240 } },
          xOffset: { field: "side", type: "nominal" },
          y: { field: "ms", type: "quantitative", title: "ms (p50)" },
          color: { field: "side", type: "nominal", title: null },
        },
      },
      outDir,
      "headline",
    );
    names.push("headline");
  }
  for (const group of GROUPS) {
    const data = cdfData(samples, group);
    if (data.length === 0) continue;
    await render(
      {
        $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        title: `${group}: latency distribution (CDF), ${m.stack} run ${m.runId}`,
        width: 480,
        height: 280,
        data: { values: data },
        mark: { type: "line", interpolate: "step-after" },
        encoding: {
          x: { field: "ms", type: "quantitative", scale: { type: "log" }, title: "ms (log scale)" },
          y: { field: "fraction", type: "quantitative", title: "fraction of samples", scale: { domain: [0, 1] } },
          color: { field: "series", type: "nominal", title: null, legend: { labelLimit: 300 } },
        },
      },
      outDir,
      `cdf-${group}`,
    );
    names.push(`cdf-${group}`);
  }
  return names;
}
