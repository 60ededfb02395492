import { describeMachineLimit, FLAG_FAILURE_SHARE, type MachineLimitNote } from "../contract/machineLimits";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { verifyRunDir, type ManifestLike } from "../contract/verify";
import {
  readListed,
  stageReps,
  stageSamples,
  unendedRepetition,
  stageKey,
  type RepStage,
  type StageRecord,
} from "../contract/runDirContract";
import { orderedStages, runSamples, statsOf, summarizeRun, type RunSamples, type RunSummary, type SummaryRow } from "../stats/summary";
import { chartMetric, CLIENT_TICK_MS, metricEntry, SCALE_BURST_CONCURRENCY } from "../contract/catalog";
import {
  capacityNote,
  CAPACITY_STEPS_NOTE,
  idleNote,
  chartsNote,
  costLoadNote,
  costNote,
  CPU_NOTE,
  DIFFERENCES_NOTE,
  MEMORY_NOTE,
  ROWS_NOTE,
  controlCostNote,
  headlineNote,
  LOCAL_RUN_CAVEAT,
  ONE_REPETITION_NOTE,
  OPEN_MODEL_NOTE,
  platformNote,
  repetitionsNote,
  sameClockNote,
  scaleNote,
  startStateNote,
} from "./prose";
import { controlsOf, LEGACY_BOOK, runtimesOf, sideBookOf, type SideBook, type SideProfile } from "../contract/sideProfile";
import {
  controlCostModel,
  headlineModel,
  readmeModel,
  runModel,
  sameClockModel,
  tableSides,
  throughputHead,
  type ControlCostModel,
  type CostLoadModel,
  type CostModel,
  type CpuModel,
  type HeadlineModel,
  type RowsModel,
  type OpenModelRow,
  type ReadmeModel,
  type RunModel,
  type SameClockModel,
  type StageCell,
  type ThroughputCell,
} from "./model";
import type { ScaleRow } from "../stats/scale";
import type { CapacityCurve } from "../stats/capacity";
import { missedColdProofs, type IdleStep } from "../stats/idle";
import { CAPACITY } from "../contract/capacity";
import { ci, codeBlock, codeSpan, escapeMd, ms, rate, rateHeld, signedMs, table, triple } from "./format";
import { renderCharts } from "./charts";
import { legacyCaveats, legacyReleaseLine } from "../contract/legacySides";
import { ANALYTICS_FILE, platformBlocks, readAnalyticsLines, type PlatformBlock } from "../stats/platformTimes";
import { geometricMean, groupByRep, repSpread } from "../stats/repetitions";
import { DRIVER_PROCESS, type CpuPerOp } from "../stats/cpuPerOp";
import type { MemoryPerActor } from "../stats/memory";
import { DEFAULT_PRICES, priceTableProblem, type PriceTable } from "../contract/prices";
import { CALIBRATION_MEASURES, calibrationMedian, readCalibration, type CalibrationMeasure } from "../stats/calibration";

export interface Report {
  summary: RunSummary;
  markdown: string;
  headline: string;
  /** The README's shorter headline (readmeHeadlineMarkdown). */
  readmeHeadline: string;
}

/**
 * The README's headline: a column per side on one clock (the driver's round
 * trip), a side's own clock beside it where that is another, p50 / p99, and
 * one line for failures and cold proofs.
 */
export function readmeHeadlineMarkdown(s: RunSummary, samples: RunSamples): string {
  return renderReadme(readmeModel(s, samples), s.sides);
}

export function renderReadme(model: ReadmeModel, book: SideBook): string {
  if (model.rows.length === 0) return "This run measured no headline metric.";
  const pair = (p: { p50: number; p99: number } | null) => (p ? `${ms(p.p50)} / ${ms(p.p99)}` : "-");
  const heads = model.columns.map((c) => (c.clock === "client" ? book.get(c.side).clientColumn : book.get(c.side).ownColumn));
  const t = model.totals;
  const proof = `Over every row of the run: failed calls ${t.errors}, creates or wakes not proven cold ${t.notCold}, restarts inside a series ${t.restarts}.`;
  return (
    `Milliseconds, p50 / p99, nearest rank. The client columns are one clock on every side (the driver's process.hrtime from send to full reply)${ownClocks(book)}. ` +
    `${proof}

` +
    table(
      ["Metric", ...heads, "n"],
      model.rows.map((r) => [r.label, ...r.cells.map(pair), r.ns.join(" / ")]),
    )
  );
}

/** Each side's note on its own-clock column, where its own clock is not the driver's. */
const ownClocks = (book: SideBook) =>
  book.order
    .map((x) => book.get(x))
    .filter((p) => !p.msIsClientClock)
    .map((p) => `; ${p.ownClockNote ?? `the ${p.ownColumn} column is the ${p.name} on its own clock (${p.clock})`}`)
    .join("");

export type Loaded = { m: ManifestLike; samples: RunSamples; summary: RunSummary; platform: PlatformBlock[]; model: RunModel };

/** The price table a report uses: the one given, else the one the run recorded (`npm start -- --prices FILE`), else the repository's. */
export function pricesOf(m: ManifestLike, given?: PriceTable): PriceTable {
  if (given) return given;
  const recorded = (m.config as { prices?: unknown }).prices;
  if (recorded === undefined) return DEFAULT_PRICES;
  const problem = priceTableProblem(recorded);
  if (problem)
    throw new Error(`the run's manifest records a price table that is not one (config.prices: ${problem}); give one with --prices FILE`);
  return recorded as PriceTable;
}

export function loadRun(dir: string, given?: PriceTable): Loaded {
  const m = verifyRunDir(dir);
  const prices = pricesOf(m, given);
  const samples = runSamples(
    orderedStages(m).map((s) => [stageKey(s.side, s.metric), stageSamples(dir, m, m.stages[stageKey(s.side, s.metric)])]),
    sideBookOf(m),
  );
  const summary = summarizeRun(dir, m, (f) => {
    const st = Object.values(m.stages).find((x) => x.file === f)!;
    return samples.get(stageKey(st.side, st.metric))!;
  });
  const platform = Object.keys(m.files)
    .filter((f) => ANALYTICS_FILE.test(f))
    .flatMap((f) => platformBlocks(readAnalyticsLines(readListed(dir, f).toString("utf8"), f)));
  return { m, samples, summary, platform, model: runModel(m, summary, samples, prices) };
}

