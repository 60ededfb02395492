import { describe, expect, it } from "vitest";
import { binomialCdf, quantileCI, quantileRankInterval } from "./confidence";

describe("binomialCdf", () => {
  it("matches hand values for Binomial(10, 0.5)", () => {
    const F = binomialCdf(10, 0.5);
    expect(F[0]).toBeCloseTo(1 / 1024, 10);
    expect(F[1]).toBeCloseTo(11 / 1024, 10);
    expect(F[2]).toBeCloseTo(56 / 1024, 10);
    expect(F[10]).toBeCloseTo(1, 12);
  });
  it("stays finite for large n", () => {
    const F = binomialCdf(5000, 0.99);
    expect(F[5000]).toBeCloseTo(1, 9);
    expect(F.every((x) => Number.isFinite(x))).toBe(true);
  });
});

describe("quantileRankInterval", () => {
  it("median of 10: ranks 2 and 9 with coverage 1002/1024", () => {
    const r = quantileRankInterval(10, 50);
    expect(r).toMatchObject({ lowerRank: 2, upperRank: 9 });
    expect(r.coverage).toBeCloseTo((1024 - 22) / 1024, 10);
  });
  it("median of 100: ranks 40 and 61 (the textbook interval)", () => {
    expect(quantileRankInterval(100, 50)).toMatchObject({ lowerRank: 40, upperRank: 61 });
  });
  it("p99 of 200 has no upper bound; of 1,500 it has both, around rank 1485", () => {
    expect(quantileRankInterval(200, 99).upperRank).toBeNull();
    const r = quantileRankInterval(1500, 99);
    expect(r.lowerRank).toBeLessThan(1485);
    expect(r.upperRank).toBeGreaterThan(1485);
    expect(r.coverage).toBeGreaterThanOrEqual(0.95);
  });
  it("n too small: no bounds at all", () => {
    expect(quantileRankInterval(3, 50)).toMatchObject({ lowerRank: null, upperRank: null });
  });
  it("maps ranks to values", () => {
    const xs = Array.from({ length: 10 }, (_, i) => (i + 1) * 10);
    expect(quantileCI(xs, 50)).toEqual({ lo: 20, hi: 90 });
  });
});
