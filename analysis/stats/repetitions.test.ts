import { describe, expect, it } from "vitest";
import { dominantLevel, geometricMean, groupByRep, isMaximum, repInterval, repSpread, rotation } from "./repetitions";
import { nearestRank } from "./percentiles";
import { prng } from "./prng";

/** A normal deviate from a uniform source (Box-Muller). */
function normal(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

/**
 * A synthetic run with a known between-run variance: repetition r's samples
 * are log-normal around exp(mu + u_r), u_r ~ N(0, sigmaBetween). The pooled
 * population's median is exp(mu) (every level is symmetric on the log scale).
 */
function syntheticRun(rnd: () => number, reps: number, perRep: number, mu: number, sigmaBetween: number, sigmaWithin: number): number[][] {
  return Array.from({ length: reps }, () => {
    const u = sigmaBetween * normal(rnd);
    return Array.from({ length: perRep }, () => Math.exp(mu + u + sigmaWithin * normal(rnd)));
  });
}

/** A run's repetitions: repetition r's samples are log-normal around exp(mu + u_r), u_r ~ N(0, sigmaBetween). */
function synthetic(rnd: () => number, reps: number, perRep: number, mu: number, sigmaBetween: number, sigmaWithin: number): number[][] {
  return syntheticRun(rnd, reps, perRep, mu, sigmaBetween, sigmaWithin);
}

/**
 * What the interval is of: the geometric mean over fresh runs of a
 * repetition's nearest-rank quantile, found here from many repetitions.
 */
const TRUTHS = new Map<string, number>();
function truth(p: number, perRep: number): number {
  const known = TRUTHS.get(`${p}/${perRep}`);
  if (known !== undefined) return known;
  const rnd = prng(424242);
  const logs = synthetic(rnd, 20_000, perRep, 1, 0.2, 0.1).map((g) =>
    Math.log(
      nearestRank(
        g.sort((x, y) => x - y),
        p,
      ),
    ),
  );
  const t = Math.exp(logs.reduce((s, x) => s + x, 0) / logs.length);
  TRUTHS.set(`${p}/${perRep}`, t);
  return t;
}

/** The share of `trials` synthetic runs of k repetitions whose printed interval for the p-th percentile holds its truth. */
function coverage(k: number, p: 50 | 90 | 99, perRep: number, trials = 2000): number {
  const q = p === 50 ? "p50" : p === 90 ? "p90" : "p99";
  const target = truth(p, perRep);
  const rnd = prng(77 + k);
  let inside = 0;
  for (let t = 0; t < trials; t++) {
    const c = repSpread(synthetic(rnd, k, perRep, 1, 0.2, 0.1), 0.000001).ci[q];
    if (c.lo! <= target && target <= c.hi!) inside++;
  }
  return inside / trials;
}

describe("the interval over repetitions", () => {
  // 2,000 runs per case: a binomial share within about ±1 point of the true coverage. The between-run spread
  // (SD 0.2 on the log scale) is twice the within-run one (0.1), as the committed runs show.
  for (const k of [3, 5, 10]) {
    it(`covers what it says, 93 to 97%, at ${k} repetitions (p50 and p90 of 40 samples, p99 of 200)`, () => {
      for (const [p, n] of [
        [50, 40],
        [90, 40],
        [99, 200],
      ] as const) {
        const c = coverage(k, p, n);
        expect(c, `p${p}`).toBeGreaterThanOrEqual(0.93);
        expect(c, `p${p}`).toBeLessThanOrEqual(0.97);
      }
    });
  }

  it("is the t interval on the logs: exp(mean ± t(k-1) s / √k)", () => {
    const v = [4, 5, 6.25];
    const logs = v.map(Math.log);
    const m = logs.reduce((s, x) => s + x, 0) / 3;
    const s = Math.sqrt(logs.reduce((a, x) => a + (x - m) ** 2, 0) / 2);
    const c = repInterval(v, { tick: 0.000001 });
    expect(c.lo!).toBeCloseTo(Math.exp(m - (4.302653 * s) / Math.sqrt(3)), 5);
    expect(c.hi!).toBeCloseTo(Math.exp(m + (4.302653 * s) / Math.sqrt(3)), 5);
    expect(geometricMean(v)).toBeCloseTo(5, 10);
  });

  it("says why where there is none: one repetition, a p99 that is each repetition's maximum, values of a few ticks of a whole-ms clock", () => {
    expect(repInterval([5], { tick: 0.000001 }).none).toMatch(/one repetition/);
    const s = repSpread([Array.from({ length: 40 }, (_, i) => 1 + i), Array.from({ length: 40 }, (_, i) => 2 + i)], 0.000001);
    expect(s.ci.p99).toMatchObject({ lo: null, hi: null });
    expect(s.ci.p99.none).toBe("each repetition's p99 is its maximum");
    expect(s.ci.p90.lo).not.toBeNull();
    expect(isMaximum(99, 99)).toBe(true);
    expect(isMaximum(100, 99)).toBe(false);
    expect(isMaximum(9, 90)).toBe(true);
    // The DO's Worker clock: per-repetition p50s of 1, 1, 1 ms are rounding, not a certainty.
    expect(repInterval([1, 1, 1], { tick: 1 }).none).toMatch(/under 5 ticks of a 1 ms clock/);
    expect(repInterval([0.5, 0.6, 0.7], { tick: 2 / 3 }).none).toBe("under 5 ticks of a 0.667 ms clock");
    expect(repInterval([0, 1, 1], { tick: 1 }).none).toMatch(/ticks/);
    // Equal repetitions of 20 ms on that clock: the interval is floored at the rounding, never of zero width.
    const floored = repInterval([20, 20, 20], { tick: 1 });
    expect(floored.hi! - floored.lo!).toBeGreaterThan(0.5);
  });
});

describe("the spread between repetitions", () => {
  it("gives each repetition's percentiles, the CV of their p50s, and the level whose variance dominates", () => {
    const apart = [
      [10, 10.1, 9.9, 10, 10.05],
      [20, 20.1, 19.9, 20, 20.05],
      [15, 15.1, 14.9, 15, 15.05],
    ];
    const s = repSpread(apart, 0.000001);
    expect(s.k).toBe(3);
    expect(s.perRep.p50).toEqual([10, 20, 15]);
    expect(s.cv!).toBeCloseTo(5 / 15, 6);
    expect(s.dominant).toBe("between");
    // The same spread inside every repetition, and equal repetitions: the noise is within a run.
    const alike = [
      [1, 5, 9, 13, 17],
      [2, 5, 9, 12, 18],
      [1, 6, 9, 13, 16],
    ];
    expect(dominantLevel(alike.map((g) => [...g].sort((a, b) => a - b)))).toBe("within");
    expect(
      dominantLevel([
        [3, 3],
        [3, 3],
      ]),
    ).toBe("none");
    // One repetition: nothing to say about the spread between runs.
    const one = repSpread([[1, 2, 3]], 0.000001);
    expect([one.k, one.cv, one.dominant]).toEqual([1, null, null]);
    expect(one.perRep.p99).toEqual([nearestRank([1, 2, 3], 99)]);
  });

  it("groups values by the repetition each was taken in, a sample with none being repetition 0", () => {
    expect(groupByRep([{ rep: 1, v: 5 }, { v: 1 }, { rep: 0, v: 2 }, { rep: 2, v: 9 }, { rep: 1, v: 6 }], (x) => x.v)).toEqual([
      [1, 2],
      [5, 6],
      [9],
    ]);
  });
});

describe("the sides' order across repetitions", () => {
  it("rotates so that each side takes each place in turn", () => {
    const sides = ["rivet", "cloudflare", "floor"];
    expect([0, 1, 2, 3].map((r) => rotation(sides, r).join(" "))).toEqual([
      "rivet cloudflare floor",
      "cloudflare floor rivet",
      "floor rivet cloudflare",
      "rivet cloudflare floor",
    ]);
    expect(rotation(["floor"], 5)).toEqual(["floor"]);
    expect(rotation([], 2)).toEqual([]);
  });
});