/** A row whose failures exceed FLAG_FAILURE_SHARE of its attempts carries FLAG beside its error count. */
export const FLAG = "⚠";
/** n, then errors and samples whose cold flag contradicts the stage: not cold on a create or wake, a restart elsewhere. */
const counts = (c: StageCell | null) => (c ? [String(c.n), `${c.errors}${c.flagged ? ` ${FLAG}` : ""} / ${c.wrongCold}`] : ["-", "-"]);

export { tableSides };

/**
 * The headline in the reference's shape: raw round trips, p50 / p90 / p99,
 * the sides side by side, each column naming its clock; n with errors and
 * wrong cold flags beside it.
 */
export function headlineMarkdown(s: RunSummary, samples: RunSamples = new Map()): string {
  return renderHeadline(headlineModel(s, samples), s.sides);
}

export function renderHeadline(model: HeadlineModel, book: SideBook): string {
  const { sides } = model;
  const rows = model.rows.map((r) =>
    r.kind === "stage"
      ? [r.label, ...r.cells.flatMap((c) => [c ? triple(c.p50, c.p90, c.p99) : "-", ...counts(c)])]
      : // The actor's own interval: a side whose actor reports none shows "-".
        [r.label, ...r.cells.flatMap((p) => (p ? [triple(p.p50, p.p90, p.p99), String(p.n), "-"] : ["-", "-", "-"]))],
  );
  const head = table(
    ["Metric", ...sides.flatMap((side) => [`${book.get(side).name}: ${book.get(side).clock}`, "n", "errors / cold flag wrong"])],
    rows,
  );
  const tpCell = (c: ThroughputCell | null) =>
    c
      ? c.measuredPerSecond !== undefined
        ? `${rate(c.measuredPerSecond)}/s measured by the driver (${c.errors} errors of ${c.attempts}); by the side's own method, as the column says: ${rate(c.perSecond)}/s`
        : `${rate(c.perSecond)}/s (${c.errors} errors of ${c.attempts})`
      : "-";
  const tp = model.throughput.map((r) => [r.label, ...r.cells.map(tpCell)]);
  const tpHead = ["Throughput (closed loop, the reference's bursts)", ...sides.map((side) => throughputHead(book, side))];
  const tpTable = tp.length ? `\n\n${table(tpHead, tp)}` : "";
  return (
    headlineNote(
      sides.filter((side) => book.get(side).role === "control").map((side) => book.get(side).about),
      FLAG,
      FLAG_FAILURE_SHARE,
    ) + `\n\n${head}${tpTable}${renderOpenModel(model.open, book)}`
  );
}

/**
 * Each runtime's cost over the control (the side with no actor system), on
 * one clock (the driver's round trip on every side): p50 minus the control's
 * p50, and the ratio of the two.
 */
export function controlCostMarkdown(samples: RunSamples, book: SideBook): string {
  return renderControlCost(controlCostModel(samples, book), book);
}

export function renderControlCost(model: ControlCostModel | null, book: SideBook): string {
  if (!model) return "";
  const { control, runtimes } = model;
  // The control side's own name for itself, in the table's words.
  const word = book.get(control).short.toLowerCase();
  const rows = model.rows.map((r) => [
    r.label,
    triple(r.control.p50, r.control.p90, r.control.p99),
    String(r.control.n),
    ...r.cells.flatMap((p) =>
      p
        ? [ms(p.p50), signedMs(p.p50 - r.control.p50), r.control.p50 > 0 ? `${(p.p50 / r.control.p50).toFixed(1)}x` : "-"]
        : ["-", "-", "-"],
    ),
  ]);
  return (
    `## Cost over the ${word}\n\n` +
    `${controlCostNote(book.get(control).controlAbout ?? book.get(control).about, runtimes.length + 1, word)}\n\n` +
    table(
      [
        "Metric",
        `${book.get(control).clientColumn} p50 / p90 / p99`,
        "n",
        ...runtimes.flatMap((side) => [`${book.get(side).clientColumn} p50`, `minus ${word}`, "ratio"]),
      ],
      rows,
    )
  );
}

/** "Its <short> create uses <words>.": each side whose headline-chart create bar is a create of its own. */
function chartCreates(book: SideBook): string[] {
  return book.order.flatMap((side) => {
    const e = metricEntry(chartMetric(book.get(side), "create") ?? "");
    return e?.optional && e.chartWords ? [`Its ${book.get(side).short} create uses ${e.chartWords}.`] : [];
  });
}

/** Open-model rows: creates sent at a constant rate, latency from each one's intended send time. */
function renderOpenModel(open: readonly OpenModelRow[], book: SideBook): string {
  if (open.length === 0) return "";
  const rows = open.map((r) => [
    book.get(r.side).name,
    `${rate(r.targetPerSecond)}/s`,
    `${rate(r.perSecond)}/s`,
    `${r.errors} of ${r.attempts}`,
    r.latency ? triple(r.latency.p50, r.latency.p90, r.latency.p99) : "-",
    r.latency ? String(r.latency.n) : "-",
  ]);
  return `\n\n${table(["Open model: creates at a constant arrival rate", "sent at", "completed", "errors", "ms from the intended send, p50 / p90 / p99", "n"], rows)}\n\n${OPEN_MODEL_NOTE}`;
}

const cv = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);
const LEVEL_TEXT = { between: "between repetitions", within: "within a run", none: "none (all equal)" } as const;

/** How many repetitions the run made, for the interval's label: with one, it covers only the noise within that run. */
export function repetitionCount(m: ManifestLike): number {
  return Array.isArray(m.repetitions) ? m.repetitions.length : 1;
}

/** What the full tables' intervals cover, and which level of variance dominates, in words. */
export function intervalNote(m: ManifestLike, rows: readonly SummaryRow[]): string {
  const k = repetitionCount(m);
  if (k < 2) {
    return ONE_REPETITION_NOTE;
  }
  const judged = rows.filter((r) => r.repetitions.dominant !== null);
  const between = judged.filter((r) => r.repetitions.dominant === "between").length;
  const orders = (m.repetitions ?? []).map((r) => r.order.map((x) => escapeMd(x)).join(", ")).join("; ");
  return repetitionsNote(k, orders, between, judged.length);
}

