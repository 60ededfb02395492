import { stageKey } from "../contract/runDirContract";
import { summarizeRun, type RunSummary } from "../stats/summary";
import { verifyRunDir } from "../contract/verify";
import { ms, table } from "./format";
import { compareRows, FALSE_DISCOVERY_RATE, notInBoth, VERDICT_TEXT, type CompareRow, type Interval, type StageStats } from "../stats/compareRows";

/** Per "<side>.<metric>", in stage order: the summary's pooled percentiles, their intervals and each repetition's own. */
export function stageStats(s: RunSummary): Record<string, StageStats> {
  const out: Record<string, StageStats> = {};
  for (const r of s.rows) {
    out[stageKey(r.side, r.metric)] = { n: r.n, p50: r.p50, p90: r.p90, p99: r.p99, ci: r.repetitions.ci, reps: r.repetitions.perRep };
  }
  return out;
}

/** A run directory's stage stats, verified first. */
export function runStats(dir: string): Record<string, StageStats> {
  return stageStats(summarizeRun(dir, verifyRunDir(dir)));
}

const interval = (c: Interval | null) => (c && c.lo !== null && c.hi !== null ? `[${c.lo.toFixed(2)}, ${c.hi.toFixed(2)}]` : "-");

/** How many rows of each verdict a comparison has, per quantile. */
export function verdictCounts(rows: readonly CompareRow[], q: CompareRow["q"]): Record<CompareRow["verdict"], number> & { rows: number } {
  const of = rows.filter((r) => r.q === q);
  return { rows: of.length, different: of.filter((r) => r.verdict === "different").length, "within noise": of.filter((r) => r.verdict === "within noise").length, "cannot tell": of.filter((r) => r.verdict === "cannot tell").length };
}

/** Markdown: per metric present in both runs, p50/p90/p99 of A and B, B/A with its interval over repetitions, and the verdict. */
export function compareRuns(dirA: string, dirB: string): string {
  const a = runStats(dirA);
  const b = runStats(dirB);
  const rows = compareRows(a, b);
  const lines = rows.map((r) => [r.key, r.q, ms(r.a), ms(r.b), r.ratio === null ? "-" : r.ratio.toFixed(2), interval(r.ratioCi), `${r.kA} / ${r.kB}`, `${r.nA} / ${r.nB}`, VERDICT_TEXT[r.verdict]]);
  const counts = (["p50", "p90", "p99"] as const).map((q) => {
    const c = verdictCounts(rows, q);
    return `${q}: ${c.different} of ${c.rows} rows a real difference, ${c["within noise"]} within the noise, ${c["cannot tell"]} cannot tell`;
  });
  const only = notInBoth(a, b);
  const how =
    `\n\nEach row's B/A interval is taken over repetitions (a t test on the log of each repetition's value, pooled variance), not over the samples of one run, which share that run's runtime and machine state. ` +
    `A difference is called real only when its interval excludes 1 and it passes the Benjamini-Hochberg rule at a ${FALSE_DISCOVERY_RATE * 100}% false discovery rate over all ${rows.length} rows compared; a run with one repetition cannot tell.`;
  return `A: ${dirA}\nB: ${dirB}\n\n${table(["metric", "q", "A ms", "B ms", "B/A", "B/A 95% interval", "repetitions A / B", "n A / B", "verdict"], lines)}\n\n${counts.join("\n")}${how}${only.length ? `\n\nNot in both runs: ${only.join(", ")}` : ""}\n`;
}
