/**
 * Variances borrowed across rows (empirical Bayes; Smyth 2004, "Linear
 * models and empirical Bayes methods for assessing differential expression",
 * the method of limma's squeezeVar). With three repetitions a row's own
 * variance has two degrees of freedom and its t test needs a ratio of about
 * 4.3 standard errors; the rows of one comparison tell how variances are
 * spread, and each row's variance is drawn towards their common value by as
 * much as that spread allows. Pure and free of Node imports (the site's
 * comparison page bundles it).
 */

/** ψ(x), x > 0: the recurrence up to 6, then the asymptotic series. */
export function digamma(x: number): number {
  let acc = 0;
  while (x < 6) {
    acc -= 1 / x;
    x += 1;
  }
  const f = 1 / (x * x);
  return acc + Math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))));
}

/** ψ'(x), x > 0, likewise. */
export function trigamma(x: number): number {
  let acc = 0;
  while (x < 6) {
    acc += 1 / (x * x);
    x += 1;
  }
  const f = 1 / (x * x);
  return acc + 1 / x + f / 2 + (f / x) * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f / 30)));
}

/** The x > 0 with ψ'(x) = y (ψ' falls from +∞ to 0), by bisection on the log scale. */
export function trigammaInverse(y: number): number {
  if (!(y > 0)) throw new RangeError(`trigammaInverse takes a value above 0, got ${y}`);
  let lo = Math.log(1e-8);
  let hi = Math.log(1e8);
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (trigamma(Math.exp(mid)) > y) lo = mid;
    else hi = mid;
  }
  return Math.exp((lo + hi) / 2);
}

export interface Prior {
  /** The prior's degrees of freedom: how many repetitions' worth the rows' common variance counts for (0: none borrowed). */
  d0: number;
  /** The rows' common variance. */
  s0sq: number;
}

/**
 * The prior the rows' variances share: each `variances[i]` has `df[i]`
 * degrees of freedom. Fitted by moments on the log scale (Smyth's fitFDist).
 * The prior counts for no more degrees of freedom than all the rows
 * together have: it is estimated from them. Fewer than two rows with a
 * variance above 0: nothing is borrowed.
 */
export function fitPrior(variances: readonly number[], df: readonly number[]): Prior {
  const rows = variances.map((s2, i) => [s2, df[i]] as const).filter(([s2, d]) => s2 > 0 && d > 0 && Number.isFinite(s2));
  if (rows.length < 2) return { d0: 0, s0sq: 0 };
  const e = rows.map(([s2, d]) => Math.log(s2) - digamma(d / 2) + Math.log(d / 2));
  const emean = e.reduce((s, x) => s + x, 0) / e.length;
  const spread = e.reduce((s, x) => s + (x - emean) ** 2, 0) / (e.length - 1) - rows.reduce((s, [, d]) => s + trigamma(d / 2), 0) / rows.length;
  const cap = rows.reduce((s, [, d]) => s + d, 0);
  if (!(spread > 0)) return { d0: cap, s0sq: Math.exp(emean + digamma(cap / 2) - Math.log(cap / 2)) };
  const d0 = Math.min(cap, 2 * trigammaInverse(spread));
  return { d0, s0sq: Math.exp(emean + digamma(d0 / 2) - Math.log(d0 / 2)) };
}

/** A row's variance drawn towards the prior, with the degrees of freedom it then has. */
export function moderate(s2: number, df: number, prior: Prior): { s2: number; df: number } {
  if (prior.d0 === 0) return { s2, df };
  return { s2: (prior.d0 * prior.s0sq + df * s2) / (prior.d0 + df), df: prior.d0 + df };
}
