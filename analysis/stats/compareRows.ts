/**
 * The comparison of two runs, pure and free of Node imports: `npm run
 * compare` and `npm run ab` print it, and the site's comparison view runs
 * this same code in the page (bundled by `npm run build`).
 *
 * A difference is judged over repetitions, the level where runs vary: each
 * repetition is a fresh runtime, so its p50 (p90, p99) is one observation.
 * The estimand is the ratio of the geometric means of B's and A's
 * repetition values, and the test is a t test on their logarithms: paired
 * when the two runs were measured interleaved (`npm run ab`: repetition i of
 * A beside repetition i of B), else Welch's, each arm's variance its own.
 * Each row's variance, floored at what the clock's rounding alone gives (so
 * identical repetitions never make a certainty), borrows from its family's
 * other rows of a like spread and not from rows of another (sharedSpread.ts:
 * a smoothed, tempered nonparametric prior; docs/repetitions.md). Each quantile
 * is one family, p50 the primary one: a row is called real only when its
 * p-value passes Benjamini and Hochberg's step-up rule at a 5% false
 * discovery rate over its family. Each row has its 95% interval, and the
 * verdict an interval at the level its selection used (Benjamini and
 * Yekutieli 2005), so a row called real excludes 1 and a row not detected
 * holds it. Every row states the smallest ratio it would detect with 80%
 * power (under its posterior for the spread), so a row not called real says what it could not
 * have missed.
 */
import { mixtureDetectable, mixtureHalfWidth, mixtureP, shareSpreads, type SharedRow } from "./sharedSpread";
import { geometricMean, isMaximum, MIN_TICKS, QUANTILES, sampleVariance, tickVariance, type Interval, type Quantile } from "./repetitions";
import { mean } from "./percentiles";

export type { Interval } from "./repetitions";

/** What a run holds per compared row: each repetition's percentiles on one clock, and that clock. */
export interface StageStats {
  /** Samples the percentiles are taken over, all repetitions together. */
  n: number;
  /** Each repetition's percentiles, in repetition order. */
  reps: Record<Quantile, number[]>;
  /** Each repetition's sample count, in repetition order. */
  perRepN: number[];
  /** The clock's step in ms (1 for a whole-ms clock). */
  tick: number;
  /** The clock, in words. */
  clock: string;
  /** Shown beside the tested rows, never tested (a second clock of the same stage). */
  descriptive?: boolean;
}

/** The false discovery rate the comparison controls over each family. */
export const FALSE_DISCOVERY_RATE = 0.05;
/** The power the "detectable" column is stated at. */
export const POWER = 0.8;
/** A row that could not detect a change this large (either way) says so in words. */
const TOO_SPREAD = 3;

export type Verdict = "different" | "not detected" | "cannot tell" | "descriptive";

export interface CompareRow {
  key: string;
  q: Quantile;
  clock: string;
  /** Geometric means of each run's repetition values: the estimand's two sides; null where a value is not above 0. */
  a: number | null;
  b: number | null;
  /** B / A of those geometric means (exp of the mean log difference when paired). */
  ratio: number | null;
  /** 95% interval of B / A; null where the row is not tested. */
  ratioCi: Interval | null;
  /**
   * The interval the verdict states, at the level that agrees with it: a row
   * called real, at 1 - R q / m (R rows called real of m tested), excludes 1;
   * a row not detected, at 1 - (R + 1) q / m, holds it. Null where not tested.
   */
  verdictCi: (Interval & { level: number }) | null;
  /** The smallest B/A above 1 the row would be called real at with 80% power (noncentral t), were it the only row of its family that changed. */
  detectable: number | null;
  nA: number;
  nB: number;
  kA: number;
  kB: number;
  /** Whether repetition i of A was paired with repetition i of B. */
  paired: boolean;
  /** Two-sided p-value; null where the row is not tested. */
  p: number | null;
  /** Rows tested in the row's family (its quantile). */
  family: number;
  /** The degrees of freedom its interval is as wide as a t interval of: its own and what it borrowed from its family. */
  df?: number;
  /** A row whose spread its family's other rows do not explain: tested on its own variance alone. */
  outlier?: boolean;
  /** Its family's fitted prior for the spread, in limma's terms: degrees of freedom and scale (an SD on the log scale). */
  prior?: { df: number; scale: number };
  verdict: Verdict;
  /** Why a row is not tested. */
  why?: string;
}

const QS = Object.keys(QUANTILES) as Quantile[];