function fullTables(l: Loaded): string {
  const out: string[] = [];
  for (const side of [...new Set(orderedStages(l.m).map((st) => st.side))]) {
    const rows: string[][] = [];
    const sideRows = l.summary.rows.filter((x) => x.side === side);
    const client = sideRows.some((r) => r.clientRepetitions);
    for (const r of sideRows) {
      const c = r.repetitions;
      const cr = r.clientRepetitions;
      const clientCell = client ? [cr ? `${ms(geoOrNaN(cr.perRep.p50))} ${ci(cr.ci.p50)}` : "-"] : [];
      rows.push([
        r.metric,
        String(r.n),
        String(r.errors),
        String(r.notCold),
        `${ms(r.p50)} ${ci(c.ci.p50)}`,
        `${ms(r.p90)} ${ci(c.ci.p90)}`,
        `${ms(r.p99)} ${ci(c.ci.p99)}`,
        ...clientCell,
        ms(r.mean),
        c.perRep.p50.map(ms).join(", ") || "-",
        cv(c.cv),
        c.dominant ? LEVEL_TEXT[c.dominant] : "-",
      ]);
    }
    if (rows.length === 0) continue;
    const clientHead = client ? ["client round trip p50, geometric mean of the repetitions [95%]"] : [];
    out.push(
      `### ${l.summary.sides.get(side).name}\n\n${table(["metric", "n", "errors", "notCold", "p50 [95% interval]", "p90 [95% interval]", "p99 [95% interval]", ...clientHead, "mean", "p50 per repetition", "CV of p50s", "variance mostly"], rows)}`,
    );
  }
  return out.join("\n\n");
}

/** The geometric mean of values above 0, else NaN (printed "-"). */
const geoOrNaN = (xs: readonly number[]) => (xs.length > 0 && xs.every((x) => x > 0) ? geometricMean(xs) : Number.NaN);

function intervalTable(l: Loaded, side: string, field: "actorMs" | "sqlMs", title: string): string {
  const rows: string[][] = [];
  for (const { metric } of orderedStages(l.m).filter((s) => s.side === side)) {
    const stats = statsOf(l.samples, side, metric)!;
    const p = stats.interval(field);
    if (!p) continue;
    const xs = stats.counted.filter((s) => typeof s[field] === "number");
    const c = repSpread(
      groupByRep(xs, (s) => s[field] as number),
      CLIENT_TICK_MS,
    );
    rows.push([
      metric,
      String(p.n),
      `${ms(p.p50)} ${ci(c.ci.p50)}`,
      `${ms(p.p90)} ${ci(c.ci.p90)}`,
      `${ms(p.p99)} ${ci(c.ci.p99)}`,
      c.perRep.p50.map(ms).join(", "),
    ]);
  }
  return rows.length
    ? `### ${title}\n\n${table(["metric", "n", "p50 [95% interval]", "p90 [95% interval]", "p99 [95% interval]", "p50 per repetition"], rows)}`
    : "";
}

/**
 * The same clock on every side: the driver's round trip (process.hrtime) for
 * every latency metric, beside a side's baseline (a call that reaches no
 * actor) where it has one, so the sides can be read on one clock as well as
 * on the reference's.
 */
export function sameClockMarkdown(samples: RunSamples, book: SideBook): string {
  return renderSameClock(sameClockModel(samples, book), book);
}

export function renderSameClock(model: SameClockModel | null, book: SideBook): string {
  if (!model) return "";
  const { sides, baselines } = model;
  const rows = model.rows.map((r) => [
    r.label,
    ...r.cells.flatMap((p) => (p ? [triple(p.p50, p.p90, p.p99), String(p.n)] : ["-", "-"])),
    ...r.minusBaseline.map((d) => (d === null ? "-" : ms(d))),
  ]);
  const routes = sides.map((side) => book.get(side).route);
  const baseLines = baselines.map((b) => {
    const words = book.get(b.side).baseline!;
    return b.p
      ? `Baseline: the client's round trip ${words.what}, p50 / p90 / p99 ${triple(b.p.p50, b.p.p90, b.p.p99)} ms over ${b.p.n} calls.`
      : words.missing;
  });
  return (
    "## Same clock: the client's round trip on both sides\n\n" +
    `${sameClockNote(routes)} ` +
    baseLines.map((x) => `${x}\n\n`).join("") +
    table(
      [
        "Metric",
        ...sides.flatMap((side) => [book.get(side).clientColumn, "n"]),
        ...baselines.map((b) => book.get(b.side).baseline!.column),
      ],
      rows,
    )
  );
}

