import { describe, expect, it } from "vitest";
import { benjaminiHochberg, compareRows, verdictText, type StageStats } from "./compareRows";
import { fitPrior, trigamma, trigammaInverse, digamma } from "./moderated";
import { prng } from "./prng";

const normal = (rnd: () => number) => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
const HRTIME = 0.000001;

/** A row's per-repetition values: `center` x exp(each repetition's own log offset). */
function stage(logs: readonly number[], center: number, o: { n?: number; tick?: number } = {}): StageStats {
  const reps = logs.map((x) => center * Math.exp(x));
  return { n: (o.n ?? 100) * logs.length, reps: { p50: reps, p90: reps, p99: reps }, perRepN: logs.map(() => o.n ?? 100), tick: o.tick ?? HRTIME, clock: "client" };
}

/**
 * Two runs of `rows` rows with k repetitions each, every repetition's log value
 * N(0, sd[i]) around the row's centre; B's centre is `factor(i)` times A's.
 */
function pair(rnd: () => number, rows: number, k: number, sd: (i: number) => number, factor: (i: number) => number = () => 1) {
  const a: Record<string, StageStats> = {};
  const b: Record<string, StageStats> = {};
  for (let i = 0; i < rows; i++) {
    const draw = () => Array.from({ length: k }, () => sd(i) * normal(rnd));
    a[`rivet.m${i}`] = stage(draw(), 0.5 * (i + 1));
    b[`rivet.m${i}`] = stage(draw(), 0.5 * (i + 1) * factor(i));
  }
  return { a, b };
}

const p50Rows = (a: Record<string, StageStats>, b: Record<string, StageStats>, paired = false) => compareRows(a, b, { paired }).filter((r) => r.q === "p50");

describe("the comparison's power and calibration (synthetic runs, between-repetition SD 0.15 on the log scale, 3 repetitions)", () => {
  it("calls both of 2 doubled rows out of 10 real in at least 80% of pairs", () => {
    const rnd = prng(2026);
    let both = 0;
    const pairs = 1000;
    for (let t = 0; t < pairs; t++) {
      const { a, b } = pair(rnd, 10, 3, () => 0.15, (i) => (i < 2 ? 2 : 1));
      const rows = p50Rows(a, b);
      if (rows[0].verdict === "different" && rows[1].verdict === "different") both++;
    }
    expect(both / pairs).toBeGreaterThanOrEqual(0.8);
  });

  it("A/A: flags at most 5% of rows, with equal spreads and with spreads as uneven as the committed run's", () => {
    for (const sd of [() => 0.15, (i: number) => 0.11 * Math.exp(0.9 * [-1.5, -1, -0.6, -0.3, 0, 0.2, 0.5, 0.8, 1.2, 1.6][i])]) {
      const rnd = prng(7);
      let flagged = 0;
      let rows = 0;
      for (let t = 0; t < 1000; t++) {
        const { a, b } = pair(rnd, 10, 3, sd);
        const out = p50Rows(a, b);
        rows += out.length;
        flagged += out.filter((r) => r.verdict === "different").length;
      }
      expect(flagged / rows).toBeLessThanOrEqual(0.05);
    }
  });

  it("each tested row's 95% interval holds the true ratio about 95% of the time, and states a detectable ratio the doubled rows exceed", () => {
    const rnd = prng(31);
    let inside = 0;
    let total = 0;
    const reach: number[] = [];
    for (let t = 0; t < 500; t++) {
      const { a, b } = pair(rnd, 10, 3, () => 0.15, (i) => (i < 2 ? 2 : 1));
      for (const [i, r] of p50Rows(a, b).entries()) {
        const truth = i < 2 ? 2 : 1;
        if (r.ratioCi!.lo! <= truth && truth <= r.ratioCi!.hi!) inside++;
        total++;
        reach.push(r.detectable!);
      }
    }
    reach.sort((x, y) => x - y);
    // What a lone changed row needs: about 1.5x here (SD 0.15, 3 against 3), so a doubling is well inside its reach.
    expect(reach[0]).toBeGreaterThan(1.2);
    expect(reach[Math.floor(reach.length / 2)]).toBeLessThan(1.8);
    expect(inside / total).toBeGreaterThan(0.93);
    expect(inside / total).toBeLessThan(0.975);
  });
});

describe("paired repetitions (npm run ab)", () => {
  /** A and B interleaved: both sides of pair i share that moment's drift (SD 0.15); each repetition its own noise (SD 0.04). */
  function interleaved(rnd: () => number, pairs: number, factor: number) {
    const a: Record<string, StageStats> = {};
    const b: Record<string, StageStats> = {};
    for (let i = 0; i < 5; i++) {
      const drift = Array.from({ length: pairs }, () => 0.15 * normal(rnd));
      a[`rivet.m${i}`] = stage(drift.map((d) => d + 0.04 * normal(rnd)), 5 + i);
      b[`rivet.m${i}`] = stage(drift.map((d) => d + 0.04 * normal(rnd)), (5 + i) * factor);
    }
    return { a, b };
  }

  it("pairing removes a drift both arms share: a 10% change in 10 pairs is caught paired far more often than unpaired", () => {
    const rnd = prng(5);
    let pairedHits = 0;
    let unpairedHits = 0;
    for (let t = 0; t < 200; t++) {
      const { a, b } = interleaved(rnd, 10, 1.1);
      pairedHits += p50Rows(a, b, true).filter((r) => r.verdict === "different").length;
      unpairedHits += p50Rows(a, b, false).filter((r) => r.verdict === "different").length;
    }
    expect(pairedHits / 1000).toBeGreaterThan(0.8);
    expect(unpairedHits / 1000).toBeLessThan(0.3);
  });

  it("A/A interleaved: at most 5% of rows flagged", () => {
    const rnd = prng(6);
    let flagged = 0;
    for (let t = 0; t < 400; t++) {
      const { a, b } = interleaved(rnd, 10, 1);
      flagged += p50Rows(a, b, true).filter((r) => r.verdict === "different").length;
    }
    expect(flagged / 2000).toBeLessThanOrEqual(0.05);
  });
});

