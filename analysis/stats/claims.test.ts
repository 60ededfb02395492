import { describe, expect, it } from "vitest";
import type { Claim } from "../contract/claims";
import type { CapacityCurve } from "./capacity";
import { claimsLedger, ledgerRow, type LedgerInput } from "./claims";
import type { RunSummary } from "./summary";

const claim = (over: Partial<Claim> = {}): Claim => ({
  id: "t",
  side: "cloudflare",
  words: "one object takes 1,000 requests a second",
  who: "a vendor",
  source: "a page",
  date: "2026-12-06",
  states: { value: 1000, unit: "per second", relation: "at least" },
  measure: { kind: "held", op: "warm1" },
  ...over,
});

const curve = (estimate: number, lo: number | null, hi: number | null): CapacityCurve =>
  ({
    side: "cloudflare",
    op: "warm1",
    held: { estimate, lo, hi, ...(lo === null ? { none: "one repetition" } : {}) },
  }) as unknown as CapacityCurve;

const input = (c: CapacityCurve | null, cloud = false): LedgerInput => ({
  cloud,
  summary: { rows: [], throughput: [], sides: { order: ["rivet", "cloudflare"] } } as unknown as RunSummary,
  samples: new Map(),
  capacity: c ? [c] : [],
  memory: [],
});

describe("a claim's verdict", () => {
  it("at least X: consistent when the interval's upper end reaches X, not when it stays below", () => {
    expect(ledgerRow(claim(), input(curve(900, 800, 1000))).verdict).toBe("consistent here");
    expect(ledgerRow(claim(), input(curve(900, 800, 999))).verdict).toBe("not consistent here");
  });

  it("at most X: consistent when the lower end is X or less", () => {
    const c = claim({ states: { value: 50, unit: "per second", relation: "at most" } });
    expect(ledgerRow(c, input(curve(60, 50, 70))).verdict).toBe("consistent here");
    expect(ledgerRow(c, input(curve(60, 51, 70))).verdict).toBe("not consistent here");
  });

  it("about X: consistent when the interval reaches within a factor of 1.25 of X, from either side", () => {
    const c = claim({ states: { value: 100, unit: "per second", relation: "about" } });
    expect(ledgerRow(c, input(curve(130, 125, 140))).verdict).toBe("consistent here");
    expect(ledgerRow(c, input(curve(130, 126, 140))).verdict).toBe("not consistent here");
    expect(ledgerRow(c, input(curve(70, 60, 80))).verdict).toBe("consistent here");
    expect(ledgerRow(c, input(curve(70, 60, 79))).verdict).toBe("not consistent here");
  });

  it("is not comparable, with the reason, for another release, a hosted platform on a local run, no figure, or no interval", () => {
    const never = ledgerRow(claim({ never: "another SDK" }), input(curve(900, 800, 1000)));
    expect(never).toMatchObject({ verdict: "not comparable here", why: "another SDK" });
    const hosted = claim({ cloudOnly: "a hosted platform's figure" });
    expect(ledgerRow(hosted, input(curve(900, 800, 1000))).verdict).toBe("not comparable here");
    expect(ledgerRow(hosted, input(curve(900, 800, 1000), true)).verdict).toBe("consistent here");
    expect(ledgerRow(claim(), input(null)).why).toMatch(/no figure/);
    const about = claim({ states: { value: 900, unit: "per second", relation: "about" } });
    expect(ledgerRow(about, input(curve(900, null, null))).why).toMatch(/^no 95% interval in this run: one repetition/);
  });

  it("holds a figure with no interval to a one-sided claim by itself, and says so", () => {
    expect(ledgerRow(claim(), input(curve(1000, null, null)))).toMatchObject({
      verdict: "consistent here",
      why: "judged on the figure itself, which has no 95% interval (one repetition)",
    });
    expect(ledgerRow(claim(), input(curve(999, null, null))).verdict).toBe("not consistent here");
  });

  it("keeps only the claims of the sides the run measured", () => {
    const x = input(null);
    x.summary = { ...x.summary, sides: { order: ["floor"] } } as unknown as RunSummary;
    expect(claimsLedger(x, [claim()])).toEqual([]);
  });
});
