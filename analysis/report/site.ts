import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { Marked } from "marked";
import { caveats } from "./notesModel";
import { loadRun, type Loaded } from "./load";
import { renderClaims } from "./sections/claims";
import { renderPayload } from "./sections/payload";
import { renderAlarms } from "./sections/alarms";
import { renderHops } from "./sections/hops";
import { renderCapacity, renderIdle, renderCostLoad, renderScale } from "./sections/groups";
import { renderControlCost, renderHeadline, renderReadme, renderSameClock } from "./sections/headline";
import { renderCost, renderCpu, renderMemory, renderRows } from "./sections/tables";
import { GROUPS, metricEntry } from "../contract/catalog";
import { chartSpecs, type ChartSpec } from "./charts";
import { stageStats } from "./compare";
import { RunDirError, runDirsUnder } from "../contract/runDirContract";
import { escapeHtml } from "./html";
import { otlpOf } from "../contract/hops";
import type { ComparedRun, ManifestLike as ComparedManifest } from "./comparison";

/** A run the site shows: what the index lists about it and where its page is. */
interface SiteRun {
  stack: string;
  runId: string;
  startedAt: string;
  preset: string;
  status: string;
  commit: string;
  machine: string;
  /** What the run measured: its sides, groups and repetitions. */
  covers: string;
  /** Why it was made: preset, groups, an A/B arm and its flags, a planted change, the runtimes' releases. */
  purpose: string;
  /** The page of the A/B comparison this run is an arm of, relative to the site's root. */
  abPage?: string;
  /** Relative to the site's root. */
  page: string;
}

/** A run directory that did not verify: listed with the reason, never shown. */
interface RefusedRun {
  /** Relative to the project (results/<stack>/<runId>). */
  dir: string;
  reason: string;
}

export interface Site {
  runs: SiteRun[];
  refused: RefusedRun[];
  /** Absolute path of the site's index.html. */
  index: string;
}

const STACK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** JSON inside a <script> element: nothing in it can close the element. */
const scriptJson = (x: unknown) => JSON.stringify(x).replace(/</g, "\\u003c");

/**
 * Markdown to HTML with raw HTML shown as text: a run's strings are escaped
 * for Markdown already, and this keeps any HTML that still reached the text
 * (block or inline) from becoming markup in the page.
 */
const safeMarkdown = new Marked({ gfm: true, async: false, renderer: { html: ({ text }) => escapeHtml(text) } });
export const md = (text: string) => safeMarkdown.parse(text) as string;

function page(title: string, root: string, body: string, scripts: string[] = []): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${root}assets/site.css"></head>`,
    `<body><nav><a href="${root}index.html">Runs</a> · <a href="${root}compare.html">Compare runs</a></nav><main>`,
    body,
    "</main>",
    ...scripts.map((s) => `<script src="${root}assets/${s}"></script>`),
    "</body></html>",
    "",
  ].join("\n");
}

function describe(l: Loaded, stack: string, runId: string): SiteRun {
  const m = l.m;
  const mach = m.machine as { cpus?: number; cpuModel?: string; memory?: number };
  const commit = m.code?.commit ? String(m.code.commit).slice(0, 12) + (m.code.dirty ? " (uncommitted changes)" : "") : "not recorded";
  return {
    stack,
    runId,
    startedAt: String(m.startedAt),
    preset: String(m.preset),
    status: String(m.status ?? "unknown"),
    commit,
    machine: `${mach.cpus ?? "?"} x ${mach.cpuModel ?? "?"}, ${mach.memory ? (Number(mach.memory) / 2 ** 30).toFixed(1) : "?"} GiB`,
    covers: coverage(m),
    purpose: purpose(m),
    page: `runs/${stack}/${runId}.html`,
    ...(abOfManifest(m) ? { abPage: `ab/${stack}/${abOfManifest(m)!.id}.html` } : {}),
  };
}

/** The A/B session a run is an arm of, as its manifest records it; null for any other run. */
function abOfManifest(m: Loaded["m"]): { id: string; arm: string; flags: string } | null {
  const ab = (m.settings as { ab?: { id?: unknown; arm?: unknown; flags?: unknown } } | undefined)?.ab;
  if (!ab || typeof ab.id !== "string" || !/^ab-[0-9TZ-]+$/.test(ab.id) || typeof ab.arm !== "string") return null;
  return { id: ab.id, arm: ab.arm, flags: typeof ab.flags === "string" ? ab.flags : "" };
}

