/**
 * Statistics over repetitions: a run repeats its plan on fresh runtimes, and
 * the samples of one repetition share its runtime and machine state, so a
 * figure's uncertainty is taken over repetitions, each repetition's
 * percentile one observation (Kalibera and Jones, "Rigorous Benchmarking in
 * Reasonable Time", 2013). The interval is a t interval on the logarithm of
 * the repetitions' values (k - 1 degrees of freedom): a bootstrap over three
 * repetitions is about their range and covers about 75%, not 95%. Pure: the
 * same samples always give the same text.
 */
import { mean, nearestRank } from "./percentiles";
import { quantileCI } from "./confidence";
import { tCritical } from "./studentT";

export const QUANTILES = { p50: 50, p90: 90, p99: 99 } as const;
export type Quantile = keyof typeof QUANTILES;
export interface Interval {
  lo: number | null;
  hi: number | null;
}

/** An interval over repetitions, or why there is none. */
/** A rate held over repetitions (stats/capacity.ts): an estimate with its interval, or why there is none. */
export interface KneeInterval extends Interval {
  estimate: number | null;
  none?: string;
}

export interface RepInterval extends Interval {
  /** Set where no interval is printed: the reason, in words. */
  none?: string;
}

/**
 * On a clock that steps in whole ticks (a Date.now() of 1 ms), a
 * repetition's value below this many ticks is mostly rounding: no interval.
 */
export const MIN_TICKS = 5;

/** Whether the nearest-rank p-th percentile of n samples is their largest (a p99 of fewer than 100, a p90 of fewer than 10). */
export const isMaximum = (n: number, p: number) => n > 0 && Math.ceil((p / 100) * n) >= n;

/** Variance a value picks up from being read on a clock of `tick` (uniform rounding), on the log scale. */
export const tickVariance = (values: readonly number[], tick: number) =>
  values.reduce((s, v) => s + (tick / v) ** 2 / 12, 0) / Math.max(1, values.length);

/**
 * The 95% (or `confidence`) interval of the geometric mean over fresh runs
 * of a repetition's value, from k of them: exp(mean log ± t(k-1) s / √k),
 * the variance floored at the clock's rounding. No interval, and why, with
 * fewer than two repetitions, with a value at or under zero or within
 * MIN_TICKS ticks, or where a repetition's value is its largest sample
 * (`maximumOf` names the percentile it would have been).
 */
export function repInterval(values: readonly number[], o: { tick: number; confidence?: number; maximumOf?: string }): RepInterval {
  const none = (why: string): RepInterval => ({ lo: null, hi: null, none: why });
  if (values.length < 2) return none("one repetition");
  if (o.maximumOf) return none(`each repetition's ${o.maximumOf} is its maximum`);
  if (values.some((v) => !(v > 0) || v < MIN_TICKS * o.tick))
    return none(`under ${MIN_TICKS} ticks of a ${Number(o.tick.toPrecision(3))} ms clock`);
  const c = tInterval(values.map(Math.log), tickVariance(values, o.tick), o.confidence ?? 0.95);
  return { lo: Math.exp(c.lo), hi: Math.exp(c.hi) };
}

/** The t interval of the mean of xs (k - 1 degrees of freedom), their sample variance at least `minVariance`. */
function tInterval(xs: readonly number[], minVariance: number, confidence = 0.95): { lo: number; hi: number } {
  const m = mean(xs);
  const half = tCritical(xs.length - 1, confidence) * Math.sqrt(Math.max(sampleVariance(xs), minVariance) / xs.length);
  return { lo: m - half, hi: m + half };
}

/**
 * The 95% interval of the mean of values that may be 0 or below (a
 * difference of two percentiles, repetition by repetition): a t interval on
 * the values themselves, the variance floored at two roundings of a `tick`
 * clock. None with fewer than two values.
 */
export function linearInterval(values: readonly number[], tick: number): RepInterval {
  if (values.length < 2) return { lo: null, hi: null, none: "one repetition" };
  return tInterval(values, (2 * tick * tick) / 12);
}