describe("rows it does not test, and never a certainty from identical repetitions", () => {
  it("a whole-ms clock's 2, 2, 2 against 3, 3, 3 cannot tell; equal 20s against 21s get a p above 0 from the rounding floor", () => {
    const whole = (v: number[]): StageStats => ({ n: 300, reps: { p50: v, p90: v, p99: v }, perRepN: [100, 100, 100], tick: 1, clock: "Worker" });
    const [small] = compareRows({ x: whole([2, 2, 2]) }, { x: whole([3, 3, 3]) });
    expect(small.verdict).toBe("cannot tell");
    expect(small.p).toBeNull();
    expect(verdictText(small)).toMatch(/under 5 ticks of a 1 ms clock/);
    const [big] = compareRows({ x: whole([20, 20, 20]) }, { x: whole([21, 21, 21]) });
    expect(big.p!).toBeGreaterThan(0.001);
    expect(big.ratioCi!.lo!).toBeLessThan(1.05);
    expect(big.ratioCi!.hi!).toBeGreaterThan(1.05);
  });

  it("one repetition, a p99 that is a repetition's maximum, and a descriptive row are not tested, and say so", () => {
    const rows = compareRows(
      { one: stage([0], 5), max: stage([0, 0.1, 0.2], 5, { n: 40 }), worker: { ...stage([0, 0.1], 5), descriptive: true } },
      { one: stage([0, 0.1], 5), max: stage([0, 0.1, 0.2], 5, { n: 40 }), worker: { ...stage([0, 0.1], 5), descriptive: true } },
    );
    const by = (k: string, q: string) => rows.find((r) => r.key === k && r.q === q)!;
    expect(verdictText(by("one", "p50"))).toBe("cannot tell: fewer than 2 repetitions");
    expect(verdictText(by("max", "p99"))).toBe("cannot tell: p99 of too few samples a repetition is its maximum");
    expect(by("max", "p50").verdict).toBe("not detected");
    expect(verdictText(by("max", "p50"))).toMatch(/^not detected, B\/A within \[\d\.\d\d, \d\.\d\d\]$/);
    expect(by("worker", "p50").verdict).toBe("descriptive");
  });

  it("Welch where the repetition counts differ: the degrees of freedom follow the smaller arm", () => {
    const [r] = compareRows({ x: stage([0, 0.05, -0.05, 0.02, -0.02, 0.1, -0.1, 0, 0.03, -0.03], 5) }, { x: stage([0, 0.3, -0.3], 10) });
    expect([r.kA, r.kB]).toEqual([10, 3]);
    expect(r.ratio!).toBeCloseTo(2, 1);
    // B's spread dominates: the interval is about t(2) wide, not t(11).
    expect(r.ratioCi!.hi! / r.ratioCi!.lo!).toBeGreaterThan(2);
  });
});

describe("Benjamini-Hochberg over one family", () => {
  it("takes the largest rank whose p-value is under its share of the rate, and every row below it", () => {
    expect(benjaminiHochberg([0.01, 0.04, 0.03, 0.2, null], 0.05)).toEqual([true, false, false, false, false]);
    expect(benjaminiHochberg([0.013, 0.03, 0.012, 0.9], 0.05)).toEqual([true, true, true, false]);
    expect(benjaminiHochberg([], 0.05)).toEqual([]);
  });
});

describe("variances borrowed across rows", () => {
  it("digamma, trigamma and its inverse agree with their known values", () => {
    expect(digamma(1)).toBeCloseTo(-0.5772156649, 9);
    expect(trigamma(1)).toBeCloseTo(Math.PI ** 2 / 6, 9);
    expect(trigamma(0.5)).toBeCloseTo(Math.PI ** 2 / 2, 9);
    expect(trigammaInverse(trigamma(3.7))).toBeCloseTo(3.7, 6);
  });

  it("rows of one true variance: the prior finds it and borrows many degrees of freedom; rows of very different variances borrow few", () => {
    const rnd = prng(3);
    const chi2 = (df: number) => Array.from({ length: df }, () => normal(rnd) ** 2).reduce((s, x) => s + x, 0);
    const same = Array.from({ length: 200 }, () => (0.04 * chi2(2)) / 2);
    const p = fitPrior(same, same.map(() => 2));
    expect(p.s0sq).toBeGreaterThan(0.035);
    expect(p.s0sq).toBeLessThan(0.045);
    expect(p.d0).toBeGreaterThan(20);
    const mixed = same.map((s, i) => s * Math.exp(3 * normal(rnd)) * (i % 2 ? 1 : 1));
    expect(fitPrior(mixed, mixed.map(() => 2)).d0).toBeLessThan(3);
    expect(fitPrior([0.1], [2])).toEqual({ d0: 0, s0sq: 0 });
  });
});