/** The driver's own packages: in every run, so not what tells one run's purpose from another's. */
const DRIVER_VERSIONS = new Set(["node", "undici"]);

/** Pure: why a run was made, from its manifest: "preset large; groups idle, scale; A/B arm B of ab-… (--engine-version 2.3.19); planted: …; rivetkit 2.3.19, engine 2.3.19". */
export function purpose(m: Loaded["m"]): string {
  const groups = (m.config as { groups?: unknown }).groups;
  const parts = [`preset ${m.preset}`];
  if (Array.isArray(groups)) parts.push(`groups ${groups.join(", ")}`);
  const ab = abOfManifest(m);
  if (ab) parts.push(`A/B arm ${ab.arm} of ${ab.id}${ab.flags ? ` (${ab.flags})` : " (no flags)"}`);
  for (const st of Object.values(m.settings ?? {})) {
    const planted = (st as { plantedDelay?: unknown } | null)?.plantedDelay;
    if (typeof planted === "string") parts.push(`planted: ${planted}`);
  }
  const releases = Object.entries(m.versions ?? {}).filter(([k]) => !DRIVER_VERSIONS.has(k));
  if (releases.length) parts.push(releases.map(([k, v]) => `${k} ${v}`).join(", "));
  return parts.join("; ");
}

/** Pure: "<side>, <side>; 6 groups (create, wake, ...); 3 repetitions", from the stages a run recorded. */
export function coverage(m: Loaded["m"]): string {
  const stages = Object.values(m.stages);
  const sides = [...new Set(stages.map((st) => st.side))];
  const groups = GROUPS.filter((g) => stages.some((st) => metricEntry(st.metric)?.group === g));
  const reps = Array.isArray(m.repetitions) ? m.repetitions.length : 1;
  if (stages.length === 0) return "no stage recorded";
  return `${sides.join(", ")}; ${groups.length === 1 ? `the ${groups[0]} group only` : `${groups.length} groups (${groups.join(", ")})`}; ${reps} repetition${reps === 1 ? "" : "s"}`;
}

/** A chart as the site draws it: a tooltip on every mark; a line gets invisible points so that hovering anywhere along it names the sample there. */
const withTooltips = (c: ChartSpec): ChartSpec => ({
  name: c.name,
  spec: { ...c.spec, config: { mark: { tooltip: true }, line: { point: { filled: true, opacity: 0, size: 80 } } } } as ChartSpec["spec"],
});

/** Where a page's script draws a chart. */
const chartDiv = (name: string) => `<div class="chart" id="chart-${escapeHtml(name)}" data-chart="${escapeHtml(name)}"></div>`;

/** The scripts of a page with charts: Vega, Vega-Lite, vega-embed, then the page's own (draws each chart into its div). */
const CHART_SCRIPTS = ["vega.min.js", "vega-lite.min.js", "vega-embed.min.js", "run.js"];

/**
 * The page of one verified run: the headline on each side's own clock or on
 * one clock, throughput, and every chart drawn in the page (`charts`: the
 * report's specs of this run).
 */
