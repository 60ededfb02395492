import { describeMachineLimit, flagged, FLAG_FAILURE_SHARE, type MachineLimitNote } from "../contract/machineLimits";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { verifyRunDir, type ManifestLike } from "../contract/verify";
import { stageReps, stageSamples, unendedRepetition, stageKey, type RepStage, type StageRecord } from "../contract/runDirContract";
import { clientPercentiles, orderedStages, statsOf, summarizeRun, type RawSample, type RunSummary, type SummaryRow } from "../stats/summary";
import { CATALOG, CLIENT_TICK_MS, isColdMetric, RUNTIMES, SCALE_BURST_CONCURRENCY, SIDE_CLOCKS, SIDE_NAMES, SIDE_SHORT, SIDE_WORDS, SIDES, THROUGHPUT_HEAD, THROUGHPUT_METHOD, type Side } from "../contract/catalog";
import { scaleRows, type ScaleRow } from "../stats/scale";
import { ci, codeBlock, codeSpan, escapeMd, ms, rate, signedMs, table, triple } from "./format";
import { renderCharts } from "./charts";
import { ANALYTICS_FILE, inDoBlocks, readAnalyticsLines, type InDoBlock } from "../stats/inDo";
import { geometricMean, groupByRep, repSpread } from "../stats/repetitions";
import { CALIBRATION_MEASURES, calibrationMedian, readCalibration, type CalibrationMeasure } from "../stats/calibration";

export interface Report {
  summary: RunSummary;
  markdown: string;
  headline: string;
  /** The README's shorter headline (readmeHeadlineMarkdown). */
  readmeHeadline: string;
}

/**
 * The README's headline: at most six columns, the same clock first (the
 * driver's round trip on every side), the Durable Object's reference clock
 * beside it, p50 / p99, and one line for failures and cold proofs.
 */
export function readmeHeadlineMarkdown(s: RunSummary, samples: Map<string, RawSample[]>): string {
  const measured = new Set(s.rows.map((r) => r.side));
  const pair = (p: { p50: number; p99: number } | null | undefined) => (p ? `${ms(p.p50)} / ${ms(p.p99)}` : "-");
  const rows: string[][] = [];
  for (const e of CATALOG) {
    if (!e.label || e.kind === "baseline") continue;
    const client = (side: Side) => (measured.has(side) ? clientPercentiles(samples, side, e.id) : null);
    const worker = s.rows.find((r) => r.side === "cloudflare" && r.metric === e.id);
    const cells = [pair(client("rivet")), pair(client("cloudflare")), pair(worker), pair(client("floor"))];
    if (cells.every((c) => c === "-")) continue;
    const ns = [...new Set(s.rows.filter((r) => r.metric === e.id).map((r) => r.n))];
    rows.push([e.label, ...cells, ns.join(" / ")]);
  }
  if (rows.length === 0) return "This run measured no headline metric.";
  const sum = (k: "errors" | "notCold" | "restarts") => s.rows.reduce((t, r) => t + r[k], 0);
  const proof = `Over every row of the run: failed calls ${sum("errors")}, creates or wakes not proven cold ${sum("notCold")}, restarts inside a series ${sum("restarts")}.`;
  return (
    "Milliseconds, p50 / p99, nearest rank. The client columns are one clock on every side (the driver's process.hrtime from send to full reply); the Worker column is the Durable Object on the reference's clock (the Worker's Date.now() around the awaited DO call, whole ms). " +
    `${proof}

` +
    table(["Metric", SIDE_WORDS.rivet.clientColumn, SIDE_WORDS.cloudflare.clientColumn, SIDE_WORDS.cloudflare.ownColumn, SIDE_WORDS.floor.clientColumn, "n"], rows)
  );
}

export type Loaded = { m: ManifestLike; samples: Map<string, RawSample[]>; summary: RunSummary; inDo: InDoBlock[] };

export function loadRun(dir: string): Loaded {
  const m = verifyRunDir(dir);
  const samples = new Map<string, RawSample[]>();
  for (const s of orderedStages(m)) samples.set(stageKey(s.side, s.metric), stageSamples(dir, m, m.stages[stageKey(s.side, s.metric)]));
  const summary = summarizeRun(dir, m, (f) => {
    const st = Object.values(m.stages).find((x) => x.file === f)!;
    return samples.get(stageKey(st.side, st.metric))!;
  });
  const inDo = Object.keys(m.files)
    .filter((f) => ANALYTICS_FILE.test(f))
    .flatMap((f) => inDoBlocks(readAnalyticsLines(readFileSync(join(dir, f), "utf8"), f)));
  return { m, samples, summary, inDo };
}

const row = (s: RunSummary, side: string, metric: string) => s.rows.find((r) => r.side === side && r.metric === metric);

