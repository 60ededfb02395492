/**
 * Statistics over repetitions: a run repeats its plan on fresh runtimes, and
 * the samples of one repetition share its runtime and machine state, so a
 * figure's uncertainty is taken over repetitions first and samples second
 * (a hierarchical bootstrap; Kalibera and Jones, "Rigorous Benchmarking in
 * Reasonable Time", 2013). Pure: the same samples always give the same text.
 */
import { nearestRank } from "./percentiles";
import { quantileCI } from "./confidence";
import { prng } from "./prng";

export const QUANTILES = { p50: 50, p90: 90, p99: 99 } as const;
export type Quantile = keyof typeof QUANTILES;
export interface Interval {
  lo: number | null;
  hi: number | null;
}

/** Resamples per interval: enough for stable 2.5% and 97.5% ends, few enough for a full run's report in seconds. */
export const BOOTSTRAP_RESAMPLES = 1000;

/** A seed from a text (FNV-1a): each row's resamples depend on its own name only, never on the order rows are computed in. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The 95% (or `confidence`) percentile interval of each nearest-rank
 * quantile in `ps` of the pooled samples, by a two-level bootstrap: draw
 * the repetitions with replacement, then within each drawn repetition its
 * samples with replacement, pool, take the quantile; repeat `resamples`
 * times. Each resample is a weight per distinct sample, so one pass over
 * the sorted values finds every quantile without sorting again. Empty
 * groups are left out; with no samples every end is null.
 */
export function hierarchicalBootstrap(groups: ReadonlyArray<readonly number[]>, ps: readonly number[], o: { seed: number; resamples?: number; confidence?: number }): Interval[] {
  const reps = groups.filter((g) => g.length > 0);
  if (reps.length === 0) return ps.map(() => ({ lo: null, hi: null }));
  const B = o.resamples ?? BOOTSTRAP_RESAMPLES;
  const alpha = 1 - (o.confidence ?? 0.95);
  // Every sample once, ascending, and where each repetition's samples sit in that order.
  const all = reps.flatMap((g, r) => g.map((x) => [x, r] as const)).sort((a, b) => a[0] - b[0]);
  const values = Float64Array.from(all, (e) => e[0]);
  const at: Int32Array[] = reps.map((g) => new Int32Array(g.length));
  const filled = new Array<number>(reps.length).fill(0);
  all.forEach(([, r], pos) => (at[r][filled[r]++] = pos));
  const order = ps.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const stats = ps.map(() => new Float64Array(B));
  const weight = new Uint32Array(values.length);
  const rnd = prng(o.seed);
  for (let b = 0; b < B; b++) {
    weight.fill(0);
    let total = 0;
    for (let k = 0; k < reps.length; k++) {
      const idx = at[Math.floor(rnd() * reps.length)];
      for (let j = 0; j < idx.length; j++) weight[idx[Math.floor(rnd() * idx.length)]]++;
      total += idx.length;
    }
    let cum = 0;
    let pos = 0;
    for (const [p, i] of order) {
      const rank = Math.min(total, Math.max(1, Math.ceil((p / 100) * total)));
      while (cum + weight[pos] < rank) cum += weight[pos++];
      stats[i][b] = values[pos];
    }
  }
  return stats.map((s) => {
    s.sort();
    return { lo: s[Math.floor((alpha / 2) * B)], hi: s[Math.ceil((1 - alpha / 2) * B) - 1] };
  });
}

/** Which level the variance of a quantile sits at: between repetitions, within a run's samples, or neither (all equal). */
export type DominantLevel = "between" | "within" | "none";

export interface RepSpread {
  /** Repetitions with counted samples. */
  k: number;
  /** Each such repetition's nearest-rank quantiles, in repetition order. */
  perRep: Record<Quantile, number[]>;
  /** Between-repetition coefficient of variation of the p50 (sample SD over mean); null with fewer than two repetitions. */
  cv: number | null;
  /** The pooled quantiles' 95% intervals from the hierarchical bootstrap. */
  ci: Record<Quantile, Interval>;
  /**
   * Where the p50's variance sits: "between" when the spread of the
   * repetitions' p50s is more than twice what their own sampling error
   * alone would give (Kalibera and Jones's variance components); null with
   * one repetition, where nothing can be said.
   */
  dominant: DominantLevel | null;
}

const sampleVariance = (xs: readonly number[]) => {
  const m = xs.reduce((s, x) => s + x, 0) / xs.length;
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
  const within = reps.reduce((s, g) => {
    const c = quantileCI(g, 50);
    // Too few samples for a bound: the whole range of the repetition is the honest width.
    const width = c.lo !== null && c.hi !== null ? c.hi - c.lo : g[g.length - 1] - g[0];
    return s + (width / (2 * 1.96)) ** 2;
  }, 0) / reps.length;
  if (between === 0 && within === 0) return "none";
  return between > 2 * within ? "between" : "within";
}

/** The spread over repetitions of one row's counted values, each group one repetition's; `key` seeds its bootstrap. */
export function repSpread(groups: ReadonlyArray<readonly number[]>, key: string): RepSpread {
  const sorted = groups.filter((g) => g.length > 0).map((g) => [...g].sort((a, b) => a - b));
  const perRep = { p50: sorted.map((g) => nearestRank(g, 50)), p90: sorted.map((g) => nearestRank(g, 90)), p99: sorted.map((g) => nearestRank(g, 99)) };
  const mean = perRep.p50.reduce((s, x) => s + x, 0) / (perRep.p50.length || 1);
  const cv = sorted.length >= 2 && mean > 0 ? Math.sqrt(sampleVariance(perRep.p50)) / mean : null;
  const [p50, p90, p99] = hierarchicalBootstrap(sorted, [50, 90, 99], { seed: seedOf(key) });
  return { k: sorted.length, perRep, cv, ci: { p50, p90, p99 }, dominant: dominantLevel(sorted) };
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