function runPage(l: Loaded, r: SiteRun, charts: readonly ChartSpec[]): string {
  const specs = charts.map(withTooltips);
  const chart = (name: string) => (specs.some((c) => c.name === name) ? chartDiv(name) : "");
  const others = specs.filter((c) => c.name !== "headline" && c.name !== "same-clock");
  const extra = [
    renderControlCost(l.model.controlCost, l.model.sides),
    renderCost(l.model.cost, l.model.sides),
    renderCostLoad(l.model.costLoad, l.model.sides),
    renderCpu(l.model.cpu, l.model.sides),
    renderRows(l.model.storageRows, l.model.sides),
    renderPayload(l.model.payload, l.model.sides, l.model.claims),
    renderAlarms(l.model.alarms, l.model.sides, l.model.claims),
    renderHops(l.model.hops, l.model.sides),
    renderIdle(l.model.idle, l.model.sides),
    renderCapacity(l.model.capacity, l.model.sides, l.model.claims),
    renderScale(l.model.scale, l.model),
    renderMemory(l.model.memory, l.model.sides),
    renderClaims(l.model.claims, l.model.sides),
  ]
    .filter(Boolean)
    .join("\n\n");
  const own = renderHeadline(l.model.headline, l.model.sides);
  const same = renderSameClock(l.model.sameClock, l.model.sides);
  // A run of the scaling group alone (or of any group with no headline row) shows what it has, not empty tables.
  const headline =
    l.model.headline.rows.length > 0
      ? [
          '<fieldset class="clock"><legend>Clock</legend>',
          '<label><input type="radio" name="clock" value="own"> Each side on its own clock (the reference\'s)</label>',
          '<label><input type="radio" name="clock" value="same" checked> One clock for every side: the driver\'s round trip</label></fieldset>',
          `<section id="clock-own" hidden><h2>Headline and throughput</h2>${md(own)}${chart("headline")}</section>`,
          `<section id="clock-same"><h2>Headline, one clock</h2>${md(same)}${chart("same-clock")}</section>`,
        ].join("\n")
      : `<p id="no-headline">This run covers ${escapeHtml(r.covers)}: none of its stages is a row of the headline, so the page shows its own tables and charts only.</p>`;
  const body = [
    `<h1>Run ${escapeHtml(r.runId)} <small>${escapeHtml(r.stack)}</small></h1>`,
    `<p class="meta">Started ${escapeHtml(r.startedAt)} · preset <code>${escapeHtml(r.preset)}</code> · status <code>${escapeHtml(r.status)}</code> · commit <code>${escapeHtml(r.commit)}</code> · ${escapeHtml(r.machine)}. Every number here is computed from the run's hashed files, which were verified when this page was built.</p>`,
    headline,
    extra ? `<section>${md(extra)}</section>` : "",
    others.length
      ? `<section><h2>${others.some((c) => c.name === "scale") ? (others.length > 1 ? "Distributions and scaling" : "Scaling") : "Distributions"}</h2>${others.map((c) => chart(c.name)).join("\n")}</section>`
      : "",
    `<section><h2>Caveats</h2>${md(
      caveats(l.m)
        .map((c) => `- ${c}`)
        .join("\n"),
    )}</section>`,
    `<script type="application/json" id="charts">${scriptJson(specs)}</script>`,
  ].join("\n");
  return page(`actor-bench ${r.stack} ${r.runId}`, "../../", body, CHART_SCRIPTS);
}

/** What leads the index: the newest complete run with headline rows, made without --capture. */
interface IndexLead {
  run: SiteRun;
  /** The README's headline table of that run: its one-clock rows. */
  headline: string;
  /** The run's same-clock chart (log scale, each bar labelled), drawn under the table. */
  chart?: ChartSpec;
}

/** Charts the index shows from the newest complete run that has each: the curves (wake against idle length, cost as actors accumulate). */
const INDEX_CURVES = ["idle", "scale"] as const;

/** One curve on the index: its chart and the run it comes from. */
interface IndexCurve {
  run: SiteRun;
  chart: ChartSpec;
}

/**
 * The front page: the newest complete run's headline on one clock (the
 * README's table) and its chart, the curves of the newest runs that have
 * them, then every run with what it covers, then the refused.
 */
