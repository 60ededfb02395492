/**
 * Distribution-free confidence interval for a quantile from order statistics.
 * With B ~ Binomial(n, p), the interval [X(l), X(u)] of the sorted sample
 * covers the p-quantile with probability P(l <= B <= u - 1). We take the
 * narrowest symmetric ranks: l the largest rank with P(B <= l - 1) <= alpha/2,
 * u the smallest with P(B <= u - 1) >= 1 - alpha/2. When n is too small for a
 * bound, that bound is null (the data cannot support it).
 */
interface RankInterval {
  /** 1-based ranks, or null where n is too small. */
  lowerRank: number | null;
  upperRank: number | null;
  /** The exact coverage of [X(l), X(u)] (with the missing end taken as unbounded). */
  coverage: number;
}

/** CDF of Binomial(n, p) at k = 0..n, computed in log space (stable for n in the thousands). */
export function binomialCdf(n: number, p: number): number[] {
  if (!(p > 0 && p < 1)) throw new RangeError(`p must be in (0, 1), got ${p}`);
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  const logPmf: number[] = new Array(n + 1);
  logPmf[0] = n * logQ;
  for (let k = 0; k < n; k++) logPmf[k + 1] = logPmf[k] + Math.log((n - k) / (k + 1)) + logP - logQ;
  const max = Math.max(...logPmf);
  let total = 0;
  const w = logPmf.map((l) => Math.exp(l - max));
  for (const x of w) total += x;
  const cdf: number[] = new Array(n + 1);
  let acc = 0;
  for (let k = 0; k <= n; k++) {
    acc += w[k];
    cdf[k] = Math.min(1, acc / total);
  }
  return cdf;
}

export function quantileRankInterval(n: number, p: number, confidence = 0.95): RankInterval {
  if (n <= 0) return { lowerRank: null, upperRank: null, coverage: 0 };
  const alpha = 1 - confidence;
  const F = binomialCdf(n, p / 100);
  let lowerRank: number | null = null;
  for (let l = 1; l <= n; l++) {
    if (F[l - 1] <= alpha / 2) lowerRank = l;
    else break;
  }
  let upperRank: number | null = null;
  for (let u = 1; u <= n; u++) {
    if (F[u - 1] >= 1 - alpha / 2) {
      upperRank = u;
      break;
    }
  }
  const below = lowerRank === null ? 0 : F[lowerRank - 1];
  const upTo = upperRank === null ? 1 : F[upperRank - 1];
  return { lowerRank, upperRank, coverage: upTo - below };
}

/** The interval's values on an ascending sample; null ends where n is too small. */
export function quantileCI(sorted: readonly number[], p: number, confidence = 0.95): { lo: number | null; hi: number | null } {
  const r = quantileRankInterval(sorted.length, p, confidence);
  return {
    lo: r.lowerRank === null ? null : sorted[r.lowerRank - 1],
    hi: r.upperRank === null ? null : sorted[r.upperRank - 1],
  };
}