/** n, then errors and samples whose cold flag contradicts the stage: not cold on a create or wake, a restart elsewhere. */
/** A row whose failures exceed FLAG_FAILURE_SHARE of its attempts carries FLAG beside its error count. */
export const FLAG = "⚠";
const counts = (r: SummaryRow | undefined) =>
  r ? [String(r.n), `${r.errors}${flagged(r.n + r.errors + r.notCold, r.errors) ? ` ${FLAG}` : ""} / ${isColdMetric(r.metric) ? r.notCold : r.restarts}`] : ["-", "-"];

/** A table's side columns: both runtimes always (a side not run shows "-"), any other side (the floor) where the run measured it. */
export function tableSides(measured: ReadonlySet<string>): Side[] {
  return [...RUNTIMES, ...SIDES.filter((x) => !(RUNTIMES as readonly Side[]).includes(x) && measured.has(x))];
}

/**
 * The headline in the reference's shape: raw round trips, p50 / p90 / p99,
 * both sides side by side, each column naming its clock; n with errors and
 * wrong cold flags beside it.
 */
export function headlineMarkdown(s: RunSummary, samples: Map<string, RawSample[]> = new Map()): string {
  const sides = tableSides(new Set(s.rows.map((r) => r.side)));
  const rows: string[][] = [];
  for (const e of CATALOG) {
    if (!e.label || rows.some((r) => r[0] === e.label)) continue;
    const per = sides.map((side) => row(s, side, e.id));
    if (per.every((r) => !r)) continue;
    rows.push([e.label, ...per.flatMap((r) => [r ? triple(r.p50, r.p90, r.p99) : "-", ...counts(r)])]);
    if (e.inActor) {
      // The actor's own interval: a side whose actor reports none (the DO, timed only by the Worker) shows "-".
      const cells = sides.flatMap((side) => {
        const p = statsOf(samples, side, e.id)?.interval(e.inActor!.field);
        if (!p) return ["-", "-", "-"];
        return [triple(p.p50, p.p90, p.p99), String(p.n), "-"];
      });
      if (cells.some((c) => c !== "-")) rows.push([e.inActor.label, ...cells]);
    }
  }
  const head = table(["Metric", ...sides.flatMap((side) => [`${SIDE_NAMES[side]}: ${SIDE_CLOCKS[side]}`, "n", "errors / cold flag wrong"])], rows);
  const hasFloor = sides.includes("floor");
  const tp: string[][] = [];
  for (const e of CATALOG.filter((x) => x.throughputLabel)) {
    const metric = e.id;
    const r = s.throughput.find((t) => t.side === "rivet" && t.metric === metric);
    const cl = s.throughput.find((t) => t.side === "cloudflare" && t.metric === metric && t.method === "littles-law");
    const cm = s.throughput.find((t) => t.side === "cloudflare" && t.metric === metric && t.method === "measured");
    const f = s.throughput.find((t) => t.side === "floor" && t.metric === metric);
    if (!r && !cl && !f) continue;
    tp.push([
      e.throughputLabel!,
      r ? `${rate(r.perSecond)}/s (${r.errors} errors of ${r.attempts})` : "-",
      cl && cm ? `${rate(cl.perSecond)}/s (${cl.errors} errors of ${cl.attempts}); measured by the driver: ${rate(cm.perSecond)}/s` : "-",
      ...(hasFloor ? [f ? `${rate(f.perSecond)}/s (${f.errors} errors of ${f.attempts})` : "-"] : []),
    ]);
  }
  const tpSide = (side: Side) => `${SIDE_SHORT[side]} (${THROUGHPUT_HEAD[THROUGHPUT_METHOD[side]]})`;
  const tpHead = ["Throughput (closed loop, the reference's bursts)", tpSide("rivet"), tpSide("cloudflare"), ...(hasFloor ? [tpSide("floor")] : [])];
  const tpTable = tp.length ? `\n\n${table(tpHead, tp)}` : "";
  return (
    "Milliseconds, p50 / p90 / p99, nearest rank, no trimming. Each side on its own clock, as the reference measures it; the same-clock table in the report puts the client's round trip on both sides. " +
    (hasFloor ? "The floor is the same operations on a plain Node server over one SQLite file per key, with no actor system: the least this machine can do them in. " : "") +
    `n is the samples the percentiles are taken over; failures are counted, never retried, and left out (${FLAG}: more than ${FLAG_FAILURE_SHARE * 100}% of the stage's attempts failed; the caveats say why). ` +
    "A create or wake counts only when the actor proves a fresh instance (the others are \"cold flag wrong\" and left out); on any other row \"cold flag wrong\" counts calls that hit a restarted instance, which stay in n.\n\n" +
    `${head}${tpTable}${openModelMarkdown(s)}`
  );
}

