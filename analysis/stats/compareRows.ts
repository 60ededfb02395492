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
 * Each row's variance is its own (rows' spreads differ too much to borrow
 * across them: docs/repetitions.md), floored at what the clock's rounding
 * alone gives, so identical repetitions never make a certainty. Each quantile
 * is one family, p50 the primary one: a row is called real only when its
 * p-value passes Benjamini and Hochberg's step-up rule at a 5% false
 * discovery rate over its family. Each row has its 95% interval, and the
 * verdict an interval at the level its selection used (Benjamini and
 * Yekutieli 2005), so a row called real excludes 1 and a row not detected
 * holds it. Every row states the smallest ratio it would detect with 80%
 * power (the noncentral t), so a row not called real says what it could not
 * have missed.
 */
import { shiftForPower, tCritical, tTwoSidedP } from "./studentT";
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
  se: number;
  df: number;
}

/** One family's t tests, each row on its own variance: paired on the log differences, or Welch on each arm's logs. */
function testFamily(rows: ReadonlyArray<{ i: number; va: number[]; vb: number[]; tick: number }>, paired: boolean): Tested[] {
  return rows.map((r) => {
    if (paired) {
      const d = r.va.map((x, j) => Math.log(r.vb[j]) - Math.log(x));
      const s2 = Math.max(sampleVariance(d), tickVariance(r.va, r.tick) + tickVariance(r.vb, r.tick));
      return { i: r.i, est: mean(d), se: Math.sqrt(s2 / d.length), df: d.length - 1 };
    }
    const arm = (v: number[]) => {
      const logs = v.map(Math.log);
      return { mean: mean(logs), e: Math.max(sampleVariance(logs), tickVariance(v, r.tick)) / v.length, df: v.length - 1 };
    };
    const A = arm(r.va);
    const B = arm(r.vb);
    // Welch-Satterthwaite: equal to the pooled df when the two variances are equal.
    const df = (A.e + B.e) ** 2 / (A.e ** 2 / A.df + B.e ** 2 / B.df);
    return { i: r.i, est: B.mean - A.mean, se: Math.sqrt(A.e + B.e), df };
  });
}

const shifts = new Map<string, number>();
/** The shift in standard errors a lone row of m is called real at with 80% power; df to 2 decimals (remembered: Welch's df repeat). */
function detectableShift(df: number, m: number): number {
  const d = Math.round(df * 100) / 100;
  const key = `${d}|${m}`;
  let v = shifts.get(key);
  if (v === undefined) {
    v = shiftForPower(d, tCritical(d, 1 - FALSE_DISCOVERY_RATE / m), POWER);
    shifts.set(key, v);
  }
  return v;
}

/** B / A's interval at `confidence` for a tested row (exp of its log-scale t interval). */
function ratioInterval(t: Tested, confidence: number): Interval {
  const half = tCritical(t.df, confidence) * t.se;
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
    const tested = testFamily(
      family.map(({ r, i }) => ({ i, va: a[r.key].reps[q], vb: b[r.key].reps[q], tick: Math.max(a[r.key].tick, b[r.key].tick) })),
      paired,
    );
    const m = tested.length;
    for (const t of tested) {
      // Called real alone in its family, a row needs p <= q / m: the shift found 80% of the time at that level.
      const reach = detectableShift(t.df, m) * t.se;
      Object.assign(out[t.i], {
        p: tTwoSidedP(t.est / t.se, t.df),
        ratio: Math.exp(t.est),
        ratioCi: ratioInterval(t, 0.95),
        detectable: Math.exp(reach),
        family: m,
      });
    }
    const real = benjaminiHochberg(tested.map((t) => out[t.i].p));
    const R = real.filter(Boolean).length;
    tested.forEach((t, k) => {
      if (real[k]) out[t.i].verdict = "different";
      const level = 1 - ((real[k] ? R : R + 1) * FALSE_DISCOVERY_RATE) / m;
      out[t.i].verdictCi = { ...ratioInterval(t, level), level };
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
