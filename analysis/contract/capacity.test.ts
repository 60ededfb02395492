import { describe, expect, it } from "vitest";
import {
  CAPACITY,
  CAPACITY_OPS,
  capacityMetric,
  kneeOf,
  maxSteps,
  nextRate,
  parseCapacityMetric,
  searchBounds,
  stepAllowance,
  stepVerdict,
  stepWatch,
  type SearchBounds,
} from "./capacity";
import { prng } from "../stats/prng";

const objective = { p99Ms: 100, maxFailureShare: 0.001 };
const ok = (ms: number) => ({ ok: true, ms, cold: true });
const fail = { ok: false, ms: 5 };

describe("a step's verdict", () => {
  it("holds with p99 within the objective and failures within 0.1%, and misses one over either", () => {
    const fast = Array.from({ length: 1000 }, () => ok(10));
    expect(stepVerdict(1000, fast, objective, false).held).toBe(true);
    // Ten slow of 1,000: the 990th is fast, so p99 holds; eleven: it misses.
    const ten = [...fast.slice(10), ...Array.from({ length: 10 }, () => ok(500))];
    expect(stepVerdict(1000, ten, objective, false).held).toBe(true);
    const eleven = [...fast.slice(11), ...Array.from({ length: 11 }, () => ok(500))];
    expect(stepVerdict(1000, eleven, objective, false)).toMatchObject({
      held: false,
      why: expect.stringMatching(/^p99 500\.0 ms over 100 ms/),
    });
    // One failure of 1,000 is allowed, two are not.
    expect(stepVerdict(1000, [...fast.slice(1), fail], objective, false).held).toBe(true);
    expect(stepVerdict(1000, [...fast.slice(2), fail, fail], objective, false)).toMatchObject({
      held: false,
      why: "2 of 1000 failed (at most 1 allowed)",
    });
  });

  it("counts a create not proven cold as a failure, and a step that sent fewer than it planned as missed", () => {
    const notCold = [...Array.from({ length: 98 }, () => ok(10)), { ok: true, ms: 10, cold: false }, { ok: true, ms: 10, cold: false }];
    expect(stepVerdict(100, notCold, objective, true).held).toBe(false);
    expect(stepVerdict(100, notCold, objective, false).held).toBe(true);
    expect(
      stepVerdict(
        100,
        Array.from({ length: 60 }, () => ok(10)),
        objective,
        false,
      ),
    ).toMatchObject({ held: false, why: "stopped after 60 of 100 arrivals" });
  });

  it("the watch stops a step only when its verdict must be a miss, whatever the rest would do", () => {
    const rnd = prng(7);
    let stopped = 0;
    for (let trial = 0; trial < 400; trial++) {
      const planned = 50 + Math.floor(rnd() * 500);
      const pSlow = rnd() * 0.03;
      const pFail = rnd() * 0.004;
      const stream = Array.from({ length: planned }, () => (rnd() < pFail ? fail : ok(rnd() < pSlow ? 400 : 5)));
      const watch = stepWatch(planned, objective, false);
      const at = stream.findIndex((s) => watch(s) !== undefined);
      if (at < 0) continue;
      stopped++;
      // The best the remaining arrivals could do: all fast and successful.
      const best = [...stream.slice(0, at + 1), ...Array.from({ length: planned - at - 1 }, () => ok(1))];
      expect(stepVerdict(planned, best, objective, false).held, `trial ${trial}`).toBe(false);
    }
    expect(stopped).toBeGreaterThan(50);
  });

  it("allows the slow successes a nearest-rank p99 allows, fewer as failures grow", () => {
    expect(stepAllowance(1000, objective)).toEqual({ failures: 1, slow: 10 });
    expect(stepAllowance(1000, objective, 1).slow).toBe(9);
    expect(stepAllowance(50, objective)).toEqual({ failures: 0, slow: 0 });
  });
});

/** A side that holds every rate up to `knee` and none above. */
function search(knee: number, b: SearchBounds) {
  const steps: Array<{ rate: number; held: boolean }> = [];
  for (let r = nextRate(steps, b); r !== null; r = nextRate(steps, b)) steps.push({ rate: r, held: r <= knee });
  return steps;
}

describe("the search for the knee", () => {
  it("brackets a side's knee within the resolution, for knees across the whole range, within maxSteps", () => {
    for (const op of CAPACITY_OPS) {
      const b = searchBounds(op);
      for (const knee of [b.start, 7, 37, 99, 400, 1234, 5000, 19_999]) {
        if (knee < b.start) continue;
        const steps = search(knee, b);
        const k = kneeOf(steps);
        expect(k.held, `${op} knee ${knee}`).not.toBeNull();
        expect(k.held!).toBeLessThanOrEqual(knee);
        expect(k.missed === null || k.missed > knee).toBe(true);
        if (k.missed !== null) expect(k.missed / k.held!).toBeLessThanOrEqual(b.resolution);
        expect(steps.length).toBeLessThanOrEqual(maxSteps(b));
        expect(new Set(steps.map((s) => s.rate)).size).toBe(steps.length);
      }
    }
  });

  it("stops at the ceiling when every step holds, and steps down to the floor when none does", () => {
    const b = searchBounds("warm");
    const all = search(1e9, b);
    expect(all.at(-1)).toEqual({ rate: CAPACITY.ceiling, held: true });
    expect(kneeOf(all)).toEqual({ held: CAPACITY.ceiling, missed: null });
    const none = search(0, b);
    expect(none.map((s) => s.rate)).toEqual([50, 25, 13, 7, 4, 2, 1]);
    expect(kneeOf(none)).toEqual({ held: null, missed: 1 });
  });

  it("reads the knee below the lowest miss even when a higher rate happened to hold", () => {
    expect(
      kneeOf([
        { rate: 100, held: true },
        { rate: 200, held: false },
        { rate: 141, held: true },
        { rate: 168, held: false },
        { rate: 400, held: true },
      ]),
    ).toEqual({ held: 141, missed: 168 });
  });
});

describe("capacity metric ids", () => {
  it("name the operation and the rate, and read back", () => {
    expect(capacityMetric("write", 238)).toBe("capacity.write.r238");
    expect(parseCapacityMetric("capacity.create.r5")).toEqual({ op: "create", ratePerSecond: 5 });
    expect(parseCapacityMetric("capacity.read.r5")).toBeUndefined();
    expect(parseCapacityMetric("capacity.warm.r0")).toBeUndefined();
  });
});
