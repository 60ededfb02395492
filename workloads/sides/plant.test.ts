import { describe, expect, it } from "vitest";
import { spinUs } from "./plant";
import { durableObjectPlantMs, plantText, plantUsFor, plantWords, readPlant } from "./plantSpec";

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

describe("a plant by operation", () => {
  it("slows the operation it names, or every one; travels as text and back; refuses what it does not know", () => {
    expect(plantUsFor({ write: 500 }, "write")).toBe(500);
    expect(plantUsFor({ write: 500 }, "read")).toBe(0);
    expect(plantUsFor({ "*": 300, write: 500 }, "ping")).toBe(300);
    expect(readPlant(plantText({ "*": 300, write: 500 }))).toEqual({ "*": 300, write: 500 });
    expect(readPlant(undefined)).toEqual({});
    expect(plantWords({ "*": 0, write: 500 })).toBe("500 us in write");
    expect(() => readPlant("delete=5")).toThrow(
      /a plant is op=microseconds pairs with ops \*, ping, read, write, scan, seed, setAlarm, setAlarmSleep, alarmResult, sleep, got "delete=5"/,
    );
    expect(() => readPlant("write=-5")).toThrow(/got "write=-5"/);
  });
});
