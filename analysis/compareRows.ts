/**
 * The comparison of two runs' percentiles, pure and free of Node imports:
 * `npm run compare` prints it, and the site's comparison view runs this same
 * code in the page (bundled by `npm run build`).
 */

export interface Interval {
  lo: number | null;
  hi: number | null;
}

/** What a run holds per "<side>.<metric>": n, the percentiles and their 95% intervals. */
export interface StageStats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  ci: { p50: Interval; p90: Interval; p99: Interval };
}

export interface CompareRow {
  key: string;
  q: "p50" | "p90" | "p99";
  a: number;
  b: number;
  aCi: Interval;
  bCi: Interval;
  /** B / A, null where A is 0. */
  ratio: number | null;
  nA: number;
  nB: number;
  overlap: boolean;
}

/** Do two 95% intervals overlap? Unknown (null) ends are unbounded. */
export function intervalsOverlap(a: Interval, b: Interval): boolean {
  const aLo = a.lo ?? -Infinity;
  const aHi = a.hi ?? Infinity;
  const bLo = b.lo ?? -Infinity;
  const bHi = b.hi ?? Infinity;
  return aLo <= bHi && bLo <= aHi;
}

/** Per stage in both runs (A's order), p50, p90 and p99 of each, B/A, and whether the intervals overlap. */
export function compareRows(a: Record<string, StageStats>, b: Record<string, StageStats>): CompareRow[] {
  const rows: CompareRow[] = [];
  for (const [key, pa] of Object.entries(a)) {
    const pb = b[key];
    if (!pb) continue;
    for (const q of ["p50", "p90", "p99"] as const) {
      rows.push({ key, q, a: pa[q], b: pb[q], aCi: pa.ci[q], bCi: pb.ci[q], ratio: pa[q] > 0 ? pb[q] / pa[q] : null, nA: pa.n, nB: pb.n, overlap: intervalsOverlap(pa.ci[q], pb.ci[q]) });
    }
  }
  return rows;
}

/** Stages one run has and the other has not. */
export function notInBoth(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...Object.keys(a).filter((k) => !(k in b)).map((k) => `${k} (A only)`), ...Object.keys(b).filter((k) => !(k in a)).map((k) => `${k} (B only)`)];
}
