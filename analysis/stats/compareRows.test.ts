import { describe, expect, it } from "vitest";
import { benjaminiHochberg, compareRows, repetitionTest, type StageStats } from "./compareRows";
import { prng } from "./prng";

const normal = (rnd: () => number) => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());

/** A stage's figures over k repetitions whose p50 varies log-normally between runs (CV about `cv`) around `p50`. */
function stage(rnd: () => number, k: number, p50: number, cv: number): StageStats {
  const reps = Array.from({ length: k }, () => p50 * Math.exp(cv * normal(rnd)));
  const none = { lo: null, hi: null };
  return { n: 100 * k, p50: reps[0], p90: reps[0], p99: reps[0], ci: { p50: none, p90: none, p99: none }, reps: { p50: reps, p90: reps, p99: reps } };
}

/** Two runs of `rows` stages each (p50s 0.5, 1, 1.5, ... ms, CV `cv` between repetitions), B's p50s `shift(p50)` where A's are p50. */
function pair(seed: number, rows: number, k: number, cv: number, shift: (p50: number) => number = (x) => x) {
  const rnd = prng(seed);
  const a: Record<string, StageStats> = {};
  const b: Record<string, StageStats> = {};
  for (let i = 0; i < rows; i++) {
    const p50 = 0.5 * (i + 1);
    a[`floor.m${i}`] = stage(rnd, k, p50, cv);
    b[`floor.m${i}`] = stage(rnd, k, shift(p50), cv);
  }
  return { a, b };
}

describe("the t test over repetitions", () => {
  it("is calibrated with three repetitions a side: about 5% of rows with no difference have p < 0.05", () => {
    let below = 0;
    const trials = 4000;
    const rnd = prng(11);
    for (let t = 0; t < trials; t++) {
      const a = Array.from({ length: 3 }, () => Math.exp(0.2 * normal(rnd)));
      const b = Array.from({ length: 3 }, () => Math.exp(0.2 * normal(rnd)));
      if (repetitionTest(a, b).p! < 0.05) below++;
    }
    expect(below / trials).toBeGreaterThan(0.035);
    expect(below / trials).toBeLessThan(0.065);
  });

  it("cannot tell with fewer than two repetitions a side, and tests on the values where one is 0 (a whole-ms clock)", () => {
    expect(repetitionTest([1], [1, 2, 3])).toEqual({ p: null, ratioCi: null });
    const zero = repetitionTest([0, 1, 1], [5, 6, 5]);
    expect(zero.ratioCi).toBeNull();
    expect(zero.p!).toBeLessThan(0.01);
    expect(repetitionTest([2, 2, 2], [2, 2, 2]).p).toBe(1);
    expect(repetitionTest([2, 2, 2], [3, 3, 3]).p).toBe(0);
  });
});

describe("Benjamini-Hochberg over the rows of a comparison", () => {
  it("takes the largest rank whose p-value is under its share of the rate, and every row below it", () => {
    expect(benjaminiHochberg([0.01, 0.04, 0.03, 0.2, null], 0.05)).toEqual([true, false, false, false, false]);
    // Rank 3 of 4 passes (0.03 <= 3/4 x 0.05), so ranks 1 and 2 do too, even the one above its own share.
    expect(benjaminiHochberg([0.013, 0.03, 0.012, 0.9], 0.05)).toEqual([true, true, true, false]);
    expect(benjaminiHochberg([], 0.05)).toEqual([]);
  });

  it("two runs of the same thing: over many pairs of 25-row runs, a row is called different far less than 5% of the time", () => {
    let flagged = 0;
    let rows = 0;
    for (let seed = 0; seed < 200; seed++) {
      const { a, b } = pair(seed, 25, 3, 0.15);
      const out = compareRows(a, b).filter((r) => r.q === "p50");
      rows += out.length;
      flagged += out.filter((r) => r.verdict === "different").length;
    }
    expect(flagged / rows).toBeLessThan(0.01);
  });

  it("a planted 2 ms delay is called different on every row of 0.5 to 5 ms that varies 5% between repetitions, and the ratio's interval holds the true ratio", () => {
    // With three repetitions the power depends on the ratio against the spread: +2 ms on 5 ms is 1.4x, about seven CVs of 5%.
    for (let seed = 0; seed < 20; seed++) {
      const { a, b } = pair(seed, 10, 3, 0.05, (x) => x + 2);
      const out = compareRows(a, b).filter((r) => r.q === "p50");
      expect(out.map((r) => r.verdict), `seed ${seed}`).toEqual(out.map(() => "different"));
    }
    const { a, b } = pair(99, 1, 3, 0.05, (x) => x + 2);
    const [r] = compareRows(a, b);
    expect(r.ratioCi!.lo!).toBeLessThan(2.5 / 0.5);
    expect(r.ratioCi!.hi!).toBeGreaterThan(2.5 / 0.5);
  });
});