/** CPU per successful operation of each headline and throughput row, per side: its own processes, and the driver. */
export function renderCpu(model: CpuModel | null, book: SideBook): string {
  if (!model) return "";
  const perOp = (x: number | null) => (x === null ? "-" : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
  const own = (c: CpuPerOp | null) => {
    if (!c || c.ownMsPerOp === null) return "-";
    const names = Object.keys(c.processes).filter((k) => k !== DRIVER_PROCESS);
    const interval = c.ownInterval ? ` ${ci(c.ownInterval)}` : "";
    return `${perOp(c.ownMsPerOp)}${interval} (${names.map(escapeMd).join(" + ")})`;
  };
  const rows = model.rows.map((r) => [
    r.label,
    ...r.cells.flatMap((c) => [own(c), perOp(c?.driverMsPerOp ?? null), c ? String(c.ops) : "-"]),
  ]);
  return `## CPU per operation\n\n${CPU_NOTE}\n\n${table(["Metric", ...model.sides.flatMap((side) => [`${book.get(side).short}: its processes`, `${book.get(side).short}: driver`, "ops"])], rows)}`;
}

/** US dollars per million operations, each side under its ways of pricing, with the prices used. */
export function renderCost(model: CostModel | null, book: SideBook): string {
  if (!model) return "";
  const usd = (x: number) => (x >= 100 ? `$${x.toFixed(0)}` : x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`);
  const rows = model.rows.map((r) => [
    r.label,
    ...r.cells.map((c) => (c.usdPerMillion === null ? `not priced: ${c.missing}` : usd(c.usdPerMillion))),
  ]);
  const used = new Set(
    model.columns.flatMap((c) =>
      c.pricing.kind === "usage"
        ? [...c.pricing.requests, c.pricing.durationGbS, c.pricing.rowsRead, c.pricing.rowsWritten]
        : c.pricing.kind === "cpu"
          ? [c.pricing.vcpuSecond]
          : c.pricing.prices,
    ),
  );
  const prices = [...used].map((k) => model.prices.prices[k]).map((p) => `- $${p.usd} per ${escapeMd(p.per)} (${escapeMd(p.source)})`);
  const a = model.prices.assumptions;
  return (
    `## Cost per million operations\n\n${costNote(escapeMd(model.prices.asOf), a.doBilledGb, a.selfHostedUtilisation)}\n\n` +
    `${table(["Metric", ...model.columns.map((c) => `${book.get(c.side).short}: ${escapeMd(c.pricing.name)}`)], rows)}\n\nPrices used:\n\n${prices.join("\n")}`
  );
}

const perSecond = (x: number | null, open: string) => (x === null ? open : `${x.toLocaleString("en-US")}/s`);

/** The idle ladder: each side's wake latency and cold share at each idle length. */
export function renderIdle(steps: readonly IdleStep[], book: SideBook): string {
  if (steps.length === 0) return "";
  const rows = steps.map((s) => {
    const iv = s.p50Interval.lo !== null && s.p50Interval.hi !== null ? ` [${ms(s.p50Interval.lo)}, ${ms(s.p50Interval.hi)}]` : "";
    const missed = missedColdProofs(s);
    const cold = `${s.cold} of ${s.n}${s.coldRequired ? (missed ? `, **${missed} not cold though required**` : ", required") : ""}`;
    return [
      book.get(s.side).name,
      s.label,
      s.p50 === null ? "-" : `${ms(s.p50)}${iv}`,
      s.p90 === null ? "-" : ms(s.p90),
      cold,
      `${s.errors}${s.ended.length ? `; ${s.ended.map(escapeMd).join("; ")}` : ""}`,
      s.actualIdleMs ? `${(s.actualIdleMs.min / 1000).toFixed(1)} to ${(s.actualIdleMs.max / 1000).toFixed(1)} s` : "-",
      s.idleSleepMs === null ? "-" : `${(s.idleSleepMs / 1000).toFixed(0)} s`,
    ];
  });
  return `## Wake against idle length

${idleNote("client round trip, the driver's hrtime, on every side")}

${table(["side", "idle", "wake p50 ms [95% interval]", "p90 ms", "cold", "errors", "actual idle", "runtime sleeps after"], rows)}`;
}

/** An idle ladder step in summary.json. */
export const idleSummary = (s: IdleStep) => ({
  side: s.side,
  idleMs: s.idleMs,
  n: s.n,
  errors: s.errors,
  cold: s.cold,
  coldRequired: s.coldRequired,
  notColdThoughRequired: missedColdProofs(s),
  clock: "client round trip",
  p50: s.p50,
  p90: s.p90,
  p50Interval: { lo: s.p50Interval.lo, hi: s.p50Interval.hi, ...(s.p50Interval.none ? { none: s.p50Interval.none } : {}) },
  actualIdleMs: s.actualIdleMs,
  idleSleepMs: s.idleSleepMs,
  ...(s.ended.length ? { ended: s.ended } : {}),
});

/** The capacity group: each side's rate held per operation with its range, and every step of every search. */
export function renderCapacity(curves: readonly CapacityCurve[], book: SideBook): string {
  if (curves.length === 0) return "";
  const o = curves[0].objective;
  const ops = [...new Set(curves.map((c) => c.op))];
  const sides = [...new Set(curves.map((c) => c.side))];
  const cell = (c: CapacityCurve | undefined) => {
    if (!c) return "-";
    const estimate = rateHeld(c.held);
    const per = c.reps.map((r) => perSecond(r.held, "none")).join(", ");
    return `${estimate}; held ${per} (range ${perSecond(c.range.low, "below the lowest rate")} to ${perSecond(c.range.high, "past the highest tried")})`;
  };
  const summary = table(
    ["operation", ...sides.map((x) => `${book.get(x).short}: rate held [95% interval]; per repetition (range)`)],
    ops.map((op) => [op, ...sides.map((x) => cell(curves.find((c) => c.side === x && c.op === op)))]),
  );
  const fmt = (x: number | null, d = 2) => (x === null ? "-" : x.toFixed(d));
  const steps = curves.flatMap((c) =>
    c.steps.map((st) => [
      book.get(c.side).short,
      c.op,
      String(st.rep + 1),
      st.ratePerSecond.toLocaleString("en-US"),
      String(st.planned),
      String(st.sent),
      String(st.failed),
      ms(st.p50),
      ms(st.p99),
      st.held ? "held" : `missed: ${escapeMd(st.why)}`,
      fmt(st.ownCpuMsPerOp, 3),
      fmt(st.driverCpuMsPerOp, 3),
    ]),
  );
  return (
    `## Capacity

${capacityNote(o.p99Ms, o.maxFailureShare * 100, CAPACITY.stepFactor, CAPACITY.resolution, CAPACITY.pool)}

${summary}

` +
    `### Every step

${CAPACITY_STEPS_NOTE}

${table(["side", "operation", "repetition", "rate", "planned", "sent", "failed", "p50 ms", "p99 ms", "verdict", "CPU ms/op, its processes", "CPU ms/op, driver"], steps)}`
  );
}

/** Cost per million operations against sustained load: where a machine priced by CPU becomes cheaper than a price per operation. */
export function renderCostLoad(model: CostLoadModel | null, book: SideBook): string {
  if (!model) return "";
  const usd = (x: number) => (x >= 100 ? `$${x.toFixed(0)}` : x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`);
  const rows = model.ops.flatMap((o) =>
    o.machine.map((m) => [
      `${o.op} (${o.metric})`,
      `${book.get(m.side).short}: ${escapeMd(m.pricing)}`,
      `${rate(m.maxLoad)}/s (${m.maxFrom === "capacity" ? "capacity held" : "CPU-bound"})`,
      usd(m.points[m.points.length - 1].usdPerMillion),
      m.cheaperAbove
        .map(
          (c) =>
            `than ${book.get(c.side).short} ${escapeMd(c.pricing)} (${usd(o.flat.find((f) => f.side === c.side && f.pricing === c.pricing)!.usdPerMillion)}): ${c.load === null ? "-" : `${rate(c.load)}/s`}`,
        )
        .join("; ") || "no side priced per operation in this run",
    ]),
  );
  const price = `$${model.vcpuPrice.usd} per ${escapeMd(model.vcpuPrice.per)}`;
  return `## Cost against load

${costLoadNote(model.vcpus, price)}

${table(["operation", "priced by CPU", "most load", "per million at that load", "cheaper above"], rows)}`;
}

/** Memory per sleeping and per live actor, per side. */
export function renderMemory(rows: readonly MemoryPerActor[], book: SideBook): string {
  if (rows.length === 0) return "";
  const kb = (x: number | null) => (x === null ? "-" : x >= 100 ? x.toFixed(0) : x.toFixed(2));
  const lines = rows.map((r) => [
    book.get(r.side).name,
    escapeMd(r.processes.join(" + ")),
    kb(r.sleepingKb),
    String(r.sleepingActors),
    kb(r.liveKb),
    String(r.liveActors),
  ]);
  return `## Memory per actor\n\n${MEMORY_NOTE}\n\n${table(["side", "processes", "kB per sleeping actor", "actors", "kB per live actor", "actors"], lines)}`;
}

/** Rows read and written per successful operation, on the sides that count them. */
export function renderRows(model: RowsModel | null, book: SideBook): string {
  if (!model) return "";
  const per = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
  const rows = model.rows.map((r) => [
    r.label,
    ...r.cells.flatMap((c) => (c ? [per(c.read), per(c.written), String(c.n)] : ["-", "-", "-"])),
  ]);
  return `## SQLite rows per operation\n\n${ROWS_NOTE}\n\n${table(["Metric", ...model.sides.flatMap((side) => [`${book.get(side).short}: rows read`, "rows written", "n"])], rows)}`;
}

/** Cost as the work grows: the scaling group, per side and level, on the driver's clock for creates and bursts. */
export function renderScale(rows: readonly ScaleRow[], s: Pick<RunSummary, "sides">): string {
  if (rows.length === 0) return "";
  const lines: string[][] = [];
  for (const side of [...new Set(rows.map((r) => r.side))]) {
    for (const level of [...new Set(rows.filter((r) => r.side === side).map((r) => r.level))]) {
      const at = (op: ScaleRow["op"]) => rows.find((r) => r.side === side && r.level === level && r.op === op);
      const lat = (r: ScaleRow | undefined) =>
        r
          ? `${ms(r.p50)} / ${ms(r.p99)} (n ${r.n}${r.errors ? `, ${r.errors} errors` : ""}${r.ended ? `; ${r.ended.map(escapeMd).join("; ")}` : ""})`
          : "-";
      const b = at("burst");
      const existing = at("wake")?.existing ?? at("create")?.existing;
      lines.push([
        s.sides.get(side).name,
        level.toLocaleString("en-US"),
        existing === null || existing === undefined ? "-" : existing.toLocaleString("en-US"),
        lat(at("wake")),
        lat(at("create")),
        b && b.perSecond !== null ? `${rate(b.perSecond)}/s (${b.errors} errors of ${b.n + b.errors})` : "-",
      ]);
    }
  }
  return (
    "## Cost as the work grows\n\n" +
    `${scaleNote(SCALE_BURST_CONCURRENCY)}\n\n` +
    table(
      ["side", "level", "actors existing", "wake p50 / p99 ms", "create p50 / p99 ms", `burst c${SCALE_BURST_CONCURRENCY} (measured)`],
      lines,
    )
  );
}

/** "A, B, and C": each side's way of putting its actors to sleep: the first runtime, the floors, the other runtimes. */
function sleepWords(book: SideBook): string {
  const [first, ...rest] = [...runtimesOf(book).slice(0, 1), ...controlsOf(book), ...runtimesOf(book).slice(1)].map(
    (x) => book.get(x).sleep,
  );
  return rest.length ? `${[first, ...rest.slice(0, -1)].join(", ")}, and ${rest[rest.length - 1]}` : first;
}

interface StartNote {
  group: string;
  before: { existing: number; awake: number };
  atStart: { existing: number; awake: number };
  settleMs: number;
  sleepFailures: number;
}

/** What each group started from, per side: the first stage of each group's startState note. */
export function startStateMarkdown(m: ManifestLike): string {
  const book = sideBookOf(m);
  const rows: string[][] = [];
  const seen = new Set<string>();
  const multi = repetitionCount(m) > 1;
  for (const part of orderedStages(m).flatMap((st) =>
    stageReps(m.stages[stageKey(st.side, st.metric)]).map((r) => ({ ...st, rep: r.rep, notes: r.notes })),
  )) {
    const st = part;
    const s = part.notes?.startState as StartNote | undefined;
    const n = (x: unknown) => typeof x === "number" && Number.isFinite(x);
    // A note of another shape (an older run, a hand-edited record) is not shown rather than misread.
    if (
      !s ||
      typeof s.group !== "string" ||
      !n(s.before?.existing) ||
      !n(s.before?.awake) ||
      !n(s.atStart?.awake) ||
      !n(s.settleMs) ||
      !n(s.sleepFailures)
    )
      continue;
    if (seen.has(`${st.side}.${s.group}.${part.rep}`)) continue;
    seen.add(`${st.side}.${s.group}.${part.rep}`);
    rows.push([
      book.get(st.side).name,
      escapeMd(s.group) + (multi ? ` (repetition ${part.rep + 1})` : ""),
      String(s.before.existing),
      String(s.before.awake),
      String(s.atStart.awake),
      (s.settleMs / 1000).toFixed(1),
      String(s.sleepFailures),
    ]);
  }
  if (rows.length === 0) return "";
  return (
    "## What each group started from\n\n" +
    `${startStateNote(sleepWords(book))}\n\n` +
    table(
      [
        "side",
        "group",
        "actors of the run when reached",
        "awake then",
        "awake at the start",
        "seconds to put them to sleep",
        "sleep calls failed",
      ],
      rows,
    )
  );
}

/** The differences between the sides, as each side's adapter states them (manifest settings.<side>.adapter). */
export function differencesMarkdown(m: ManifestLike): string {
  const book = sideBookOf(m);
  const props = (side: string) => (m.settings?.[side] as { adapter?: Record<string, string> } | undefined)?.adapter ?? null;
  const sides = book.order.filter((side) => props(side));
  if (sides.length === 0) return "";
  const keys = [...new Set(sides.flatMap((side) => Object.keys(props(side)!)))];
  const rows = keys.map((k) => [escapeMd(k), ...sides.map((side) => escapeMd(props(side)![k] ?? "-"))]);
  // The client is the same object on every side; its own description, as the manifest has it, shows that.
  const client = (side: string) => (m.settings?.[side] as { client?: unknown } | undefined)?.client;
  if (sides.some((side) => typeof client(side) === "string"))
    rows.unshift([
      "timed calls' client",
      ...sides.map((side) => escapeMd(typeof client(side) === "string" ? (client(side) as string) : "-")),
    ]);
  return `## How the sides differ\n\n${DIFFERENCES_NOTE}\n\n${table(["", ...sides.map((side) => book.get(side).name)], rows)}`;
}

/** A platform's own wall time inside its actors, per block of calls (one stage), from the stored analytics responses; in the words of the block's side. */
export function platformTable(blocks: readonly PlatformBlock[], book: SideBook): string {
  if (blocks.length === 0) return "";
  return [...new Set(blocks.map((b) => String(b.block).split(".")[0]))]
    .map((side) =>
      sidePlatformTable(
        blocks.filter((b) => String(b.block).startsWith(`${side}.`)),
        book.get(side).platform,
      ),
    )
    .filter(Boolean)
    .join("\n\n");
}

function sidePlatformTable(blocks: readonly PlatformBlock[], w: SideProfile["platform"]): string {
  if (!w || blocks.length === 0) return "";
  const rows: string[][] = [];
  for (const b of blocks) {
    // Every field here comes from a stored analytics response: shown literally, never as Markdown.
    const window = escapeMd(`${String(b.window.from).slice(11, 19)}-${String(b.window.to).slice(11, 19)}`);
    const block = escapeMd(String(b.block).replace(/^[a-z]+\./, ""));
    if (b.groups.length === 0) rows.push([block, window, escapeMd(b.calls), "0", "-", "-", "-", "-", "-", "-"]);
    for (const g of b.groups) {
      rows.push([
        block,
        window,
        escapeMd(b.calls),
        escapeMd(g.requests),
        escapeMd(g.errors),
        escapeMd(g.colo),
        ms(g.meanMs),
        ms(g.p50Ms),
        ms(g.p90Ms),
        ms(g.p99Ms),
      ]);
    }
  }
  const short = blocks.filter((b) => b.groups.reduce((s, g) => s + g.requests, 0) < b.calls).map((b) => escapeMd(b.block));
  return (
    `### In the ${w.actor}: ${w.name}'s wall time per block of calls (GraphQL analytics)\n\n` +
    `${platformNote(w)}\n\n` +
    table(
      ["metric", "window (UTC)", `${w.front}-timed calls`, `${w.actor} invocations`, "errors", "colo", "mean", "p50", "p90", "p99"],
      rows,
    ) +
    (short.length
      ? `\n\nAnalytics counted fewer invocations than the ${w.front} made calls for ${short.join(", ")} when they were last asked.`
      : "")
  );
}

/** Every stage's part in every repetition, with the stage's side and metric: where the notes are. */
export function stageParts(m: ManifestLike): Array<RepStage & Pick<StageRecord, "side" | "metric">> {
  return Object.values(m.stages).flatMap((st) => stageReps(st).map((r) => ({ ...r, side: st.side, metric: st.metric })));
}

/** "<side> wake.ping" or, in a run of several repetitions, "<side> wake.ping (repetition 2)". */
const partName = (m: ManifestLike, p: { side: string; metric: string; rep: number }) =>
  `${p.side} ${p.metric}${repetitionCount(m) > 1 ? ` (repetition ${p.rep + 1})` : ""}`;

/**
 * What a run that did not complete measured and why it stopped: its status,
 * the stages that ended early (a runtime lost, samples that could not be
 * written), and samples kept of a stage that never ended. Empty for a complete run.
 */
export function partialRun(m: ManifestLike): string[] {
  if (!m.status || m.status === "complete") return [];
  const out: string[] = [];
  if (m.status === "running") {
    out.push(
      "This run is partial: it never finished (its driver was killed or its machine stopped before it recorded an end). Only the stages recorded before that are reported; samples written after the last checkpoint are not under a hash and are left out.",
    );
  } else {
    out.push(
      `This run is partial: its status is "${escapeMd(String(m.status))}".${m.failure ? ` Why: ${escapeMd(m.failure.split("\n").join("; ").slice(0, 800))}` : ""}`,
    );
  }
  const early = stageParts(m).filter((p) => p.status === "failed");
  if (early.length)
    out.push(
      `Stages that ended early, with every sample taken before the fault kept: ${early.map((p) => `${partName(m, p)}: ${escapeMd(String(p.failure ?? "?").slice(0, 300))}`).join("; ")}.`,
    );
  const recorded = new Set(Object.values(m.stages).map((s) => s.file));
  const unended = Object.keys(m.files).filter((f) => f.startsWith("raw/") && f.endsWith(".jsonl") && !recorded.has(f));
  const rep = unendedRepetition(m);
  const cut = Object.values(m.stages).filter(
    (s) => rep !== null && s.repetitions && !s.repetitions.some((r) => r.rep === rep) && m.files[s.file],
  );
  if (unended.length || cut.length) {
    out.push(
      `Samples of a stage that never ended are kept under their hash and left out of every figure: ${[...unended.map((f) => `${codeSpan(f)} (${m.files[f].lines} samples)`), ...cut.map((s) => `${codeSpan(s.file)} (repetition ${rep! + 1})`)].join(", ")}.`,
    );
  }
  return out;
}

/** Caveats that follow from the run's own manifest, nothing typed per run. */
export function caveats(m: ManifestLike): string[] {
  const out: string[] = [...partialRun(m), ...loopbackCaveat(m), ...plantedCaveats(m)];
  const legacy = m.sideProfiles ? null : legacyCaveats(m, ANALYTICS_FILE);
  out.push(...(legacy ? legacy.head : sideCaveats(m)));
  const parts = stageParts(m);
  const limited = parts.filter((s) => s.notes?.machineLimit);
  if (limited.length) {
    const book = sideBookOf(m);
    const runtimeOf = (side: string) => book.get(side).runtimeProcess;
    out.push(
      `A local artifact, not either runtime's behaviour: these stages failed on a limit of the machine the run was on, named by the failures themselves or by the runtime's log while the stage ran: ${limited
        .map(
          (s) =>
            `${partName(m, s)}: ${s.errors} of ${s.attempts} failed; ${escapeMd(describeMachineLimit(s.notes!.machineLimit as MachineLimitNote, runtimeOf(s.side)))}`,
        )
        .join("; ")}.`,
    );
  }
  const ended = parts.filter((s) => typeof (s.notes?.deadline as { outcome?: unknown } | undefined)?.outcome === "string");
  if (ended.length) {
    out.push(
      `Stages ended by their deadline, their samples kept (where a runtime stopped keeping up, this is the end of its curve, not a crash): ${ended.map((s) => `${partName(m, s)}: ${escapeMd((s.notes!.deadline as { outcome: string }).outcome)}`).join("; ")}.`,
    );
  }
  // A scaling curve's last level: the first of each side's stages there that carries the end, once per repetition.
  const curveEnds = new Map<string, string>();
  for (const s of parts)
    if (typeof s.notes?.curveEnd === "string")
      curveEnds.set(partName(m, { ...s, metric: "scale" }), `${escapeMd(String(s.notes.level))}: ${escapeMd(s.notes.curveEnd)}`);
  if (curveEnds.size)
    out.push(
      `Scaling curves that ended before the preset's last level, at the level named (the levels above it were not reached): ${[...curveEnds].map(([k, v]) => `${k} at ${v}`).join("; ")}.`,
    );
  const errs = Object.values(m.stages).filter((s) => s.errors > 0);
  if (errs.length)
    out.push(
      `Failures were counted, not retried, and left out of the percentiles: ${errs.map((s) => `${s.side} ${s.metric} ${s.errors} of ${s.attempts}`).join(", ")}.`,
    );
  const retried = parts.filter((s) => Array.isArray(s.notes?.setupRetries) && (s.notes!.setupRetries as unknown[]).length > 0);
  if (retried.length) {
    out.push(
      `Setup calls (not samples) that failed with a gateway error were tried once more before these stages: ${retried.map((s) => `${partName(m, s)} (${(s.notes!.setupRetries as string[]).map((r) => escapeMd(String(r).slice(0, 160))).join("; ")})`).join(", ")}. Samples are never retried.`,
    );
  }
  const prep = parts.filter((s) => Number(s.notes?.preparationFailures ?? 0) > 0);
  if (prep.length) {
    out.push(
      `Actors that could not be prepared were left out of their stage, not retried: ${prep.map((s) => `${partName(m, s)} ${String(s.notes!.preparationFailures)} (e.g. ${escapeMd(String((s.notes!.preparationErrors as string[] | undefined)?.[0] ?? "?").slice(0, 160))})`).join(", ")}.`,
    );
  }
  if (legacy) out.push(...legacy.tail);
  return out;
}

/**
 * What each side says of its own figures in this run: recorded by the side
 * (settings.<side>.caveats) beside one line for a local run; for a run made
 * before the sides recorded them, the report's words of that time.
 */
export function sideCaveats(m: ManifestLike): string[] {
  const book = sideBookOf(m);
  const measured = new Set(Object.values(m.stages).map((s) => s.side));
  const recorded = book.order
    .filter((side) => measured.has(side))
    .flatMap((side) => {
      const c = (m.settings?.[side] as { caveats?: unknown } | undefined)?.caveats;
      return Array.isArray(c) ? c.filter((x): x is string => typeof x === "string").map(escapeMd) : [];
    });
  const local = m.stack === "local" ? [LOCAL_RUN_CAVEAT] : [];
  return [...local, ...recorded];
}

/**
 * Where a platform ran a side's calls: the front's data centers from the
 * colo on its replies, the actors' from the platform's analytics. Empty when
 * neither says (a local runtime).
 */
export function placementLine(
  samples: RunSamples,
  platform: readonly PlatformBlock[],
  book: SideBook = samples.sides ?? LEGACY_BOOK,
): string {
  const list = (m: Map<string, number>, unit: string) =>
    [...m]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([c, n]) => `${escapeMd(c)} (${n.toLocaleString("en-US")} ${unit})`)
      .join(", ");
  const lines = book.order.flatMap((side) => {
    const w = book.get(side).platform;
    if (!w) return [];
    const fronts = new Map<string, number>();
    for (const [key, xs] of samples) {
      if (!key.startsWith(`${side}.`)) continue;
      for (const x of xs) if (x.ok && x.colo) fronts.set(x.colo, (fronts.get(x.colo) ?? 0) + 1);
    }
    const actors = new Map<string, number>();
    for (const b of platform)
      if (String(b.block).startsWith(`${side}.`)) for (const g of b.groups) actors.set(g.colo, (actors.get(g.colo) ?? 0) + g.requests);
    const parts = [
      fronts.size ? `the ${w.front} in ${list(fronts, "calls")}` : "",
      actors.size ? `the ${w.actors} in ${list(actors, `invocations, per ${w.name}'s analytics`)}` : "",
    ].filter(Boolean);
    return parts.length ? [`Where ${w.name} ran it: ${parts.join("; ")}.`] : [];
  });
  return lines.join(" ");
}

/** Which code made the run, from the manifest. */
export function codeLine(m: ManifestLike): string {
  const c = m.code;
  if (!c?.commit) return `Code: commit not recorded${c ? ` (${escapeMd(c.source)})` : ""}.`;
  const commit = /^[0-9a-f]{7,64}$/.test(String(c.commit)) ? `\`${String(c.commit).slice(0, 12)}\`` : escapeMd(c.commit);
  return `Code: commit ${commit}${c.dirty ? " with uncommitted changes" : ""} (${escapeMd(c.source)}).`;
}

const json = (x: unknown) => codeBlock("json", JSON.stringify(x, null, 2));

/** A run that asked for the quickack loopback and measured on the host's: its round trips carry delayed ACKs. */
export function loopbackCaveat(m: ManifestLike): string[] {
  const why = (m.config as { loopbackFallback?: unknown } | undefined)?.loopbackFallback;
  if (typeof why !== "string") return [];
  return [
    `**Host loopback.** The run asked for \`--loopback quickack\` and could not make a private network namespace (${escapeMd(why.slice(0, 200))}), so it measured on the host loopback, where delayed ACKs add to round trips: compare it only with runs on the same loopback (docs/engine-latency.md).`,
  ];
}

/** A planted delay per side, first among the caveats: the figures include it. */
export function plantedCaveats(m: ManifestLike): string[] {
  const out: string[] = [];
  const book = sideBookOf(m);
  for (const [side, st] of Object.entries(m.settings ?? {})) {
    const planted = (st as { plantedDelay?: unknown } | null)?.plantedDelay;
    if (typeof planted === "string")
      out.push(`**A planted change**, ${escapeMd(book.get(side).name)}: ${escapeMd(planted)}. Every figure of that side includes it.`);
    const release = m.sideProfiles ? null : legacyReleaseLine(st);
    if (release) out.push(escapeMd(release));
  }
  const ab = (m.settings as { ab?: { arm?: unknown; partnerRunId?: unknown; id?: unknown } } | undefined)?.ab;
  if (ab && typeof ab.arm === "string")
    out.push(
      `Arm ${escapeMd(ab.arm)} of the A/B session ${escapeMd(String(ab.id))}: its repetitions alternated with those of run ${escapeMd(String(ab.partnerRunId))}; the comparison is \`results/${escapeMd(m.stack)}/${escapeMd(String(ab.id))}/comparison.md\`.`,
    );
  return out;
}

/** The machine's calibration at the run's start, each measure's median and range over its rounds; nothing for a run made before calibrations. */
export function calibrationMarkdown(m: ManifestLike): string {
  const c = readCalibration(m.calibration);
  if (!c) return "";
  const rows = (Object.entries(CALIBRATION_MEASURES) as Array<[CalibrationMeasure, string]>).map(([k, what]) => {
    const r = c.rounds[k];
    return [k, what, ms(calibrationMedian(r)), `${ms(Math.min(...r))} to ${ms(Math.max(...r))}`, String(r.length)];
  });
  return `\n\nCalibration, taken before the run measured anything (driver clock), so that \`npm run compare\` can say when two runs' machines differ beyond these rounds' own noise:\n\n${table(["measure", "what", "median ms", "range ms", "rounds"], rows)}`;
}

export function reportMarkdown(l: Loaded, charts: string[]): string {
  const m = l.m;
  const mach = m.machine as { cpus?: number; cpuModel?: string; memory?: number; os?: string };
  const machineLine = `${escapeMd(mach.cpus ?? "?")} x ${escapeMd(mach.cpuModel ?? "?")}, ${mach.memory ? (Number(mach.memory) / 2 ** 30).toFixed(1) : "?"} GiB, ${escapeMd(mach.os ?? "?")}`;
  const parts = [
    `# actor-bench run ${escapeMd(m.runId)} (${escapeMd(m.stack)})`,
    `Started ${escapeMd(m.startedAt)}, finished ${m.finishedAt === null ? "(not finished)" : escapeMd(m.finishedAt)}, preset ${codeSpan(m.preset)}, status ${codeSpan(m.status ?? "unknown")}. Machine: ${machineLine}. ${codeLine(m)} Generated from \`raw/\` and \`stages/\` by \`npm run report\`; every number below comes from those hashed files.`,
    partialRun(m).length ? `**Partial run.** ${partialRun(m)[0]} The caveats below list what ended early.` : "",
    placementLine(l.samples, l.platform),
    `## Headline\n\n${renderHeadline(l.model.headline, l.model.sides)}`,
    charts.length
      ? `## Charts\n\n${charts.map((c) => `![${c}](charts/${c}.png)`).join("\n\n")}\n\n${chartsNote(chartCreates(l.model.sides))}`
      : "",
    `## Full tables\n\nFor creates, wakes and bursts only samples whose cold flag proves a fresh instance count (n); the others are \`notCold\`. ${intervalNote(m, l.summary.rows)}\n\n${fullTables(l)}`,
    renderSameClock(l.model.sameClock, l.model.sides),
    renderControlCost(l.model.controlCost, l.model.sides),
    renderCost(l.model.cost, l.model.sides),
    renderCostLoad(l.model.costLoad, l.model.sides),
    renderCpu(l.model.cpu, l.model.sides),
    renderRows(l.model.storageRows, l.model.sides),
    [
      ...l.summary.sides.order.flatMap((side) => {
        const p = l.summary.sides.get(side);
        return (["actorMs", "sqlMs"] as const).map((field) =>
          p.intervals?.[field] ? intervalTable(l, side, field, `In the actor: ${p.intervals[field]} (${p.short})`) : "",
        );
      }),
      platformTable(l.platform, l.summary.sides),
    ]
      .filter(Boolean)
      .join("\n\n"),
    renderIdle(l.model.idle, l.model.sides),
    renderCapacity(l.model.capacity, l.model.sides),
    renderScale(l.model.scale, l.summary),
    renderMemory(l.model.memory, l.model.sides),
    startStateMarkdown(m),
    differencesMarkdown(m),
    `## Caveats\n\n${caveats(m)
      .map((c) => `- ${c}`)
      .join("\n")}`,
    `## Versions\n\n${table(
      ["component", "version"],
      Object.entries(m.versions).map(([k, v]) => [escapeMd(k), escapeMd(v)]),
    )}`,
    `## Machine\n\n${json(m.machine)}${calibrationMarkdown(m)}`,
    `## Config\n\n${json(m.config)}`,
    m.settings ? `## Settings\n\n${json(m.settings)}` : "",
  ];
  return `${parts.filter(Boolean).join("\n\n")}\n`;
}

/** A capacity curve in summary.json: the rate held per repetition, the range, the objective, and every step. */
export const capacitySummary = (c: CapacityCurve) => ({
  side: c.side,
  op: c.op,
  objective: c.objective,
  estimatePerSecond: c.held.estimate,
  interval: { lo: c.held.lo, hi: c.held.hi, ...(c.held.none ? { none: c.held.none } : {}) },
  heldPerSecond: c.reps.map((r) => r.held),
  missedPerSecond: c.reps.map((r) => r.missed),
  range: c.range,
  steps: c.steps.map((st) => ({
    rep: st.rep,
    ratePerSecond: st.ratePerSecond,
    planned: st.planned,
    sent: st.sent,
    failed: st.failed,
    p50: st.p50,
    p99: st.p99,
    held: st.held,
    cpuMsPerOp: st.ownCpuMsPerOp,
    driverCpuMsPerOp: st.driverCpuMsPerOp,
  })),
});

/**
 * Regenerates <runDir>/report/ from raw/ alone. Verifies every raw file first
 * and writes nothing when one fails. The output depends only on the run
 * directory's files: the same raw files give byte-identical reports.
 */
export async function generateReport(dir: string, prices?: PriceTable): Promise<Report> {
  const l = loadRun(dir, prices);
  const tmp = join(dir, "report.tmp");
  rmSync(tmp, { recursive: true, force: true });
  let markdown: string;
  try {
    mkdirSync(join(tmp, "charts"), { recursive: true });
    const charts = await renderCharts(l.m, l.samples, l.summary, join(tmp, "charts"), l.model);
    markdown = reportMarkdown(l, charts);
    writeFileSync(join(tmp, "results.md"), markdown);
    const memory = l.model.memory.length ? { memory: l.model.memory } : {};
    const cost = l.model.cost
      ? { asOf: l.model.cost.prices.asOf, cells: l.model.cost.rows.flatMap((r) => r.cells.map((c) => ({ metric: r.metric, ...c }))) }
      : undefined;
    const capacity = l.model.capacity.length ? { capacity: l.model.capacity.map(capacitySummary) } : {};
    const idle = l.model.idle.length ? { idle: l.model.idle.map(idleSummary) } : {};
    writeFileSync(
      join(tmp, "summary.json"),
      `${JSON.stringify({ rows: l.summary.rows, throughput: l.summary.throughput, ...(cost ? { cost } : {}), ...memory, ...capacity, ...idle }, null, 2)}\n`,
    );
  } catch (err) {
    // Whatever failed, no half-written report is left beside the old one.
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  rmSync(join(dir, "report"), { recursive: true, force: true });
  renameSync(tmp, join(dir, "report"));
  return {
    summary: l.summary,
    markdown,
    headline: renderHeadline(l.model.headline, l.model.sides),
    readmeHeadline: renderReadme(l.model.readme, l.model.sides),
  };
}

export function readManifest(dir: string): ManifestLike {
  return JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as ManifestLike;
}