/**
 * Each runtime's cost over the floor, on one clock (the driver's round trip
 * on all three): p50 minus the floor's p50, and the ratio of the two.
 */
export function floorCostMarkdown(samples: Map<string, RawSample[]>): string {
  const rows: string[][] = [];
  for (const e of CATALOG) {
    if (!e.label || e.kind === "baseline" || !e.sides.includes("floor") || rows.some((r) => r[0] === e.label)) continue;
    const f = clientPercentiles(samples, "floor", e.id);
    if (!f) continue;
    const cells = RUNTIMES.flatMap((side) => {
      const p = clientPercentiles(samples, side, e.id);
      return p ? [ms(p.p50), signedMs(p.p50 - f.p50), f.p50 > 0 ? `${(p.p50 / f.p50).toFixed(1)}x` : "-"] : ["-", "-", "-"];
    });
    rows.push([e.label, triple(f.p50, f.p90, f.p99), String(f.n), ...cells]);
  }
  if (rows.length === 0) return "";
  return (
    "## Cost over the floor\n\n" +
    "The floor does each operation with no actor system: one plain Node http server on this machine, the driver's own client and protocol, one SQLite file per key (a create opens a new file, a wake reopens a closed one, a write is answered after its commit is fsynced). " +
    "Every column here is the driver's round trip (process.hrtime, send to full reply), so the three are on one clock; a runtime's p50 minus the floor's is what its actor system adds on this machine. " +
    "A negative difference means the runtime did less than the floor for that row (for instance a write it acknowledges before an fsync).\n\n" +
    table(["Metric", `${SIDE_WORDS.floor.clientColumn} p50 / p90 / p99`, "n", `${SIDE_WORDS.rivet.clientColumn} p50`, "minus floor", "ratio", `${SIDE_WORDS.cloudflare.clientColumn} p50`, "minus floor", "ratio"], rows)
  );
}

/** Open-model rows: creates sent at a constant rate, latency from each one's intended send time. */
export function openModelMarkdown(s: RunSummary): string {
  const rows: string[][] = [];
  for (const t of s.throughput.filter((x) => x.method === "open-model")) {
    const r = row(s, t.side, t.metric);
    rows.push([
      SIDE_NAMES[t.side as Side] ?? t.side,
      `${rate(t.targetPerSecond ?? NaN)}/s`,
      `${rate(t.perSecond)}/s`,
      `${t.errors} of ${t.attempts}`,
      r ? triple(r.p50, r.p90, r.p99) : "-",
      r ? String(r.n) : "-",
    ]);
  }
  if (rows.length === 0) return "";
  return `\n\n${table(["Open model: creates at a constant arrival rate", "sent at", "completed", "errors", "ms from the intended send, p50 / p90 / p99", "n"], rows)}\n\nIn the open model a request goes out at its scheduled time whether or not earlier ones have answered, and its latency counts from that time (as wrk2 does), so a runtime that cannot keep up shows growing latency instead of a lower send rate. Client clock on every side.`;
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
    return "The run made one repetition, so no interval is printed: the samples of one run share its runtime and machine state, and an interval over them would promise a precision the next run does not keep. Repeat the plan (`--repeat 3` or more) for intervals over fresh runtimes.";
  }
  const judged = rows.filter((r) => r.repetitions.dominant !== null);
  const between = judged.filter((r) => r.repetitions.dominant === "between").length;
  const orders = (m.repetitions ?? []).map((r) => r.order.map((x) => escapeMd(x)).join(", ")).join("; ");
  return (
    `This run repeated its plan ${k} times, every side's runtime started afresh each time, in these orders: ${orders}. ` +
    `Brackets: the 95% interval, over the ${k} repetitions, of the percentile a fresh run gives (the geometric mean of the repetitions' values): a t interval on their logarithms with ${k - 1} degrees of freedom, which covers 95% at any number of repetitions (checked by simulation at 3, 5 and 10). ` +
    "Where there is none, the cell says why: a percentile of fewer samples a repetition than it needs is each repetition's maximum (a p99 of under 100), and a clock that steps in whole milliseconds cannot carry values of a few steps. " +
    `The per-repetition p50s and their coefficient of variation (CV) show the spread; "variance mostly" says whether the repetitions' p50s differ by more than twice what their own sampling error explains (between repetitions) or not (within a run): ${between} of ${judged.length} rows vary mostly between repetitions.`
  );
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
      rows.push([r.metric, String(r.n), String(r.errors), String(r.notCold), `${ms(r.p50)} ${ci(c.ci.p50)}`, `${ms(r.p90)} ${ci(c.ci.p90)}`, `${ms(r.p99)} ${ci(c.ci.p99)}`, ...clientCell, ms(r.mean), c.perRep.p50.map(ms).join(", ") || "-", cv(c.cv), c.dominant ? LEVEL_TEXT[c.dominant] : "-"]);
    }
    if (rows.length === 0) continue;
    const clientHead = client ? ["client round trip p50, geometric mean of the repetitions [95%]"] : [];
    out.push(`### ${SIDE_NAMES[side as Side] ?? side}\n\n${table(["metric", "n", "errors", "notCold", "p50 [95% interval]", "p90 [95% interval]", "p99 [95% interval]", ...clientHead, "mean", "p50 per repetition", "CV of p50s", "variance mostly"], rows)}`);
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
    const c = repSpread(groupByRep(xs, (s) => s[field] as number), CLIENT_TICK_MS);
    rows.push([metric, String(p.n), `${ms(p.p50)} ${ci(c.ci.p50)}`, `${ms(p.p90)} ${ci(c.ci.p90)}`, `${ms(p.p99)} ${ci(c.ci.p99)}`, c.perRep.p50.map(ms).join(", ")]);
  }
  return rows.length ? `### ${title}\n\n${table(["metric", "n", "p50 [95% interval]", "p90 [95% interval]", "p99 [95% interval]", "p50 per repetition"], rows)}` : "";
}

