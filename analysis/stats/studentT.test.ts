import { describe, expect, it } from "vitest";
import { incompleteBeta, logGamma, tCritical, tTwoSidedP } from "./studentT";

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
    for (const [df, t] of [[1, 12.706], [2, 4.303], [4, 2.776], [10, 2.228], [30, 2.042]] as const) expect(tCritical(df), `df ${df}`).toBeCloseTo(t, 3);
    expect(tTwoSidedP(2, 10)).toBeCloseTo(0.0734, 4);
    expect(tTwoSidedP(0, 4)).toBeCloseTo(1, 12);
    expect(tTwoSidedP(-2.776, 4)).toBeCloseTo(0.05, 3);
    // df 1 is the Cauchy distribution: P(|T| >= 1) = 1/2.
    expect(tTwoSidedP(1, 1)).toBeCloseTo(0.5, 12);
    expect(tTwoSidedP(Number.POSITIVE_INFINITY, 3)).toBe(0);
  });
});
