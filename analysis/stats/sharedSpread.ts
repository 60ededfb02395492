/**
 * Sharing what rows know about their spread, without letting rows of
 * another spread pull them: an empirical Bayes prior for the
 * between-repetition variance of a family's rows. Pure and free of Node
 * imports (the site's comparison page bundles it).
 *
 * Each row's variance estimate s² (on the log scale, with d degrees of
 * freedom) is one draw from d s² / σ² ~ χ²(d) around its own σ². The prior
 * for σ² is a mixture over a log-spaced grid whose weights maximise the
 * other rows' likelihood (the nonparametric maximum likelihood estimate,
 * fitted by EM, with the row itself left out so it never confirms its own
 * spread), smoothed on the log scale and tempered (raised to a power below 1,
 * a power prior: the other rows count for part of what the row's own
 * repetitions do). Rows of two spreads make a prior of two modes, and each row
 * borrows from the mode its own s² sits in. A row whose s² the others' prior
 * puts in its outer tails is an outlier and keeps its own variance alone.
 *
 * Given σ², a row's estimate is normal; given the data, σ² has its posterior
 * over the grid, so a row's p-value and interval are those of a mixture of
 * normals. With no sharing at all (a flat prior on log σ²) this is exactly
 * Student's t on the row's own d.
 */
import { bisect, erfc, logGamma } from "./studentT";

/** How much is shared: fixed by the simulations in compareRows.test.ts (docs/repetitions.md). */
export const SHARING = {
  /** Grid points for σ², log-spaced from 5 units of log below the smallest s² to 5 above the largest. */
  grid: 48,
  /** EM iterations for the prior's weights, and from those for each row's leave-one-out prior. */
  iterations: 80,
  leaveOneOutIterations: 15,
  /** The kernel's SD on log σ² that smooths the fitted weights: the prior is never surer than a few rows make it. */
  smoothing: 0.5,
  /**
   * The power the prior is raised to is 1 / (1 + V / this), V the variance of log σ² across the rows (the fitted
   * prior's, less the smoothing's own): rows of one spread are trusted fully, rows of spreads far apart little.
   */
  commensurate: 0.5,
  /** A row whose s² the others' prior puts beyond this two-sided tail is an outlier: its own variance only. */
  outlierTail: 0.01,
} as const;

export interface RowSpread {
  /** The row's variance estimate on the log scale. */
  s2: number;
  /** Its degrees of freedom. */
  df: number;
}

export interface SharedRow {
  /** σ² grid and the row's posterior weights on it. */
  grid: number[];
  weights: number[];
  /** Whether the row kept its own variance only (the others' prior puts its s² in the tails). */
  outlier: boolean;
  /** The degrees of freedom of a scaled inverse χ² as sure of σ² as the row's posterior: its own plus what it borrowed. */
  effectiveDf: number;
}

export interface SharedFamily {
  rows: SharedRow[];
  /** The prior fitted to all rows, in limma's terms (moments of log σ² under it): degrees of freedom and scale (an SD). */
  priorDf: number;
  priorScale: number;
}

/** log density of s² given σ² and d: d s² / σ² is χ²(d). */
function logLikelihood(s2: number, sigma2: number, d: number): number {
  const x = (d * s2) / sigma2;
  return Math.log(d / sigma2) + (d / 2 - 1) * Math.log(x) - x / 2 - (d / 2) * Math.LN2 - logGamma(d / 2);
}

const normalize = (w: number[]) => {
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / s);
};

/** Posterior weights on the grid from log-likelihoods and prior weights (the prior raised to `temper`). */
function posterior(logL: number[], prior: number[], temper: number): number[] {
  const top = Math.max(...logL);
  return normalize(logL.map((l, g) => prior[g] ** temper * Math.exp(l - top)));
}

/**
 * The NPMLE weights on the grid of the rows `use`, by EM from `start` (uniform when not given). `like[r][g]` is row
 * r's likelihood at grid point g (scaled per row).
 */
function emWeights(
  use: readonly number[],
  like: readonly number[][],
  start: readonly number[],
  iterations: number = SHARING.iterations,
): number[] {
  const G = start.length;
  let pi = [...start];
  const w = new Array<number>(G);
  for (let it = 0; it < iterations; it++) {
    const acc = new Array<number>(G).fill(0);
    for (const r of use) {
      let sum = 0;
      for (let g = 0; g < G; g++) sum += w[g] = pi[g] * like[r][g];
      for (let g = 0; g < G; g++) acc[g] += w[g] / sum;
    }
    pi = acc.map((v) => v / use.length);
  }
  return pi;
}

/** Weights smoothed on log σ² by `kernel` (`kernel[h]`: the normalised kernel around grid point h). */
function smoothed(pi: readonly number[], kernel: readonly number[][]): number[] {
  const out = new Array<number>(pi.length).fill(0);
  for (let h = 0; h < pi.length; h++) for (let g = 0; g < pi.length; g++) out[g] += pi[h] * kernel[h][g];
  return normalize(out);
}

/** P(the mixture's |estimate| >= |est|): the two-sided p-value of a row. */
export function mixtureP(est: number, c: number, row: SharedRow): number {
  let p = 0;
  row.grid.forEach((s, g) => {
    if (row.weights[g] > 1e-12) p += row.weights[g] * erfc(Math.abs(est) / Math.sqrt(2 * s * c));
  });
  return Math.min(1, p);
}