/**
 * The same clock on both sides: the driver's round trip (process.hrtime) for
 * every latency metric, beside the client-to-Worker /noop baseline, so the two
 * sides can be read on one clock as well as on the reference's.
 */
export function sameClockMarkdown(samples: Map<string, RawSample[]>): string {
  const noop = clientPercentiles(samples, "cloudflare", "baseline.noop");
  const sides = tableSides(new Set([...samples.keys()].map((k) => k.split(".")[0])));
  const rows: string[][] = [];
  for (const e of CATALOG) {
    if (!e.label || e.kind === "baseline" || rows.some((r) => r[0] === e.label)) continue;
    const cells = sides.flatMap((side) => {
      const p = clientPercentiles(samples, side, e.id);
      return p ? [triple(p.p50, p.p90, p.p99), String(p.n)] : ["-", "-"];
    });
    if (cells.every((c) => c === "-")) continue;
    const c = clientPercentiles(samples, "cloudflare", e.id);
    rows.push([e.label, ...cells, c && noop ? ms(c.p50 - noop.p50) : "-"]);
  }
  if (rows.length === 0) return "";
  const baseLine = noop
    ? `Baseline: the client's round trip to the Worker with no DO call (/noop), p50 / p90 / p99 ${triple(noop.p50, noop.p90, noop.p99)} ms over ${noop.n} calls.`
    : "No /noop baseline in this run (the DO side's warm group takes it).";
  return (
    "## Same clock: the client's round trip on both sides\n\n" +
    "Milliseconds, p50 / p90 / p99, nearest rank, all timed by the load driver with process.hrtime from send to full reply: through the Engine gateway on the Rivet side, through the Worker (which then calls the DO) on the Durable Object side" +
    (sides.includes("floor") ? ", straight to the floor server on the floor side. " : ". ") +
    `${baseLine}\n\n` +
    table(["Metric", ...sides.flatMap((side) => [SIDE_WORDS[side].clientColumn, "n"]), "DO client p50 minus /noop p50"], rows)
  );
}

