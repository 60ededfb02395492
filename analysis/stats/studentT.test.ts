import { describe, expect, it } from "vitest";
import { incompleteBeta, logGamma, normalCdf, shiftForPower, tCritical, tPower, tTwoSidedP } from "./studentT";
import { prng } from "./prng";

describe("Student's t", () => {
  it("log-gamma matches factorials and Γ(1/2) = √π", () => {
    expect(logGamma(1)).toBeCloseTo(0, 12);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
  });

  it("the incomplete beta has its closed forms: I_x(1, 1) = x, I_x(a, 1) = x^a", () => {
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(incompleteBeta(0.7, 3, 1)).toBeCloseTo(0.343, 12);
    expect(incompleteBeta(0, 2, 3)).toBe(0);
    expect(incompleteBeta(1, 2, 3)).toBe(1);
  });

  it("gives the tables' critical values and p-values", () => {
    // Two-sided 95% critical values of the t tables.
    for (const [df, t] of [
      [1, 12.706],
      [2, 4.303],
      [4, 2.776],
      [10, 2.228],
      [30, 2.042],
    ] as const)
      expect(tCritical(df), `df ${df}`).toBeCloseTo(t, 3);
    expect(tTwoSidedP(2, 10)).toBeCloseTo(0.0734, 4);
    expect(tTwoSidedP(0, 4)).toBeCloseTo(1, 12);
    expect(tTwoSidedP(-2.776, 4)).toBeCloseTo(0.05, 3);
    // df 1 is the Cauchy distribution: P(|T| >= 1) = 1/2.
    expect(tTwoSidedP(1, 1)).toBeCloseTo(0.5, 12);
    expect(tTwoSidedP(Number.POSITIVE_INFINITY, 3)).toBe(0);
  });
});

describe("the noncentral t's power", () => {
  it("at no shift is the test's own level, and agrees with a simulation at df 2 and 4", () => {
    expect(tPower(0, 4, tCritical(4))).toBeCloseTo(0.05, 4);
    expect(tPower(0, 2, tCritical(2, 0.99))).toBeCloseTo(0.01, 4);
    expect(normalCdf(1.959963985)).toBeCloseTo(0.975, 6);
    const rnd = prng(44);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    for (const df of [2, 4]) {
      const crit = tCritical(df);
      const delta = shiftForPower(df, crit, 0.8);
      let hits = 0;
      const runs = 20_000;
      for (let i = 0; i < runs; i++) {
        let v = 0;
        for (let j = 0; j < df; j++) v += normal() ** 2;
        if (Math.abs((normal() + delta) / Math.sqrt(v / df)) >= crit) hits++;
      }
      // Monte Carlo SD of 0.8 at 20,000 runs: 0.003.
      expect(hits / runs, `df ${df}`).toBeGreaterThan(0.79);
      expect(hits / runs, `df ${df}`).toBeLessThan(0.81);
      // The normal approximation (crit + z(0.8)) falls short at small df: that is why this exists.
      expect(delta, `df ${df}`).toBeGreaterThan(crit + 0.8416);
    }
  });
});
