/**
 * The comparison of two runs' percentiles, pure and free of Node imports:
 * `npm run compare` prints it, and the site's comparison view runs this same
 * code in the page (bundled by `npm run build`).
 *
 * A difference is judged over repetitions, the level where runs vary: each
 * repetition of a run is a fresh runtime, so its p50 (p90, p99) is one
 * observation of the run's figure. Two runs' figures are compared with a
 * two-sample t test on the logarithm of the repetitions' values (pooled
 * variance, kA + kB - 2 degrees of freedom), which stays calibrated with two
 * or three repetitions a side where a bootstrap over them is too narrow;
 * B/A's 95% interval is exp of the log difference's. Every row of one
 * comparison is one family: a difference is called real only when the row's
 * p-value passes Benjamini and Hochberg's step-up rule at a 5% false
 * discovery rate over the family, which implies that its 95% interval
 * excludes 1. With fewer than two repetitions on a side nothing can be said.
 */
import { tCritical, tTwoSidedP } from "./studentT";
import type { Interval, Quantile } from "./repetitions";

export type { Interval } from "./repetitions";

/** What a run holds per "<side>.<metric>": n, the pooled percentiles, their intervals, and each repetition's own. */
export interface StageStats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  /** The pooled percentiles' 95% intervals (hierarchical bootstrap over repetitions). */
  ci: Record<Quantile, Interval>;
  /** Each repetition's percentiles, in repetition order. */
  reps: Record<Quantile, number[]>;
}

/** The false discovery rate the comparison controls over its rows. */
export const FALSE_DISCOVERY_RATE = 0.05;

export type Verdict = "different" | "within noise" | "cannot tell";

export interface CompareRow {
  key: string;
  q: Quantile;
  a: number;
  b: number;
  aCi: Interval;
  bCi: Interval;
  /** B / A of the pooled percentiles, null where A is 0. */
  ratio: number | null;
  /** 95% interval of B / A over repetitions; null where a side has fewer than two repetitions or a value is not above 0. */
  ratioCi: Interval | null;
  nA: number;
  nB: number;
  /** Repetitions on each side. */
  kA: number;
  kB: number;
  /** The t test's two-sided p-value over repetitions; null where it cannot be taken. */
  p: number | null;
  verdict: Verdict;
}

const QS: readonly Quantile[] = ["p50", "p90", "p99"];
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const squares = (xs: readonly number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0);
};

/**
 * The t test of two sets of repetition values: on their logarithms when all
 * are above 0 (a ratio), else on the values (a whole-ms clock can read 0).
 */
export function repetitionTest(a: readonly number[], b: readonly number[]): { p: number | null; ratioCi: Interval | null } {
  if (a.length < 2 || b.length < 2) return { p: null, ratioCi: null };
  const logs = a.every((x) => x > 0) && b.every((x) => x > 0);
  const [xa, xb] = logs ? [a.map(Math.log), b.map(Math.log)] : [a, b];
  const df = a.length + b.length - 2;
  const diff = mean(xb) - mean(xa);
  const se = Math.sqrt(((squares(xa) + squares(xb)) / df) * (1 / a.length + 1 / b.length));
  // Identical repetitions on both sides: any difference at all is outside their (zero) spread.
  const p = se === 0 ? (diff === 0 ? 1 : 0) : tTwoSidedP(diff / se, df);
  if (!logs) return { p, ratioCi: null };
  const half = tCritical(df) * se;
  return { p, ratioCi: { lo: Math.exp(diff - half), hi: Math.exp(diff + half) } };
}

/** Which of the p-values Benjamini and Hochberg's step-up rule rejects at false discovery rate `q` (nulls never). */
export function benjaminiHochberg(ps: ReadonlyArray<number | null>, q = FALSE_DISCOVERY_RATE): boolean[] {
  const tested = ps.map((p, i) => [p, i] as const).filter((e): e is readonly [number, number] => e[0] !== null).sort((x, y) => x[0] - y[0]);
  let cut = -1;
  tested.forEach(([p], rank) => {
    if (p <= ((rank + 1) / tested.length) * q) cut = rank;
  });
  const out = ps.map(() => false);
  for (let r = 0; r <= cut; r++) out[tested[r][1]] = true;
  return out;
}

/** Per stage in both runs (A's order), p50, p90 and p99 of each, B/A with its interval over repetitions, and the verdict. */
export function compareRows(a: Record<string, StageStats>, b: Record<string, StageStats>): CompareRow[] {
  const rows: Array<Omit<CompareRow, "verdict">> = [];
  for (const [key, pa] of Object.entries(a)) {
    const pb = b[key];
    if (!pb) continue;
    for (const q of QS) {
      const t = repetitionTest(pa.reps[q], pb.reps[q]);
      rows.push({ key, q, a: pa[q], b: pb[q], aCi: pa.ci[q], bCi: pb.ci[q], ratio: pa[q] > 0 ? pb[q] / pa[q] : null, ratioCi: t.ratioCi, nA: pa.n, nB: pb.n, kA: pa.reps[q].length, kB: pb.reps[q].length, p: t.p });
    }
  }
  const real = benjaminiHochberg(rows.map((r) => r.p));
  return rows.map((r, i) => ({ ...r, verdict: r.p === null ? "cannot tell" : real[i] ? "different" : "within noise" }));
}

/** The verdict in words, as the CLI and the page print it. */
export const VERDICT_TEXT: Record<Verdict, string> = {
  different: "a real difference",
  "within noise": "within the noise",
  "cannot tell": "cannot tell (fewer than 2 repetitions)",
};

/** Stages one run has and the other has not. */
export function notInBoth(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...Object.keys(a).filter((k) => !(k in b)).map((k) => `${k} (A only)`), ...Object.keys(b).filter((k) => !(k in a)).map((k) => `${k} (B only)`)];
}