/** Cost as the work grows: the scaling group, per side and level, on the driver's clock for creates and bursts. */
export function scaleMarkdown(m: ManifestLike, s: RunSummary): string {
  const rows = scaleRows(m, s);
  if (rows.length === 0) return "";
  const lines: string[][] = [];
  for (const side of [...new Set(rows.map((r) => r.side))]) {
    for (const level of [...new Set(rows.filter((r) => r.side === side).map((r) => r.level))]) {
      const at = (op: ScaleRow["op"]) => rows.find((r) => r.side === side && r.level === level && r.op === op);
      const lat = (r: ScaleRow | undefined) => (r ? `${ms(r.p50)} / ${ms(r.p99)} (n ${r.n}${r.errors ? `, ${r.errors} errors` : ""})` : "-");
      const b = at("burst");
      const existing = at("wake")?.existing ?? at("create")?.existing;
      lines.push([SIDE_NAMES[side], level.toLocaleString("en-US"), existing === null || existing === undefined ? "-" : existing.toLocaleString("en-US"), lat(at("wake")), lat(at("create")), b && b.perSecond !== null ? `${rate(b.perSecond)}/s (${b.errors} errors of ${b.n + b.errors})` : "-"]);
    }
  }
  return (
    "## Cost as the work grows\n\n" +
    `At each level the run first makes that many more actors (plain, left asleep), then wakes a set of sleeping actors one at a time, creates new ones one at a time, and creates a burst at concurrency ${SCALE_BURST_CONCURRENCY}. The wakes start with all of the run's actors asleep; the creates and the burst follow at once, with the woken set still awake. "Actors existing" counts every actor of the run on that side as the wakes began, earlier groups' included. Each side on its own clock (as in the headline); burst rates are the driver's measured completions per second on every side.\n\n` +
    table(["side", "level", "actors existing", "wake p50 / p99 ms", "create p50 / p99 ms", `burst c${SCALE_BURST_CONCURRENCY} (measured)`], lines)
  );
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
  const rows: string[][] = [];
  const seen = new Set<string>();
  const multi = repetitionCount(m) > 1;
  for (const part of orderedStages(m).flatMap((st) => stageReps(m.stages[stageKey(st.side, st.metric)]).map((r) => ({ ...st, rep: r.rep, notes: r.notes })))) {
    const st = part;
    const s = part.notes?.startState as StartNote | undefined;
    const n = (x: unknown) => typeof x === "number" && Number.isFinite(x);
    // A note of another shape (an older run, a hand-edited record) is not shown rather than misread.
    if (!s || typeof s.group !== "string" || !n(s.before?.existing) || !n(s.before?.awake) || !n(s.atStart?.awake) || !n(s.settleMs) || !n(s.sleepFailures)) continue;
    if (seen.has(`${st.side}.${s.group}.${part.rep}`)) continue;
    seen.add(`${st.side}.${s.group}.${part.rep}`);
    rows.push([SIDE_NAMES[st.side as Side] ?? st.side, escapeMd(s.group) + (multi ? ` (repetition ${part.rep + 1})` : ""), String(s.before.existing), String(s.before.awake), String(s.atStart.awake), (s.settleMs / 1000).toFixed(1), String(s.sleepFailures)]);
  }
  if (rows.length === 0) return "";
  return (
    "## What each group started from\n\n" +
    "A group's figures should not depend on which groups ran before it. So every group starts with every actor the run made before it asleep, on every side: the Rivet Engine reports them asleep (sleep_ts) after the awake ones are told to sleep, the floor closes their files, and on the Durable Object side, which has no sleep call, the group waits (holding the machine) until the last call to any of them is older than the idle eviction. " +
    "What is not reset is how many actors exist: later groups run on a runtime holding more (asleep) actors, and each stage record keeps the count (notes.startState).\n\n" +
    table(["side", "group", "actors of the run when reached", "awake then", "awake at the start", "seconds to put them to sleep", "sleep calls failed"], rows)
  );
}

/** The differences between the sides, as each side's adapter states them (manifest settings.<side>.adapter). */
export function differencesMarkdown(m: ManifestLike): string {
  const props = (side: Side) => ((m.settings?.[side] as { adapter?: Record<string, string> } | undefined)?.adapter ?? null);
  const sides = SIDES.filter((side) => props(side));
  if (sides.length === 0) return "";
  const keys = [...new Set(sides.flatMap((side) => Object.keys(props(side)!)))];
  const rows = keys.map((k) => [escapeMd(k), ...sides.map((side) => escapeMd(props(side)![k] ?? "-"))]);
  // The client is the same object on every side; its own description, as the manifest has it, shows that.
  const client = (side: Side) => (m.settings?.[side] as { client?: unknown } | undefined)?.client;
  if (sides.some((side) => typeof client(side) === "string")) rows.unshift(["timed calls' client", ...sides.map((side) => escapeMd(typeof client(side) === "string" ? (client(side) as string) : "-"))]);
  return `## How the sides differ\n\nThe stages are written once for both sides; what cannot be the same is stated by each side's adapter and recorded in the manifest. This table is that record.\n\n${table(["", ...sides.map((side) => SIDE_NAMES[side])], rows)}`;
}

/** Cloudflare's own wall time inside the DO, per block of calls (one stage), from the stored analytics responses. */
export function inDoTable(blocks: readonly InDoBlock[]): string {
  if (blocks.length === 0) return "";
  const rows: string[][] = [];
  for (const b of blocks) {
    // Every field here comes from a stored analytics response: shown literally, never as Markdown.
    const window = escapeMd(`${String(b.window.from).slice(11, 19)}-${String(b.window.to).slice(11, 19)}`);
    const block = escapeMd(String(b.block).replace(/^cloudflare\./, ""));
    if (b.groups.length === 0) rows.push([block, window, escapeMd(b.calls), "0", "-", "-", "-", "-", "-", "-"]);
    for (const g of b.groups) {
      rows.push([block, window, escapeMd(b.calls), escapeMd(g.requests), escapeMd(g.errors), escapeMd(g.colo), ms(g.meanMs), ms(g.p50Ms), ms(g.p90Ms), ms(g.p99Ms)]);
    }
  }
  const short = blocks.filter((b) => b.groups.reduce((s, g) => s + g.requests, 0) < b.calls).map((b) => escapeMd(b.block));
  return (
    "### In the DO: Cloudflare's wall time per block of calls (GraphQL analytics)\n\n" +
    "One block is one stage. Cloudflare aggregates each block's DO invocations over its window (UTC, widened to whole seconds, so calls made just before or after the stage in the same second are counted too) and reports the quantiles itself; they are its figures, not nearest rank over our samples.\n\n" +
    table(["metric", "window (UTC)", "Worker-timed calls", "DO invocations", "errors", "colo", "mean", "p50", "p90", "p99"], rows) +
    (short.length ? `\n\nAnalytics counted fewer invocations than the Worker made calls for ${short.join(", ")} when they were last asked.` : "")
  );
}