/**
 * The smallest shift the row would be called real at, at two-sided `level` (p <= level), with `power`: under its
 * posterior for σ², as its p-value is computed.
 */
export function mixtureDetectable(c: number, row: SharedRow, level: number, power: number): number {
  const h = mixtureHalfWidth(c, row, 1 - level);
  const powerAt = (delta: number) =>
    row.grid.reduce((s, sigma2, g) => {
      const sd = Math.sqrt(2 * sigma2 * c);
      return s + row.weights[g] * (0.5 * erfc((h - delta) / sd) + 0.5 * erfc((h + delta) / sd));
    }, 0);
  return bisect(0, 2 * h + 60 * Math.sqrt(Math.max(...row.grid) * c), (d) => powerAt(d) < power, 50);
}

/** The half-width h with P(|estimate| > h) = 1 - confidence under the row's mixture (c: the estimate's variance per σ²). */
export function mixtureHalfWidth(c: number, row: SharedRow, confidence: number): number {
  return bisect(0, 60 * Math.sqrt(Math.max(...row.grid) * c), (h) => mixtureP(h, c, row) > 1 - confidence, 50);
}

/** Each row's posterior for σ² under the other rows' prior, and the whole family's prior in limma's terms. */
export function shareSpreads(rows: readonly RowSpread[]): SharedFamily {
  const logs = rows.map((r) => Math.log(r.s2));
  const lo = Math.min(...logs) - 5;
  const hi = Math.max(...logs) + 5;
  const G = SHARING.grid;
  const step = (hi - lo) / (G - 1);
  const grid = Array.from({ length: G }, (_, g) => Math.exp(lo + step * g));
  const logL = rows.map((r) => grid.map((s) => logLikelihood(r.s2, s, r.df)));
  const like = logL.map((l) => {
    const top = Math.max(...l);
    return l.map((v) => Math.exp(v - top));
  });
  const kernel = grid.map((_, h) => normalize(grid.map((_g, g) => Math.exp(-0.5 * (((g - h) * step) / SHARING.smoothing) ** 2))));
  const everyRow = rows.map((_, i) => i);
  const flat = new Array<number>(G).fill(1 / G);
  const fitted = emWeights(everyRow, like, flat);
  const all = smoothed(fitted, kernel);
  const meanLog = all.reduce((s, w, g) => s + w * Math.log(grid[g]), 0);
  const varLog = all.reduce((s, w, g) => s + w * (Math.log(grid[g]) - meanLog) ** 2, 0);
  const temper = 1 / (1 + Math.max(0, varLog - SHARING.smoothing ** 2) / SHARING.commensurate);
  const shared = rows.map((r, i): SharedRow => {
    // Leaving one row out moves the fit little: a few EM steps from the whole family's weights.
    const others = everyRow.filter((j) => j !== i);
    const prior = others.length === 0 ? flat : smoothed(emWeights(others, like, fitted, SHARING.leaveOneOutIterations), kernel);
    // How far out in the others' predictive for s² the row sits.
    const below = predictiveBelow(r, grid, prior);
    const outlier = rows.length > 1 && Math.min(below, 1 - below) < SHARING.outlierTail / 2;
    const weights = outlier ? posterior(logL[i], flat, 1) : posterior(logL[i], prior, temper);
    return { grid, weights, outlier, effectiveDf: postDf(grid, weights) };
  });
  return { rows: shared, priorDf: trigammaInverseDf(varLog), priorScale: Math.sqrt(Math.exp(meanLog)) };
}

/** The df of a scaled inverse χ² as spread on log σ² as the row's posterior (trigamma(df / 2) = its variance). */
function postDf(grid: readonly number[], w: readonly number[]): number {
  const m = w.reduce((s, x, g) => s + x * Math.log(grid[g]), 0);
  return trigammaInverseDf(w.reduce((s, x, g) => s + x * (Math.log(grid[g]) - m) ** 2, 0));
}

/** P(a new s² from the prior is below the row's), by the χ² CDF on each grid point (Wilson-Hilferty). */
function predictiveBelow(r: RowSpread, grid: readonly number[], prior: readonly number[]): number {
  return grid.reduce((s, sigma2, g) => {
    const x = (r.df * r.s2) / sigma2;
    const k = r.df;
    const z = ((x / k) ** (1 / 3) - (1 - 2 / (9 * k))) / Math.sqrt(2 / (9 * k));
    return s + prior[g] * (1 - 0.5 * erfc(z / Math.SQRT2));
  }, 0);
}

/** limma's prior df from the variance of log σ² under the prior: trigamma(d0 / 2) = that variance (Inf when it is 0). */
function trigammaInverseDf(v: number): number {
  if (v < 1e-6) return Number.POSITIVE_INFINITY;
  const trigamma = (x: number) => {
    let s = 0;
    let y = x;
    while (y < 6) {
      s += 1 / (y * y);
      y += 1;
    }
    return s + 1 / y + 1 / (2 * y * y) + 1 / (6 * y ** 3) - 1 / (30 * y ** 5);
  };
  let lo = 1e-4;
  let hi = 1e6;
  for (let i = 0; i < 100; i++) {
    const m = Math.sqrt(lo * hi);
    if (trigamma(m) > v) lo = m;
    else hi = m;
  }
  return 2 * Math.sqrt(lo * hi);
}