export function indexPage(
  runs: readonly SiteRun[],
  refused: readonly RefusedRun[],
  lead?: IndexLead,
  curves: readonly IndexCurve[] = [],
): string {
  const newestFirst = [...runs].sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
  const rows = newestFirst.map(
    (r) =>
      `<tr data-run="${escapeHtml(`${r.stack}/${r.runId}`)}"><td>${escapeHtml(r.stack)}</td><td><a href="${escapeHtml(r.page)}">${escapeHtml(r.runId)}</a></td><td>${escapeHtml(r.startedAt)}</td><td class="purpose">${escapeHtml(r.purpose)}${r.abPage ? ` · <a class="ab" href="${escapeHtml(r.abPage)}">the A/B comparison</a>` : ""}</td><td>${escapeHtml(r.machine)}</td><td>${escapeHtml(r.covers)}</td><td><code>${escapeHtml(r.commit)}</code></td><td>${escapeHtml(r.status)}</td></tr>`,
  );
  const body = [
    "<h1>actor-bench results</h1>",
    lead
      ? `<section id="lead"><h2>Newest complete run with a headline: <a href="${escapeHtml(lead.run.page)}">${escapeHtml(lead.run.stack)} ${escapeHtml(lead.run.runId)}</a></h2><p class="meta">${escapeHtml(lead.run.covers)} · preset <code>${escapeHtml(lead.run.preset)}</code> · ${escapeHtml(lead.run.machine)}</p>${md(lead.headline)}${lead.chart ? chartDiv(lead.chart.name) : ""}</section>`
      : "",
    curves.length
      ? `<section id="curves"><h2>Curves</h2>${curves.map((c) => `<p class="meta">From <a href="${escapeHtml(c.run.page)}">${escapeHtml(c.run.stack)} ${escapeHtml(c.run.runId)}</a> (${escapeHtml(c.run.covers)}, preset <code>${escapeHtml(c.run.preset)}</code>, ${escapeHtml(c.run.machine)})</p>${chartDiv(c.chart.name)}`).join("\n")}</section>`
      : "",
    "<h2>Every run</h2>",
    "<p>Every run directory under <code>results/</code>, newest first. A run is shown only when each of its files matches the sha256 its manifest lists; one that does not is listed below as refused, with the reason, and nothing of it is shown.</p>",
    runs.length
      ? `<table id="runs"><thead><tr><th>Stack</th><th>Run</th><th>Started</th><th>Purpose</th><th>Machine</th><th>Covers</th><th>Commit</th><th>Status</th></tr></thead><tbody>\n${rows.join("\n")}\n</tbody></table>`
      : "<p>No verified run yet.</p>",
    `<h2>Refused</h2>${refused.length ? `<ul id="refused">${refused.map((x) => `<li><code>${escapeHtml(x.dir)}</code>: ${escapeHtml(x.reason)}</li>`).join("\n")}</ul>` : '<p id="refused">None.</p>'}`,
    lead?.chart || curves.length
      ? `<script type="application/json" id="charts">${scriptJson([...(lead?.chart ? [lead.chart] : []), ...curves.map((c) => c.chart)].map(withTooltips))}</script>`
      : "",
  ].join("\n");
  return page("actor-bench results", "", body, lead?.chart || curves.length ? CHART_SCRIPTS : []);
}

/** A site run as the comparison page takes it: the comparison's inputs (comparison.ts), with a label. */
type ComparePageRun = SiteRun & ComparedRun;

/** What of a manifest a comparison reads, and nothing else (stages and files stay out of the page). */
const comparedManifest = (m: ComparedManifest): ComparedManifest => ({
  runId: m.runId,
  startedAt: m.startedAt,
  preset: m.preset,
  config: { counts: (m.config as { counts?: unknown } | undefined)?.counts },
  repetitions: m.repetitions,
  calibration: m.calibration,
  machine: m.machine,
  settings: { ab: (m.settings as { ab?: unknown } | undefined)?.ab },
});

/** The comparison view: each verified run's comparison inputs as data; the page compares any two or more with the same model as `npm run compare`. */
export function comparePage(runs: ReadonlyArray<ComparePageRun>): string {
  const data = runs.map((r) => ({
    id: `${r.stack}/${r.runId}`,
    label: `${r.stack} ${r.runId} (${r.preset}, ${r.commit})`,
    m: comparedManifest(r.m),
    stats: r.stats,
    capacity: r.capacity.map((c) => ({ side: c.side, op: c.op, objective: c.objective, held: c.held })),
  }));
  const body = [
    "<h1>Compare runs</h1>",
    "<p>Pick two or more runs: the first is the base (A), and each other run (B) is shown beside it per stage, computed by the same code as <code>npm run compare</code>: each run's geometric mean of its repetitions' values, their ratio (the quantity tested) with its 95% interval, the smallest ratio the row would detect with 80% power, and the verdict with the interval that agrees with it. The two arms of an <code>npm run ab</code> session are paired, repetition by repetition; other runs are compared by Welch's t test on the logs of the repetitions' values, each row on its own variance. Each quantile is one family, under the Benjamini-Hochberg rule at a 5% false discovery rate. A row not called real was not detected, which is no proof it did not change. The page opens on the newest run against its A/B partner, or against the newest earlier run it shares rows with; the warnings name what else differs (presets, sample counts, repetitions, CPU model, cores, calibration).</p>",
    `<form id="pick">${data.map((d) => `<label><input type="checkbox" name="run" value="${escapeHtml(d.id)}"> ${escapeHtml(d.label)}</label>`).join("<br>\n")}</form>`,
    '<div id="comparison"></div>',
    `<script type="application/json" id="stats">${scriptJson(data)}</script>`,
  ].join("\n");
  return page("actor-bench: compare runs", "", body, ["compare.js"]);
}

