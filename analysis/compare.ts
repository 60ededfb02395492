import { verifyRunDir } from "./verify";
import { countedSamples, orderedStages, percentiles, readSamples, type Percentiles } from "./summary";
import { isColdMetric } from "./catalog";
import { ms, table } from "./format";
import { join } from "node:path";

function stats(dir: string): Map<string, Percentiles> {
  const m = verifyRunDir(dir);
  const out = new Map<string, Percentiles>();
  for (const s of orderedStages(m)) {
    out.set(`${s.side}.${s.metric}`, percentiles(countedSamples(readSamples(join(dir, s.file)), isColdMetric(s.metric)).map((x) => x.ms)));
  }
  return out;
}

/** Pure: do two 95% intervals overlap? Unknown (null) ends are unbounded. */
export function intervalsOverlap(a: { lo: number | null; hi: number | null }, b: { lo: number | null; hi: number | null }): boolean {
  const aLo = a.lo ?? -Infinity;
  const aHi = a.hi ?? Infinity;
  const bLo = b.lo ?? -Infinity;
  const bHi = b.hi ?? Infinity;
  return aLo <= bHi && bLo <= aHi;
}

/** Markdown: per metric present in both runs, p50/p90/p99 of A and B, the ratio B/A and whether the CIs overlap. */
export function compareRuns(dirA: string, dirB: string): string {
  const a = stats(dirA);
  const b = stats(dirB);
  const rows: string[][] = [];
  for (const [key, pa] of a) {
    const pb = b.get(key);
    if (!pb) continue;
    for (const q of ["p50", "p90", "p99"] as const) {
      const overlap = intervalsOverlap(pa.ci[q], pb.ci[q]);
      rows.push([key, q, ms(pa[q]), ms(pb[q]), pa[q] > 0 ? (pb[q] / pa[q]).toFixed(2) : "-", `${pa.n} / ${pb.n}`, overlap ? "yes" : "no: a real difference"]);
    }
  }
  const only = [...[...a.keys()].filter((k) => !b.has(k)).map((k) => `${k} (A only)`), ...[...b.keys()].filter((k) => !a.has(k)).map((k) => `${k} (B only)`)];
  const drift =
    "\n\nThe intervals are each run's own sampling error. Two runs made at different times also differ by what the machine was doing: on a shared machine, compare a stage that ran with the same start state in both (the first group, say) to see how large that drift is before reading a difference as the code's.";
  return `A: ${dirA}\nB: ${dirB}\n\n${table(["metric", "q", "A ms", "B ms", "B/A", "n A / B", "95% CIs overlap"], rows)}${drift}${only.length ? `\n\nNot in both runs: ${only.join(", ")}` : ""}\n`;
}
