import { stageKey, stageSamples } from "../contract/runDirContract";
import { capacityCurves, type CapacityCurve } from "../stats/capacity";
import { sideBookOf } from "../contract/sideProfile";
import { msTick, summarizeRun, type RunSummary } from "../stats/summary";
import { verifyRunDir, type ManifestLike } from "../contract/verify";
import { CLIENT_TICK_MS } from "../contract/catalog";
import { ms, rateHeld, table } from "./format";
import {
  bracket,
  FALSE_DISCOVERY_RATE,
  notInBoth,
  POWER,
  sharingText,
  verdictText,
  type CompareRow,
  type StageStats,
} from "../stats/compareRows";
import { capacityRows, comparison, type CapacityHeld, type ComparedRun } from "./comparison";
export { abOf, comparisonWarnings, interleaved, machineDifferences, type AbSettings } from "./comparison";
import type { RepSpread } from "../stats/repetitions";

/** The key of a stage's second clock (a side's own, where it is not the driver's), shown and never tested. */
const ownClockKey = (key: string) => `${key} (own clock)`;

const asStats = (r: { n: number }, s: RepSpread, tick: number, clock: string, descriptive = false): StageStats => ({
  n: r.n,
  reps: s.perRep,
  perRepN: s.perRepN,
  tick,
  clock,
  ...(descriptive ? { descriptive } : {}),
});

/**
 * Per compared row, in stage order: each repetition's percentiles on the
 * driver's clock (the one clock of every side), and where a side's own clock
 * is another, that clock as a descriptive row after it.
 */
export function stageStats(s: RunSummary): Record<string, StageStats> {
  const out: Record<string, StageStats> = {};
  for (const r of s.rows) {
    const key = stageKey(r.side, r.metric);
    const side = s.sides.get(r.side);
    if (r.clientRepetitions) {
      out[key] = asStats(r, r.clientRepetitions, CLIENT_TICK_MS, "client round trip");
      out[ownClockKey(key)] = asStats(r, r.repetitions, msTick(side, r.metric), side.clock, true);
    } else {
      out[key] = asStats(r, r.repetitions, msTick(side, r.metric), "client round trip");
    }
  }
  return out;
}

/** A run directory's manifest, its rows' statistics and its capacity curves, verified first. */
export function runStats(dir: string): ComparedRun {
  const m = verifyRunDir(dir);
  return { m, stats: stageStats(summarizeRun(dir, m)), capacity: runCapacity(dir, m) };
}

/** How many rows of each verdict a comparison has, per quantile. */
function verdictCounts(rows: readonly CompareRow[], q: CompareRow["q"]) {
  const of = rows.filter((r) => r.q === q);
  const n = (v: CompareRow["verdict"]) => of.filter((r) => r.verdict === v).length;
  return {
    rows: of.length,
    different: n("different"),
    "not detected": n("not detected"),
    "cannot tell": n("cannot tell"),
    descriptive: n("descriptive"),
  };
}

const ratio = (x: number | null) => (x === null ? "-" : x.toFixed(2));