/** Every stage's part in every repetition, with the stage's side and metric: where the notes are. */
export function stageParts(m: ManifestLike): Array<RepStage & Pick<StageRecord, "side" | "metric">> {
  return Object.values(m.stages).flatMap((st) => stageReps(st).map((r) => ({ ...r, side: st.side, metric: st.metric })));
}

/** "rivet wake.ping" or, in a run of several repetitions, "rivet wake.ping (repetition 2)". */
const partName = (m: ManifestLike, p: { side: string; metric: string; rep: number }) => `${p.side} ${p.metric}${repetitionCount(m) > 1 ? ` (repetition ${p.rep + 1})` : ""}`;

/**
 * What a run that did not complete measured and why it stopped: its status,
 * the stages that ended early (a runtime lost, samples that could not be
 * written), and samples kept of a stage that never ended. Empty for a complete run.
 */
export function partialRun(m: ManifestLike): string[] {
  if (!m.status || m.status === "complete") return [];
  const out: string[] = [];
  if (m.status === "running") {
    out.push("This run is partial: it never finished (its driver was killed or its machine stopped before it recorded an end). Only the stages recorded before that are reported; samples written after the last checkpoint are not under a hash and are left out.");
  } else {
    out.push(`This run is partial: its status is "${escapeMd(String(m.status))}".${m.failure ? ` Why: ${escapeMd(m.failure.split("\n").join("; ").slice(0, 800))}` : ""}`);
  }
  const early = stageParts(m).filter((p) => p.status === "failed");
  if (early.length) out.push(`Stages that ended early, with every sample taken before the fault kept: ${early.map((p) => `${partName(m, p)}: ${escapeMd(String(p.failure ?? "?").slice(0, 300))}`).join("; ")}.`);
  const recorded = new Set(Object.values(m.stages).map((s) => s.file));
  const unended = Object.keys(m.files).filter((f) => f.startsWith("raw/") && f.endsWith(".jsonl") && !recorded.has(f));
  const rep = unendedRepetition(m);
  const cut = Object.values(m.stages).filter((s) => rep !== null && s.repetitions && !s.repetitions.some((r) => r.rep === rep) && m.files[s.file]);
  if (unended.length || cut.length) {
    out.push(`Samples of a stage that never ended are kept under their hash and left out of every figure: ${[...unended.map((f) => `${codeSpan(f)} (${m.files[f].lines} samples)`), ...cut.map((s) => `${codeSpan(s.file)} (repetition ${rep! + 1})`)].join(", ")}.`);
  }
  return out;
}

