/** The headline sections: the reference's shape, the README's, the one-clock table and the control cost. Renderers of the run model. */
import { FLAG_FAILURE_SHARE } from "../../contract/machineLimits";
import type { RunSamples, RunSummary } from "../../stats/summary";
import { chartMetric, metricEntry } from "../../contract/catalog";
import { controlCostNote, headlineNote, OPEN_MODEL_NOTE, sameClockNote } from "../prose";
import type { SideBook } from "../../contract/sideProfile";
import {
  controlCostModel,
  headlineModel,
  readmeModel,
  sameClockModel,
  throughputHead,
  type ControlCostModel,
  type HeadlineModel,
  type OpenModelRow,
  type ReadmeModel,
  type SameClockModel,
  type StageCell,
  type ThroughputCell,
} from "../model";
import { ms, rate, signedMs, table, triple } from "../format";

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
/** A row whose failures exceed FLAG_FAILURE_SHARE of its attempts carries FLAG beside its error count. */
const FLAG = "⚠";
/** n, then errors and samples whose cold flag contradicts the stage: not cold on a create or wake, a restart elsewhere. */
export const counts = (c: StageCell | null) =>
  c ? [String(c.n), `${c.errors}${c.flagged ? ` ${FLAG}` : ""} / ${c.wrongCold}`] : ["-", "-"];

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
  return `${headlineNote(
    sides.filter((side) => book.get(side).role === "control").map((side) => book.get(side).about),
    FLAG,
    FLAG_FAILURE_SHARE,
  )}\n\n${head}${tpTable}${renderOpenModel(model.open, book)}`;
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
export function chartCreates(book: SideBook): string[] {
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
