import { describe, expect, it } from "vitest";
import { durableObjectPlantMs, spinUs } from "./plant";

describe("a planted delay", () => {
  it("spins for what it is asked, to within a few microseconds at the median, never less", () => {
    for (const us of [100, 400, 2000]) {
      const took: number[] = [];
      for (let i = 0; i < 60; i++) {
        const t0 = process.hrtime.bigint();
        spinUs(us);
        took.push(Number(process.hrtime.bigint() - t0) / 1000);
      }
      took.sort((a, b) => a - b);
      expect(took[0], `${us} us`).toBeGreaterThanOrEqual(us);
      // A loaded machine can preempt the spin; the median still lands on the asked time.
      expect(took[30], `${us} us`).toBeLessThan(us * 1.1 + 20);
    }
    const t0 = process.hrtime.bigint();
    spinUs(0);
    expect(Number(process.hrtime.bigint() - t0) / 1000).toBeLessThan(1000);
  });

  it("the Durable Object's timer rounds up to whole milliseconds", () => {
    expect([1, 400, 1000, 1001].map(durableObjectPlantMs)).toEqual([1, 1, 1, 2]);
  });
});