/** Why two arms' values cannot be tested, or null. */
function untestable(a: StageStats, b: StageStats, q: Quantile, paired: boolean): string | null {
  if (a.descriptive || b.descriptive) return "descriptive";
  const va = a.reps[q];
  const vb = b.reps[q];
  if (va.length < 2 || vb.length < 2) return "fewer than 2 repetitions";
  if (paired && va.length !== vb.length) return "unequal repetitions in a paired comparison";
  const tick = Math.max(a.tick, b.tick);
  if ([...va, ...vb].some((v) => !(v > 0) || v < MIN_TICKS * tick))
    return `values under ${MIN_TICKS} ticks of a ${Number(tick.toPrecision(3))} ms clock`;
  if ([...a.perRepN, ...b.perRepN].some((n) => isMaximum(n, QUANTILES[q]))) return `${q} of too few samples a repetition is its maximum`;
  return null;
}

interface Tested {
  i: number;
  est: number;
  /** The estimate's variance per unit of σ² (1/n paired, 1/kA + 1/kB unpaired). */
  c: number;
  /** The row's variance estimate on the log scale and its degrees of freedom. */
  s2: number;
  df: number;
}

/**
 * One family's rows as estimates with their spreads: paired on the log differences, or Welch on each arm's logs
 * (its variance and Satterthwaite's df, so a single row is exactly Welch's t).
 */
function estimates(rows: ReadonlyArray<{ i: number; va: number[]; vb: number[]; tick: number }>, paired: boolean): Tested[] {
  return rows.map((r) => {
    if (paired) {
      const d = r.va.map((x, j) => Math.log(r.vb[j]) - Math.log(x));
      const s2 = Math.max(sampleVariance(d), tickVariance(r.va, r.tick) + tickVariance(r.vb, r.tick));
      return { i: r.i, est: mean(d), c: 1 / d.length, s2, df: d.length - 1 };
    }
    const arm = (v: number[]) => {
      const logs = v.map(Math.log);
      return { mean: mean(logs), e: Math.max(sampleVariance(logs), tickVariance(v, r.tick)) / v.length, df: v.length - 1 };
    };
    const A = arm(r.va);
    const B = arm(r.vb);
    // Equal arms: the pooled df (its size holds whatever the two variances); else Welch-Satterthwaite's.
    const df = A.df === B.df ? A.df + B.df : (A.e + B.e) ** 2 / (A.e ** 2 / A.df + B.e ** 2 / B.df);
    const c = 1 / r.va.length + 1 / r.vb.length;
    return { i: r.i, est: B.mean - A.mean, c, s2: (A.e + B.e) / c, df };
  });
}

/** B / A's interval at `confidence` for a tested row (exp of its log-scale interval under its shared spread). */
function ratioInterval(t: Tested, row: SharedRow, confidence: number): Interval {
  const half = mixtureHalfWidth(t.c, row, confidence);
  return { lo: Math.exp(t.est - half), hi: Math.exp(t.est + half) };
}

/** Which of the p-values Benjamini and Hochberg's step-up rule rejects at false discovery rate `q` (nulls never). */
export function benjaminiHochberg(ps: ReadonlyArray<number | null>, q = FALSE_DISCOVERY_RATE): boolean[] {
  const tested = ps
    .map((p, i) => [p, i] as const)
    .filter((e): e is readonly [number, number] => e[0] !== null)
    .sort((x, y) => x[0] - y[0]);
  let cut = -1;
  tested.forEach(([p], rank) => {
    if (p <= ((rank + 1) / tested.length) * q) cut = rank;
  });
  const out = ps.map(() => false);
  for (let r = 0; r <= cut; r++) out[tested[r][1]] = true;
  return out;
}

/**
 * Per row in both runs (A's order), per quantile: the two geometric means,
 * B/A with its 95% interval, the smallest detectable ratio and the verdict.
 * `paired`: the runs were interleaved, repetition i of each side by side.
 */