/** Caveats that follow from the run's own manifest, nothing typed per run. */
export function caveats(m: ManifestLike): string[] {
  const out: string[] = [...partialRun(m), ...plantedCaveats(m)];
  const sides = new Set(Object.values(m.stages).map((s) => s.side));
  if (m.stack === "local") {
    out.push("A local run: the Rivet Engine, the RivetKit app, workerd and the load driver all ran on this one machine, one side after the other, sharing its cores. These are the software's costs on a small machine, not what either cloud gives.");
    out.push("No replication: the Engine stores on one local file system and the DO's SQLite is a local file; neither waits for other zones.");
    if (sides.has("floor")) out.push("The floor ran on the same machine in the same run, after or before the runtimes, never beside them: it shares nothing with them but the machine.");
    if (sides.has("cloudflare")) {
      out.push("The Durable Object side ran on local workerd, which does not freeze timers and whose Date.now() steps in whole milliseconds: DO figures are integers and sub-millisecond calls read 0 or 1. They are not Cloudflare's figures.");
      out.push("No in-DO wall times: they come from Cloudflare's analytics on a cloud stack; local workerd has none. The DO side's in-system figure is the Worker-timed call, with the driver's own round trip (third clock) beside it.");
    }
  }
  if (m.stack !== "local" && sides.has("cloudflare")) {
    out.push("On Cloudflare a Worker's Date.now() advances only across I/O, so the Worker-timed figure is the awaited DO round trip at whole-millisecond resolution; the Worker's own CPU time is not in it.");
    if (!Object.keys(m.files).some((f) => ANALYTICS_FILE.test(f))) out.push("No in-DO wall times in this run: Cloudflare's analytics were not stored with it.");
  }
  const rivet = (m.settings as { rivet?: { loopback?: { quickack?: boolean | null; privateNetns?: boolean }; engineEnv?: { RUST_BACKTRACE?: string } } } | undefined)?.rivet;
  if (rivet?.loopback?.quickack) out.push(`Delayed ACKs were off on the loopback route (quickack 1${rivet.loopback.privateNetns ? ", in a private network namespace" : ""}); see docs/engine-latency.md.`);
  else if (rivet) out.push("Delayed ACKs were on (the host's default loopback route): creates include 40 ms delayed-ACK stalls on the app's connection; see docs/engine-latency.md.");
  if (rivet?.engineEnv?.RUST_BACKTRACE === "removed") out.push("The Engine and the app ran without RUST_BACKTRACE.");
  const parts = stageParts(m);
  const limited = parts.filter((s) => s.notes?.machineLimit);
  if (limited.length) {
    const runtimeOf = (side: string) => SIDE_WORDS[side as Side]?.runtimeProcess ?? "runtime";
    out.push(
      `A local artifact, not either runtime's behaviour: these stages failed on a limit of the machine the run was on, named by the failures themselves or by the runtime's log while the stage ran: ${limited
        .map((s) => `${partName(m, s)}: ${s.errors} of ${s.attempts} failed; ${escapeMd(describeMachineLimit(s.notes!.machineLimit as MachineLimitNote, runtimeOf(s.side)))}`)
        .join("; ")}.`,
    );
  }
  const errs = Object.values(m.stages).filter((s) => s.errors > 0);
  if (errs.length) out.push(`Failures were counted, not retried, and left out of the percentiles: ${errs.map((s) => `${s.side} ${s.metric} ${s.errors} of ${s.attempts}`).join(", ")}.`);
  const retried = parts.filter((s) => Array.isArray(s.notes?.setupRetries) && (s.notes!.setupRetries as unknown[]).length > 0);
  if (retried.length) {
    out.push(`Setup calls (not samples) that failed with a gateway error were tried once more before these stages: ${retried.map((s) => `${partName(m, s)} (${(s.notes!.setupRetries as string[]).map((r) => escapeMd(String(r).slice(0, 160))).join("; ")})`).join(", ")}. Samples are never retried.`);
  }
  const prep = parts.filter((s) => Number(s.notes?.preparationFailures ?? 0) > 0);
  if (prep.length) {
    out.push(`Actors that could not be prepared were left out of their stage, not retried: ${prep.map((s) => `${partName(m, s)} ${String(s.notes!.preparationFailures)} (e.g. ${escapeMd(String((s.notes!.preparationErrors as string[] | undefined)?.[0] ?? "?").slice(0, 160))})`).join(", ")}.`);
  }
  if (sides.has("cloudflare")) out.push("Durable Object rates use Little's law on the Worker-timed mean, as the reference does; the driver's measured rate is shown beside them.");
  return out;
}

/**
 * Where Cloudflare ran this run's calls: the Worker's data centers from the
 * colo on its replies, the Durable Objects' from the analytics. Empty when
 * neither says (local workerd).
 */
export function placementLine(samples: Map<string, RawSample[]>, inDo: readonly InDoBlock[]): string {
  const workers = new Map<string, number>();
  for (const [key, xs] of samples) {
    if (!key.startsWith("cloudflare.")) continue;
    for (const x of xs) if (x.ok && x.colo) workers.set(x.colo, (workers.get(x.colo) ?? 0) + 1);
  }
  const dos = new Map<string, number>();
  for (const b of inDo) for (const g of b.groups) dos.set(g.colo, (dos.get(g.colo) ?? 0) + g.requests);
  const list = (m: Map<string, number>, unit: string) =>
    [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c, n]) => `${escapeMd(c)} (${n.toLocaleString("en-US")} ${unit})`).join(", ");
  const parts = [
    workers.size ? `the Worker in ${list(workers, "calls")}` : "",
    dos.size ? `the Durable Objects in ${list(dos, "invocations, per Cloudflare's analytics")}` : "",
  ].filter(Boolean);
  return parts.length ? `Where Cloudflare ran it: ${parts.join("; ")}.` : "";
}

/** Which code made the run, from the manifest. */
export function codeLine(m: ManifestLike): string {
  const c = m.code;
  if (!c || !c.commit) return `Code: commit not recorded${c ? ` (${escapeMd(c.source)})` : ""}.`;
  const commit = /^[0-9a-f]{7,64}$/.test(String(c.commit)) ? `\`${String(c.commit).slice(0, 12)}\`` : escapeMd(c.commit);
  return `Code: commit ${commit}${c.dirty ? " with uncommitted changes" : ""} (${escapeMd(c.source)}).`;
}