/** The geometric mean: the centre of repInterval, and the estimand compare tests. */
export const geometricMean = (xs: readonly number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

/** Which level the variance of a quantile sits at: between repetitions, within a run's samples, or neither (all equal). */
type DominantLevel = "between" | "within" | "none";

export interface RepSpread {
  /** Repetitions with counted samples. */
  k: number;
  /** Each such repetition's nearest-rank quantiles, in repetition order. */
  perRep: Record<Quantile, number[]>;
  /** Between-repetition coefficient of variation of the p50 (sample SD over mean); null with fewer than two repetitions. */
  cv: number | null;
  /** Each repetition's sample count, in repetition order. */
  perRepN: number[];
  /** 95% intervals over repetitions (repInterval), or why there is none. */
  ci: Record<Quantile, RepInterval>;
  /**
   * Where the p50's variance sits: "between" when the spread of the
   * repetitions' p50s is more than twice what their own sampling error
   * alone would give (Kalibera and Jones's variance components); null with
   * one repetition, where nothing can be said.
   */
  dominant: DominantLevel | null;
}

/** The sample variance (n - 1 in the denominator). */
export const sampleVariance = (xs: readonly number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};

/**
 * Variance components of the p50: the repetitions' p50s vary by their own
 * sampling error (from each repetition's order-statistic interval, taken as
 * ±1.96 standard errors) plus whatever differs between repetitions.
 */
export function dominantLevel(sortedGroups: ReadonlyArray<readonly number[]>): DominantLevel | null {
  const reps = sortedGroups.filter((g) => g.length > 0);
  if (reps.length < 2) return null;
  const between = sampleVariance(reps.map((g) => nearestRank(g, 50)));
  const within =
    reps.reduce((s, g) => {
      const c = quantileCI(g, 50);
      // Too few samples for a bound: the whole range of the repetition is the honest width.
      const width = c.lo !== null && c.hi !== null ? c.hi - c.lo : g[g.length - 1] - g[0];
      return s + (width / (2 * 1.96)) ** 2;
    }, 0) / reps.length;
  if (between === 0 && within === 0) return "none";
  return between > 2 * within ? "between" : "within";
}

/** The spread over repetitions of one row's counted values, each group one repetition's, read on a clock of `tick` ms. */
export function repSpread(groups: ReadonlyArray<readonly number[]>, tick: number): RepSpread {
  const sorted = groups.filter((g) => g.length > 0).map((g) => [...g].sort((a, b) => a - b));
  const perRep = {
    p50: sorted.map((g) => nearestRank(g, 50)),
    p90: sorted.map((g) => nearestRank(g, 90)),
    p99: sorted.map((g) => nearestRank(g, 99)),
  };
  const perRepN = sorted.map((g) => g.length);
  const centre = mean(perRep.p50);
  const cv = sorted.length >= 2 && centre > 0 ? Math.sqrt(sampleVariance(perRep.p50)) / centre : null;
  const ci = Object.fromEntries(
    (Object.keys(QUANTILES) as Quantile[]).map((q) => [
      q,
      repInterval(perRep[q], { tick, ...(perRepN.some((n) => isMaximum(n, QUANTILES[q])) ? { maximumOf: q } : {}) }),
    ]),
  ) as Record<Quantile, RepInterval>;
  return { k: sorted.length, perRep, perRepN, cv, ci, dominant: dominantLevel(sorted) };
}

/** Values grouped by the repetition they were taken in, in repetition order (a value with no repetition is repetition 0). */
export function groupByRep<T extends { rep?: number }>(items: readonly T[], value: (x: T) => number): number[][] {
  const by = new Map<number, number[]>();
  for (const x of items) {
    const r = x.rep ?? 0;
    let g = by.get(r);
    if (!g) by.set(r, (g = []));
    g.push(value(x));
  }
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

/** The order of the sides in repetition `rep`: the list rotated by `rep`, so each side takes each place in turn (R C F, C F R, F R C). */
export function rotation<T>(sides: readonly T[], rep: number): T[] {
  const k = sides.length === 0 ? 0 : rep % sides.length;
  return [...sides.slice(k), ...sides.slice(0, k)];
}
