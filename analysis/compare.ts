import { verifyRunDir, type ManifestLike } from "./verify";
import { countedSamples, orderedStages, percentiles, readSamples, type RawSample } from "./summary";
import { isColdMetric } from "./catalog";
import { ms, table } from "./format";
import { join } from "node:path";
import { compareRows, notInBoth, type StageStats } from "./compareRows";

export { intervalsOverlap } from "./compareRows";

/** Percentiles with their 95% intervals per "<side>.<metric>", in stage order, from a run's samples (counted as the report counts them). */
export function stageStats(m: ManifestLike, samples: (side: string, metric: string) => RawSample[]): Record<string, StageStats> {
  const out: Record<string, StageStats> = {};
  for (const s of orderedStages(m)) {
    const p = percentiles(countedSamples(samples(s.side, s.metric), isColdMetric(s.metric)).map((x) => x.ms));
    out[`${s.side}.${s.metric}`] = { n: p.n, p50: p.p50, p90: p.p90, p99: p.p99, ci: { p50: p.ci.p50, p90: p.ci.p90, p99: p.ci.p99 } };
  }
  return out;
}

/** A run directory's stage stats, verified first. */
export function runStats(dir: string): Record<string, StageStats> {
  const m = verifyRunDir(dir);
  const files = new Map(orderedStages(m).map((s) => [`${s.side}.${s.metric}`, s.file]));
  return stageStats(m, (side, metric) => readSamples(join(dir, files.get(`${side}.${metric}`)!)));
}

/** Markdown: per metric present in both runs, p50/p90/p99 of A and B, the ratio B/A and whether the CIs overlap. */
export function compareRuns(dirA: string, dirB: string): string {
  const a = runStats(dirA);
  const b = runStats(dirB);
  const rows = compareRows(a, b).map((r) => [r.key, r.q, ms(r.a), ms(r.b), r.ratio === null ? "-" : r.ratio.toFixed(2), `${r.nA} / ${r.nB}`, r.overlap ? "yes" : "no: a real difference"]);
  const only = notInBoth(a, b);
  const drift =
    "\n\nThe intervals are each run's own sampling error. Two runs made at different times also differ by what the machine was doing: on a shared machine, compare a stage that ran with the same start state in both (the first group, say) to see how large that drift is before reading a difference as the code's.";
  return `A: ${dirA}\nB: ${dirB}\n\n${table(["metric", "q", "A ms", "B ms", "B/A", "n A / B", "95% CIs overlap"], rows)}${drift}${only.length ? `\n\nNot in both runs: ${only.join(", ")}` : ""}\n`;
}