const json = (x: unknown) => codeBlock("json", JSON.stringify(x, null, 2));

/** A planted delay or an Engine release asked for, per side, first among the caveats: the figures include it. */
export function plantedCaveats(m: ManifestLike): string[] {
  const out: string[] = [];
  for (const [side, st] of Object.entries(m.settings ?? {})) {
    const planted = (st as { plantedDelay?: unknown } | null)?.plantedDelay;
    if (typeof planted === "string") out.push(`**A planted change**, ${escapeMd(SIDE_NAMES[side as Side] ?? side)}: ${escapeMd(planted)}. Every figure of that side includes it.`);
    const release = (st as { engineRelease?: { version?: unknown; sha256?: unknown } } | null)?.engineRelease;
    if (release && typeof release.version === "string") out.push(`The Rivet Engine is release ${escapeMd(release.version)} (asked for with --engine-version; binary sha256 ${escapeMd(String(release.sha256).slice(0, 16))}..., checked against its pin).`);
  }
  const ab = (m.settings as { ab?: { arm?: unknown; partnerRunId?: unknown; id?: unknown } } | undefined)?.ab;
  if (ab && typeof ab.arm === "string") out.push(`Arm ${escapeMd(ab.arm)} of the A/B session ${escapeMd(String(ab.id))}: its repetitions alternated with those of run ${escapeMd(String(ab.partnerRunId))}; the comparison is \`results/${escapeMd(m.stack)}/${escapeMd(String(ab.id))}/comparison.md\`.`);
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
    placementLine(l.samples, l.inDo),
    `## Headline\n\n${headlineMarkdown(l.summary, l.samples)}`,
    charts.length ? `## Charts\n\n${charts.map((c) => `![${c}](charts/${c}.png)`).join("\n\n")}\n\nThe headline chart's request group is each side's median warm round trip (warm.ping); the create and write groups subtract that median from every sample first, so they show the work rather than the hop. Its DO create uses the unique-id create.` : "",
    `## Full tables\n\nFor creates, wakes and bursts only samples whose cold flag proves a fresh instance count (n); the others are \`notCold\`. ${intervalNote(m, l.summary.rows)}\n\n${fullTables(l)}`,
    sameClockMarkdown(l.samples),
    floorCostMarkdown(l.samples),
    [intervalTable(l, "rivet", "actorMs", "In the actor: handler interval (Rivet)"), intervalTable(l, "rivet", "sqlMs", "In the actor: SQL interval around db.execute (Rivet)"), inDoTable(l.inDo)].filter(Boolean).join("\n\n"),
    scaleMarkdown(m, l.summary),
    startStateMarkdown(m),
    differencesMarkdown(m),
    `## Caveats\n\n${caveats(m).map((c) => `- ${c}`).join("\n")}`,
    `## Versions\n\n${table(["component", "version"], Object.entries(m.versions).map(([k, v]) => [escapeMd(k), escapeMd(v)]))}`,
    `## Machine\n\n${json(m.machine)}${calibrationMarkdown(m)}`,
    `## Config\n\n${json(m.config)}`,
    m.settings ? `## Settings\n\n${json(m.settings)}` : "",
  ];
  return parts.filter(Boolean).join("\n\n") + "\n";
}

/**
 * Regenerates <runDir>/report/ from raw/ alone. Verifies every raw file first
 * and writes nothing when one fails. The output depends only on the run
 * directory's files: the same raw files give byte-identical reports.
 */
export async function generateReport(dir: string): Promise<Report> {
  const l = loadRun(dir);
  const tmp = join(dir, "report.tmp");
  rmSync(tmp, { recursive: true, force: true });
  let markdown: string;
  try {
    mkdirSync(join(tmp, "charts"), { recursive: true });
    const charts = await renderCharts(l.m, l.samples, l.summary, join(tmp, "charts"));
    markdown = reportMarkdown(l, charts);
    writeFileSync(join(tmp, "results.md"), markdown);
    writeFileSync(join(tmp, "summary.json"), JSON.stringify({ rows: l.summary.rows, throughput: l.summary.throughput }, null, 2) + "\n");
  } catch (err) {
    // Whatever failed, no half-written report is left beside the old one.
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  rmSync(join(dir, "report"), { recursive: true, force: true });
  renameSync(tmp, join(dir, "report"));
  return { summary: l.summary, markdown, headline: headlineMarkdown(l.summary, l.samples), readmeHeadline: readmeHeadlineMarkdown(l.summary, l.samples) };
}

export function readManifest(dir: string): ManifestLike {
  return JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as ManifestLike;
}