const CSS = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24}nav{padding:.6em 1.5em;background:#1b1f24}nav a{color:#fff}main{padding:1em 1.5em;max-width:1400px}
table{border-collapse:collapse;margin:.8em 0;font-size:13px}th,td{border:1px solid #c9ced6;padding:.25em .5em;text-align:left;vertical-align:top}th{background:#eef1f5}
.meta{color:#444}fieldset.clock{border:1px solid #c9ced6;margin:1em 0}fieldset.clock label{margin-right:1.5em}.chart{margin:1em 0}h1 small{color:#666;font-weight:normal}
td.no{background:#fde7e7}td.yes{background:#eaf6ea}#pick label{display:inline-block;margin:.15em 0}`;

/** The pages' own scripts: analysis/report/browser/runPage.ts and comparePage.ts, typechecked and bundled by `npm run build`. */
const PAGE_SCRIPTS = ["run.js", "compare.js"] as const;

/** A file of an installed package, for the site's assets (the page needs no network). */
function packageFile(pkg: string, file: string): string {
  // The package's folder: up from its entry point (not every package exports its package.json).
  let dir = dirname(require.resolve(pkg));
  while (!existsSync(join(dir, "package.json")) || !dir.endsWith(pkg)) {
    if (dirname(dir) === dir) throw new Error(`${pkg}: package folder not found; run \`npm ci\``);
    dir = dirname(dir);
  }
  return join(dir, file);
}

/** Writes every page and asset of the site into `into`; the runs it showed and refused. */
function writeSite(into: string, resultsRoot: string, projectDir: string, built: string): { runs: SiteRun[]; refused: RefusedRun[] } {
  mkdirSync(join(into, "assets"), { recursive: true });
  writeFileSync(join(into, SITE_MARKER), "A folder built by `npm run site`: the next build replaces it whole.\n");
  const runs: ComparePageRun[] = [];
  const refused: RefusedRun[] = [];
  let lead: IndexLead | undefined;
  const curves = new Map<string, IndexCurve>();
  for (const { stack, runId, dir } of runDirsUnder(resultsRoot)) {
    const rel = relative(projectDir, dir) || dir;
    if (!STACK_NAME.test(stack)) {
      refused.push({ dir: rel, reason: `"${stack}" is not a stack name (letters, digits, dot, dash, underscore)` });
      continue;
    }
    let l: Loaded;
    try {
      l = loadRun(dir);
    } catch (err) {
      if (!(err instanceof RunDirError)) throw err;
      refused.push({ dir: rel, reason: err.message });
      continue;
    }
    const r = describe(l, stack, runId);
    if (r.abPage && !writeAbPage(into, r.abPage, join(resultsRoot, stack, basename(r.abPage, ".html")))) delete r.abPage;
    mkdirSync(join(into, "runs", stack), { recursive: true });
    const charts = chartSpecs(l.m, l.samples, l.summary, l.model);
    writeFileSync(join(into, r.page), runPage(l, r, charts));
    runs.push({ ...r, m: l.m, stats: stageStats(l.summary), capacity: l.model.capacity });
    const headline = renderReadme(l.model.readme, l.model.sides);
    // A run made with --capture or --otel never leads: its round trips carry the cost of looking (docs/hops.md).
    const captured = l.model.hops.length > 0 || Object.keys(l.m.files).some((f) => otlpOf(f));
    if (r.status === "complete" && !captured && l.model.readme.rows.length > 0 && (!lead || r.startedAt > lead.run.startedAt)) {
      lead = { run: r, headline, chart: charts.find((c) => c.name === "same-clock") };
    }
    for (const name of INDEX_CURVES) {
      const chart = charts.find((c) => c.name === name);
      const known = curves.get(name);
      if (chart && r.status === "complete" && (!known || r.startedAt > known.run.startedAt)) curves.set(name, { run: r, chart });
    }
  }
  writeFileSync(
    join(into, "index.html"),
    indexPage(
      runs,
      refused,
      lead,
      INDEX_CURVES.flatMap((n) => curves.get(n) ?? []),
    ),
  );
  writeFileSync(join(into, "compare.html"), comparePage(runs));
  writeFileSync(join(into, "assets", "site.css"), CSS);
  for (const f of PAGE_SCRIPTS) copyFileSync(join(built, f), join(into, "assets", f));
  copyFileSync(packageFile("vega", "build/vega.min.js"), join(into, "assets", "vega.min.js"));
  copyFileSync(packageFile("vega-lite", "build/vega-lite.min.js"), join(into, "assets", "vega-lite.min.js"));
  copyFileSync(packageFile("vega-embed", "build/vega-embed.min.js"), join(into, "assets", "vega-embed.min.js"));
  return { runs: runs.map(({ stats: _stats, m: _m, capacity: _capacity, ...r }) => r), refused };
}

/** The page of an A/B session's comparison.md, once per session; false when the session folder holds none. */
function writeAbPage(into: string, rel: string, sessionDir: string): boolean {
  const file = join(sessionDir, "comparison.md");
  if (!existsSync(file)) return false;
  if (existsSync(join(into, rel))) return true;
  mkdirSync(dirname(join(into, rel)), { recursive: true });
  const title = `A/B session ${basename(sessionDir)}`;
  writeFileSync(join(into, rel), page(title, "../../", `<h1>${escapeHtml(title)}</h1>${md(readFileSync(file, "utf8"))}`));
  return true;
}

/** The file that marks a folder as one the site built: only such a folder (or an empty or absent one) is ever replaced. */
export const SITE_MARKER = ".actor-bench-site";

/** A site output folder refused, before anything was written or removed. */
export class SiteOutputError extends Error {}

/**
 * Why the site may not be written into `outDir`, or null: it must not be
 * the results folder, inside it or a parent of it, and it must be absent,
 * an empty folder, or a folder a site build made (it holds SITE_MARKER).
 */
export function siteOutputProblem(outDir: string, resultsRoot: string): string | null {
  const out = resolve(outDir);
  const results = resolve(resultsRoot);
  const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
  if (within(results, out)) return `${out} is the results folder or a folder that holds it; give the site a folder of its own (e.g. site/)`;
  if (within(out, results)) return `${out} is inside the results folder ${results}; give the site a folder outside it (e.g. site/)`;
  if (!existsSync(out)) return null;
  if (!lstatSync(out).isDirectory()) return `${out} exists and is not a folder; give the site a new or empty folder`;
  const entries = readdirSync(out);
  if (entries.length > 0 && !entries.includes(SITE_MARKER)) {
    return `${out} holds files the site did not make (no ${SITE_MARKER} in it); give the site a new or empty folder, or remove that folder yourself`;
  }
  return null;
}

/**
 * Builds the static site into outDir (replaced whole, written beside it
 * first, and only where siteOutputProblem allows): an index of every run under resultsRoot, a page per run that
 * verifies, the refused ones listed with their reason, and the comparison
 * view. Vega, Vega-Lite and vega-embed come from node_modules; the
 * comparison code from `npm run build`.
 */
export function buildSite(resultsRoot: string, outDir: string, projectDir = dirname(resultsRoot)): Site {
  // The pages' scripts, built by `npm run build` into dist/site/ (from analysis/report/browser/), whether this runs from dist/analysis/report/ or from the source (tests).
  const up = dirname(dirname(__dirname));
  const built = join(basename(up) === "dist" ? up : join(up, "dist"), "site");
  for (const f of PAGE_SCRIPTS)
    if (!existsSync(join(built, f))) throw new Error(`${join(built, f)} is missing: run \`npm run build\` first`);
  // A mistyped results path would otherwise build an empty site over the real one.
  if (!existsSync(resultsRoot) || !lstatSync(resultsRoot).isDirectory())
    throw new SiteOutputError(`${resultsRoot}: no results folder there (expected results/<stack>/<runId>/); nothing was written`);
  const problem = siteOutputProblem(outDir, resultsRoot);
  if (problem) throw new SiteOutputError(problem);
  mkdirSync(dirname(resolve(outDir)), { recursive: true });
  // Built in a new folder beside the output, so a failed build leaves the old site as it was.
  const tmp = mkdtempSync(join(dirname(resolve(outDir)), `.${basename(outDir)}.build-`));
  let shown: { runs: SiteRun[]; refused: RefusedRun[] };
  try {
    shown = writeSite(tmp, resultsRoot, projectDir, built);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  // The old site (checked above: empty or marked as built here) is moved aside, the new one takes its name, then the old goes.
  const old = existsSync(outDir) ? `${tmp}.old` : null;
  if (old) renameSync(outDir, old);
  renameSync(tmp, outDir);
  if (old) rmSync(old, { recursive: true, force: true });
  return { ...shown, index: join(outDir, "index.html") };
}
