import { stageKey, stageSamples } from "../contract/runDirContract";
import { capacityCurves, intervalsOverlap, type CapacityCurve } from "../stats/capacity";
import { sideBookOf } from "../contract/sideProfile";
import { msTick, summarizeRun, type RunSummary } from "../stats/summary";
import { verifyRunDir, type ManifestLike } from "../contract/verify";
import { CLIENT_TICK_MS } from "../contract/catalog";
import { ms, rateHeld, table } from "./format";
import { compareRows, FALSE_DISCOVERY_RATE, notInBoth, POWER, verdictText, type CompareRow, type StageStats } from "../stats/compareRows";
import { calibrationDifferences, readCalibration } from "../stats/calibration";
import type { RepSpread } from "../stats/repetitions";

/** The key of a stage's second clock (a side's own, where it is not the driver's), shown and never tested. */
export const ownClockKey = (key: string) => `${key} (own clock)`;

const asStats = (r: { n: number }, s: RepSpread, tick: number, clock: string, descriptive = false): StageStats => ({
  n: r.n, reps: s.perRep, perRepN: s.perRepN, tick, clock, ...(descriptive ? { descriptive } : {}),
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

/** What `npm run ab` writes into each arm's manifest (settings.ab): which comparison, which arm, and its partner. */
export interface AbSettings {
  id: string;
  arm: "A" | "B";
  partnerRunId: string;
  /** The arms in the order their repetitions ran, e.g. A B B A A B ... */
  order: string[];
}

export const abOf = (m: ManifestLike): AbSettings | null => {
  const ab = (m.settings as Record<string, unknown> | undefined)?.ab as AbSettings | undefined;
  return ab && typeof ab.id === "string" && (ab.arm === "A" || ab.arm === "B") ? ab : null;
};

/** Whether two runs are the two arms of one interleaved A/B session, so repetition i of each can be paired. */
export function interleaved(a: ManifestLike, b: ManifestLike): boolean {
  const x = abOf(a);
  const y = abOf(b);
  return !!x && !!y && x.id === y.id && x.arm !== y.arm && x.partnerRunId === b.runId && y.partnerRunId === a.runId;
}

const repeatsOf = (m: ManifestLike) => (Array.isArray(m.repetitions) ? m.repetitions.length : 1);

/** What differs between the two runs besides what was meant to: each a line the reader must weigh. */
export function comparisonWarnings(a: ManifestLike, b: ManifestLike): string[] {
  const out: string[] = [];
  if (a.runId === b.runId && a.startedAt === b.startedAt) out.push("A and B are the same run: every ratio is 1, and only the detectable column says anything (what a second run with the same spread could show)");
  const cfg = (m: ManifestLike) => (m.config ?? {}) as Record<string, unknown>;
  if (a.preset !== b.preset) out.push(`the presets differ (A ${a.preset}, B ${b.preset}): rows of different sample counts are compared`);
  else if (JSON.stringify(cfg(a).counts) !== JSON.stringify(cfg(b).counts)) out.push("the sample counts differ (--samples): a percentile of fewer samples sits lower in its tail");
  if (repeatsOf(a) !== repeatsOf(b)) out.push(`the repetitions differ (A ${repeatsOf(a)}, B ${repeatsOf(b)}): Welch's test, each run's spread its own`);
  const ca = readCalibration((a as { calibration?: unknown }).calibration);
  const cb = readCalibration((b as { calibration?: unknown }).calibration);
  if (ca && cb) out.push(...calibrationDifferences(ca, cb).map((d) => `the machine differs: ${d}`));
  else out.push(`no calibration in ${ca ? "B" : cb ? "A" : "either run"} (made before runs recorded one): whether the machines differ cannot be told`);
  return out;
}

/** A run directory's manifest and its rows' statistics, verified first. */
export function runStats(dir: string): { m: ManifestLike; stats: Record<string, StageStats> } {
  const m = verifyRunDir(dir);
  return { m, stats: stageStats(summarizeRun(dir, m)) };
}

/** How many rows of each verdict a comparison has, per quantile. */
export function verdictCounts(rows: readonly CompareRow[], q: CompareRow["q"]) {
  const of = rows.filter((r) => r.q === q);
  const n = (v: CompareRow["verdict"]) => of.filter((r) => r.verdict === v).length;
  return { rows: of.length, different: n("different"), "not detected": n("not detected"), "cannot tell": n("cannot tell"), descriptive: n("descriptive") };
}

const ratio = (x: number | null) => (x === null ? "-" : x.toFixed(2));

/** The comparison as Markdown, for `npm run compare` and `npm run ab`. */
export function comparisonMarkdown(dirA: string, dirB: string, a: { m: ManifestLike; stats: Record<string, StageStats> }, b: { m: ManifestLike; stats: Record<string, StageStats> }): { markdown: string; rows: CompareRow[] } {
  const paired = interleaved(a.m, b.m);
  const rows = compareRows(a.stats, b.stats, { paired });
  const lines = rows.map((r) => [r.key, r.q, ms(r.a), ms(r.b), ratio(r.ratio), r.detectable === null ? "-" : `${ratio(r.detectable)} or ${ratio(1 / r.detectable)}`, `${r.kA} / ${r.kB}`, verdictText(r)]);
  const counts = (["p50", "p90", "p99"] as const).map((q) => {
    const c = verdictCounts(rows, q);
    return `${q}${q === "p50" ? " (the primary family)" : ""}: ${c.different} of ${c.rows - c.descriptive} rows a real difference, ${c["not detected"]} not detected, ${c["cannot tell"]} cannot tell`;
  });
  const warnings = comparisonWarnings(a.m, b.m);
  if (!paired) warnings.push("A and B were measured in separate sessions: whatever differs between sessions (time of day, the machine's state) is in neither run's spread; `npm run ab` interleaves them and pairs their repetitions");
  const only = notInBoth(a.stats, b.stats);
  const how =
    `A and B are the geometric means of each run's repetition values, and B/A is their ratio, the quantity tested: a ${paired ? "paired t test on the log differences of repetitions run side by side" : "Welch t test on the logs of the repetitions' values"}, ` +
    `each row's variance drawn towards its family's common variance as far as their spread allows, and never below the clock's rounding. Each quantile is one family; a row is a real difference only when it passes Benjamini-Hochberg at a ${FALSE_DISCOVERY_RATE * 100}% false discovery rate over its family. ` +
    `"Detectable" is the smallest ratio (slower or faster) the row would have been called real at with ${POWER * 100}% power, were it the only row of its family that changed: a row "not detected" may still have changed by less. ` +
    "Rows on a second clock (a side's own, where it is not the driver's) are shown and not tested: every side is tested on the driver's clock.";
  const markdown =
    `A: ${dirA}\nB: ${dirB}\n${paired ? `Paired: the two arms of one interleaved session (${abOf(a.m)!.order.join(" ")})\n` : ""}` +
    (warnings.length ? `\nWarnings:\n${warnings.map((w) => `- ${w}`).join("\n")}\n` : "") +
    `\n${table(["metric", "q", "A ms", "B ms", "B/A", `detectable at ${POWER * 100}% power (B/A)`, "repetitions A / B", "verdict"], lines)}\n\n${counts.join("\n")}\n\n${how}${only.length ? `\n\nNot in both runs: ${only.join(", ")}` : ""}\n`;
  return { markdown, rows };
}

/** A verified run's capacity curves, from its raw samples. */
export function runCapacity(dir: string, m: ManifestLike): CapacityCurve[] {
  return capacityCurves(Object.values(m.stages), (st) => stageSamples(dir, m, st), sideBookOf(m).order);
}

/** Each side's and operation's rate held in A and in B, with whether their 95% intervals overlap; empty when neither run has a capacity group. */
export function capacityComparison(a: readonly CapacityCurve[], b: readonly CapacityCurve[]): string {
  const keys = [...new Set([...a, ...b].map((c) => `${c.side} ${c.op}`))];
  if (keys.length === 0) return "";
  const rows = keys.map((k) => {
    const [ca, cb] = [a, b].map((x) => x.find((c) => `${c.side} ${c.op}` === k));
    const overlap = ca && cb ? intervalsOverlap(ca.held, cb.held) : null;
    const objective = ca && cb && (ca.objective.p99Ms !== cb.objective.p99Ms || ca.objective.maxFailureShare !== cb.objective.maxFailureShare) ? "different objectives: not comparable" : null;
    const verdict = objective ?? (!ca || !cb ? "in one run only" : overlap === null ? "cannot tell (an interval is missing)" : overlap ? "agree: the intervals overlap" : "differ: the intervals are apart");
    return [k, ca ? rateHeld(ca.held) : "-", cb ? rateHeld(cb.held) : "-", verdict];
  });
  return `\nCapacity: the rate held [95% interval] in each run, and whether the intervals overlap (an overlap is agreement within the stated intervals, not a test):\n\n${table(["side and operation", "A", "B", "verdict"], rows)}\n`;
}

/** Markdown: the comparison of two run directories. */
export function compareRuns(dirA: string, dirB: string): string {
  const a = runStats(dirA);
  const b = runStats(dirB);
  return comparisonMarkdown(dirA, dirB, a, b).markdown + capacityComparison(runCapacity(dirA, a.m), runCapacity(dirB, b.m));
}
