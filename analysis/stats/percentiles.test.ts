import { describe, expect, it } from "vitest";
import { LEGACY_BOOK } from "../contract/sideProfile";
import { mean, nearestRank } from "./percentiles";
import { summarize } from "./summary";

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("nearestRank", () => {
  it("n = 1: every percentile is the one sample", () => {
    expect([50, 90, 99].map((p) => nearestRank([7], p))).toEqual([7, 7, 7]);
  });
  it("n = 2: p50 is the first, p90 and p99 the second", () => {
    expect([50, 90, 99].map((p) => nearestRank([1, 2], p))).toEqual([1, 2, 2]);
  });
  it("n = 10: ranks 5, 9, 10", () => {
    expect([50, 90, 99].map((p) => nearestRank(range(10), p))).toEqual([5, 9, 10]);
  });
  it("n = 200: ranks 100, 180, 198", () => {
    expect([50, 90, 99].map((p) => nearestRank(range(200), p))).toEqual([100, 180, 198]);
  });
  it("n = 1500: ranks 750, 1350, 1485", () => {
    expect([50, 90, 99].map((p) => nearestRank(range(1500), p))).toEqual([750, 1350, 1485]);
  });
  it("does not interpolate (R-7 would give 2.5 for [1,2,3,4] at p50)", () => {
    expect(nearestRank([1, 2, 3, 4], 50)).toBe(2);
  });
  it("ties keep their value", () => {
    expect(nearestRank([1, 3, 3, 3, 9], 50)).toBe(3);
  });
  it("empty input is NaN, a bad p throws", () => {
    expect(nearestRank([], 50)).toBeNaN();
    expect(() => nearestRank([1], 0)).toThrow(/percentile/);
    expect(mean([])).toBeNaN();
  });
});

describe("summarize", () => {
  const s = (ok: boolean, ms: number, cold: boolean | null) => ({ ok, ms, cold });
  it("counts failures and not-cold samples apart and takes percentiles over proven cold ones only", () => {
    const row = summarize(LEGACY_BOOK.get("rivet"), "create.ping", [
      s(true, 5, true),
      s(true, 1, false),
      s(false, 30000, null),
      s(true, 7, true),
    ]);
    expect(row).toMatchObject({ n: 2, errors: 1, notCold: 1, p50: 5, p99: 7, mean: 6 });
  });
  it("a warm metric ignores the cold flag", () => {
    const row = summarize(LEGACY_BOOK.get("rivet"), "warm.ping", [s(true, 2, null), s(true, 4, null)]);
    expect(row).toMatchObject({ n: 2, errors: 0, notCold: 0, p50: 2, p90: 4 });
  });
});