/** The comparison as Markdown, for `npm run compare` and `npm run ab`. */
export function comparisonMarkdown(dirA: string, dirB: string, a: ComparedRun, b: ComparedRun): { markdown: string; rows: CompareRow[] } {
  const c = comparison(a, b);
  const { paired, rows, warnings } = c;
  const lines = rows.map((r) => [
    r.key,
    r.q,
    ms(r.a),
    ms(r.b),
    ratio(r.ratio),
    bracket(r.ratioCi) || "-",
    r.detectable === null ? "-" : `${ratio(r.detectable)} or ${ratio(1 / r.detectable)}`,
    `${r.kA} / ${r.kB}`,
    verdictText(r),
  ]);
  const counts = (["p50", "p90", "p99"] as const).map((q) => {
    const n = verdictCounts(rows, q);
    return `${q}${q === "p50" ? " (the primary family)" : ""}: ${n.different} of ${n.rows - n.descriptive} rows a real difference, ${n["not detected"]} not detected, ${n["cannot tell"]} cannot tell`;
  });
  const sharing = (["p50", "p90", "p99"] as const).map((q) => sharingText(rows, q));
  const only = notInBoth(a.stats, b.stats);
  const markdown =
    `A: ${dirA}\nB: ${dirB}\n${paired ? `Paired: the two arms of one interleaved session (${c.order!.join(" ")})\n` : ""}` +
    (warnings.length ? `\nWarnings:\n${warnings.map((w) => `- ${w}`).join("\n")}\n` : "") +
    `\n${table(["metric", "q", "A ms", "B ms", "B/A", "B/A 95% interval", `detectable at ${POWER * 100}% power (B/A)`, "repetitions A / B", "verdict"], lines)}\n\n${counts.join("\n")}\n\nShared between rows:\n${sharing.map((l) => `- ${l}`).join("\n")}\n\n${howCompared(paired)}${only.length ? `\n\nNot in both runs: ${only.join(", ")}` : ""}\n`;
  return { markdown, rows };
}

/** How a comparison tested its rows, in words, under the CLI's table. */
function howCompared(paired: boolean): string {
  return (
    `A and B are the geometric means of each run's repetition values, and B/A is their ratio, the quantity tested: a ${paired ? "paired t test on the log differences of repetitions run side by side" : "Welch t test on the logs of the repetitions' values"}, ` +
    `each row's variance never below the clock's rounding and borrowing from its family's rows of a like spread (a nonparametric prior fitted to the other rows, smoothed, and tempered the more the rows' spreads differ; a row the others' prior puts in its outer 1% keeps its own variance alone). Each quantile is one family; a row is a real difference only when it passes Benjamini-Hochberg at a ${FALSE_DISCOVERY_RATE * 100}% false discovery rate over its family. ` +
    `The 95% interval is the row's own; the verdict's interval is at the level that selection used (Benjamini-Yekutieli: 1 - R x ${FALSE_DISCOVERY_RATE} / m for the R rows called real of m tested, 1 - (R + 1) x ${FALSE_DISCOVERY_RATE} / m for the rest), so a row called real excludes 1 and a row not detected holds it. ` +
    `"Detectable" is the smallest ratio (slower or faster) the row would have been called real at with ${POWER * 100}% power (under the row's shared spread), were it the only row of its family that changed: a row "not detected" may still have changed by less. ` +
    "Rows on a second clock (a side's own, where it is not the driver's) are shown and not tested: every side is tested on the driver's clock."
  );
}

/** A verified run's capacity curves, from its raw samples. */
function runCapacity(dir: string, m: ManifestLike): CapacityCurve[] {
  return capacityCurves(Object.values(m.stages), (st) => stageSamples(dir, m, st), sideBookOf(m).order);
}

/** Each side's and operation's rate held in A and in B, with whether their 95% intervals overlap; empty when neither run has a capacity group. */
export function capacityComparison(a: readonly CapacityHeld[], b: readonly CapacityHeld[]): string {
  const rows = capacityRows(a, b);
  if (rows.length === 0) return "";
  return `\nCapacity: the rate held [95% interval] in each run, and whether the intervals overlap (an overlap is agreement within the stated intervals, not a test):\n\n${table(
    ["side and operation", "A", "B", "verdict"],
    rows.map((r) => [r.key, r.a ? rateHeld(r.a) : "-", r.b ? rateHeld(r.b) : "-", r.verdict]),
  )}\n`;
}

/** Markdown: the comparison of two run directories. */
export function compareRuns(dirA: string, dirB: string): string {
  const a = runStats(dirA);
  const b = runStats(dirB);
  return comparisonMarkdown(dirA, dirB, a, b).markdown + capacityComparison(a.capacity, b.capacity);
}