export function compareRows(a: Record<string, StageStats>, b: Record<string, StageStats>, o: { paired?: boolean } = {}): CompareRow[] {
  const paired = o.paired === true;
  const out: CompareRow[] = [];
  for (const [key, sa] of Object.entries(a)) {
    const sb = b[key];
    if (!sb) continue;
    for (const q of QS) {
      const va = sa.reps[q];
      const vb = sb.reps[q];
      const pos = (xs: number[]) => (xs.length > 0 && xs.every((x) => x > 0) ? geometricMean(xs) : null);
      const ga = pos(va);
      const gb = pos(vb);
      const why = untestable(sa, sb, q, paired);
      out.push({
        key,
        q,
        clock: sa.clock,
        a: ga,
        b: gb,
        ratio: ga !== null && gb !== null ? gb / ga : null,
        ratioCi: null,
        verdictCi: null,
        detectable: null,
        nA: sa.n,
        nB: sb.n,
        kA: va.length,
        kB: vb.length,
        paired,
        p: null,
        family: 0,
        verdict: why === "descriptive" ? "descriptive" : why ? "cannot tell" : "not detected",
        ...(why && why !== "descriptive" ? { why } : {}),
      });
    }
  }
  for (const q of QS) {
    const family = out.map((r, i) => ({ r, i })).filter(({ r }) => r.q === q && r.verdict === "not detected");
    const tested = estimates(
      family.map(({ r, i }) => ({ i, va: a[r.key].reps[q], vb: b[r.key].reps[q], tick: Math.max(a[r.key].tick, b[r.key].tick) })),
      paired,
    );
    const m = tested.length;
    if (m === 0) continue;
    const shared = shareSpreads(tested);
    tested.forEach((t, k) => {
      const row = shared.rows[k];
      // Called real alone in its family, a row needs p <= q / m: the shift found 80% of the time at that level.
      const reach = mixtureDetectable(t.c, row, FALSE_DISCOVERY_RATE / m, POWER);
      Object.assign(out[t.i], {
        p: mixtureP(t.est, t.c, row),
        ratio: Math.exp(t.est),
        ratioCi: ratioInterval(t, row, 0.95),
        detectable: Math.exp(reach),
        family: m,
        df: row.effectiveDf,
        outlier: row.outlier,
        prior: { df: shared.priorDf, scale: shared.priorScale },
      });
    });
    const real = benjaminiHochberg(tested.map((t) => out[t.i].p));
    const R = real.filter(Boolean).length;
    tested.forEach((t, k) => {
      if (real[k]) out[t.i].verdict = "different";
      const level = 1 - ((real[k] ? R : R + 1) * FALSE_DISCOVERY_RATE) / m;
      out[t.i].verdictCi = { ...ratioInterval(t, shared.rows[k], level), level };
    });
  }
  return out;
}

/** An interval of B/A as the CLI and the page print it, "[0.97, 1.04]"; "" where there is none. */
export const bracket = (c: Interval | null) => (c && c.lo !== null && c.hi !== null ? `[${c.lo.toFixed(2)}, ${c.hi.toFixed(2)}]` : "");
const level = (c: { level: number } | null) => (c ? ` (${(c.level * 100).toFixed(c.level >= 0.995 ? 2 : 1)}% interval)` : "");

/** A row's verdict in words, as the CLI and the page print it: the interval is the one that agrees with the verdict, its level named. */
export function verdictText(r: CompareRow): string {
  switch (r.verdict) {
    case "different":
      return `real: B/A in ${bracket(r.verdictCi)}${level(r.verdictCi)}`;
    case "not detected":
      return r.detectable !== null && r.detectable >= TOO_SPREAD
        ? `not detected: too spread to detect a change under ${TOO_SPREAD}x either way; B/A within ${bracket(r.verdictCi)}${level(r.verdictCi)}`
        : `not detected, B/A within ${bracket(r.verdictCi)}${level(r.verdictCi)}`;
    case "descriptive":
      return "not tested: a second clock of the row above";
    default:
      return `cannot tell: ${r.why}`;
  }
}

/** What a family shared, in words: its fitted prior for the spread and the rows tested on their own variance alone. */
export function sharingText(rows: readonly CompareRow[], q: Quantile): string {
  const tested = rows.filter((r) => r.q === q && r.prior);
  if (tested.length === 0) return `${q}: no row tested`;
  const { df, scale } = tested[0].prior!;
  const dfs = tested.map((r) => r.df!).sort((x, y) => x - y);
  const outliers = tested.filter((r) => r.outlier).map((r) => r.key);
  return (
    `${q}: the spread's prior over ${tested.length} rows has ${Number.isFinite(df) ? df.toFixed(1) : "unbounded"} degrees of freedom and scale ${scale.toFixed(3)} (SD of the log); ` +
    `each row's interval rests on a median ${dfs[Math.floor(dfs.length / 2)].toFixed(1)} degrees of freedom; ` +
    (outliers.length
      ? `${outliers.length} outlier${outliers.length > 1 ? "s" : ""}, tested on their own variance: ${outliers.join(", ")}`
      : "no outlier")
  );
}

/** Stages one run has and the other has not. */
export function notInBoth(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [
    ...Object.keys(a)
      .filter((k) => !(k in b))
      .map((k) => `${k} (A only)`),
    ...Object.keys(b)
      .filter((k) => !(k in a))
      .map((k) => `${k} (B only)`),
  ];
}
