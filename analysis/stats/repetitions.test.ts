import { describe, expect, it } from "vitest";
import { dominantLevel, groupByRep, hierarchicalBootstrap, repSpread, rotation, seedOf } from "./repetitions";
import { quantileCI } from "./confidence";
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

describe("the hierarchical bootstrap over repetitions", () => {
  it("covers the true p50 about 95% of the time when runs vary more than samples do, where an interval over one run's pooled samples does not", () => {
    const trueP50 = Math.exp(1);
    let hier = 0;
    let pooled = 0;
    const trials = 300;
    for (let t = 0; t < trials; t++) {
      const groups = syntheticRun(prng(1000 + t), 20, 40, 1, 0.2, 0.1);
      const [c] = hierarchicalBootstrap(groups, [50], { seed: t, resamples: 400 });
      if (c.lo! <= trueP50 && trueP50 <= c.hi!) hier++;
      const all = groups.flat().sort((a, b) => a - b);
      const w = quantileCI(all, 50);
      if (w.lo! <= trueP50 && trueP50 <= w.hi!) pooled++;
    }
    // 300 trials: a binomial count within about ±2.5 points of the true coverage; a percentile bootstrap over 20 repetitions
    // runs a little narrow (about 92 to 94% here), and over 3 far more so (about 70%), which is why compare does not use it.
    expect(hier / trials).toBeGreaterThan(0.89);
    expect(hier / trials).toBeLessThan(0.99);
    // The samples-only interval is far too narrow: it states a precision the next run does not have.
    expect(pooled / trials).toBeLessThan(0.5);
  });

  it("is seeded: the same groups and seed give the same interval, another seed another draw", () => {
    const groups = syntheticRun(prng(7), 3, 100, 2, 0.1, 0.3);
    const a = hierarchicalBootstrap(groups, [50, 90, 99], { seed: seedOf("rivet.create.ping") });
    expect(hierarchicalBootstrap(groups, [50, 90, 99], { seed: seedOf("rivet.create.ping") })).toEqual(a);
    expect(hierarchicalBootstrap(groups, [50, 90, 99], { seed: seedOf("rivet.create.read") })).not.toEqual(a);
    // Each end is one of the samples (nearest rank, no interpolation), and the ends are ordered.
    const all = new Set(groups.flat());
    for (const c of a) {
      expect(all.has(c.lo!) && all.has(c.hi!)).toBe(true);
      expect(c.lo!).toBeLessThanOrEqual(c.hi!);
    }
  });

  it("finds the nearest-rank quantile of each weighted resample: one repetition of one value gives that value", () => {
    expect(hierarchicalBootstrap([[4]], [50, 99], { seed: 1, resamples: 50 })).toEqual([{ lo: 4, hi: 4 }, { lo: 4, hi: 4 }]);
    expect(hierarchicalBootstrap([[], []], [50], { seed: 1 })).toEqual([{ lo: null, hi: null }]);
    // Two repetitions that never overlap: the interval reaches into both.
    const [c] = hierarchicalBootstrap([[1, 1, 1, 1], [9, 9, 9, 9]], [50], { seed: 3, resamples: 500 });
    expect([c.lo, c.hi]).toEqual([1, 9]);
  });
});

describe("the spread between repetitions", () => {
  it("gives each repetition's percentiles, the CV of their p50s, and the level whose variance dominates", () => {
    const apart = [[10, 10.1, 9.9, 10, 10.05], [20, 20.1, 19.9, 20, 20.05], [15, 15.1, 14.9, 15, 15.05]];
    const s = repSpread(apart, "x");
    expect(s.k).toBe(3);
    expect(s.perRep.p50).toEqual([10, 20, 15]);
    expect(s.cv!).toBeCloseTo(5 / 15, 6);
    expect(s.dominant).toBe("between");
    // The same spread inside every repetition, and equal repetitions: the noise is within a run.
    const alike = [[1, 5, 9, 13, 17], [2, 5, 9, 12, 18], [1, 6, 9, 13, 16]];
    expect(dominantLevel(alike.map((g) => [...g].sort((a, b) => a - b)))).toBe("within");
    expect(dominantLevel([[3, 3], [3, 3]])).toBe("none");
    // One repetition: nothing to say about the spread between runs.
    const one = repSpread([[1, 2, 3]], "y");
    expect([one.k, one.cv, one.dominant]).toEqual([1, null, null]);
    expect(one.perRep.p99).toEqual([nearestRank([1, 2, 3], 99)]);
  });

  it("groups values by the repetition each was taken in, a sample with none being repetition 0", () => {
    expect(groupByRep([{ rep: 1, v: 5 }, { v: 1 }, { rep: 0, v: 2 }, { rep: 2, v: 9 }, { rep: 1, v: 6 }], (x) => x.v)).toEqual([[1, 2], [5, 6], [9]]);
  });
});

describe("the sides' order across repetitions", () => {
  it("rotates so that each side takes each place in turn", () => {
    const sides = ["rivet", "cloudflare", "floor"];
    expect([0, 1, 2, 3].map((r) => rotation(sides, r).join(" "))).toEqual(["rivet cloudflare floor", "cloudflare floor rivet", "floor rivet cloudflare", "rivet cloudflare floor"]);
    expect(rotation(["floor"], 5)).toEqual(["floor"]);
    expect(rotation([], 2)).toEqual([]);
  });
});
