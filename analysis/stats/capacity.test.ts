import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { capacityCurves, kneeInterval } from "./capacity";
import { intervalsOverlap } from "../report/comparison";
import { CAPACITY, kneeOf, nextRate, searchBounds } from "../contract/capacity";
import { prng } from "./prng";
import { readListed, type StageRecord } from "../contract/runDirContract";
import type { RawSample } from "./summary";

const objective = { p99Ms: 100, maxFailureShare: 0.001 };

/** A step of repetition `rep`: `n` arrivals planned, all sent, each `ms` (a slow tail of `slow`), with CPU notes. */
function step(side: string, op: string, rate: number, parts: Array<{ rep: number; n: number; ms: number; slow?: number; sent?: number }>) {
  const st: StageRecord = {
    side,
    metric: `capacity.${op}.r${rate}`,
    file: `raw/${side}.capacity.${op}.r${rate}.jsonl`,
    attempts: 0,
    errors: 0,
    wallMs: 0,
    concurrency: 256,
    startedAt: "2026-12-05T00:00:00Z",
    repetitions: parts.map((p) => ({
      rep: p.rep,
      attempts: p.sent ?? p.n,
      errors: 0,
      wallMs: 1000,
      startedAt: "2026-12-05T00:00:00Z",
      notes: { capacity: { op, planned: p.n, objective }, cpuMs: { engine: 100, driver: 10 } },
    })),
  };
  const samples: RawSample[] = parts.flatMap((p) =>
    Array.from({ length: p.sent ?? p.n }, (_, i) => ({ ok: true, ms: i < (p.slow ?? 0) ? 500 : p.ms, cold: true, rep: p.rep })),
  );
  return { st, samples };
}

function curvesOf(steps: Array<ReturnType<typeof step>>) {
  const files = new Map(steps.map((s) => [s.st.file, s.samples]));
  return capacityCurves(
    steps.map((s) => s.st),
    (st) => files.get(st.file)!,
    ["rivet", "cloudflare"],
  );
}

describe("capacity curves from the raw samples", () => {
  it("reads each repetition's knee and the range over them, per side and operation", () => {
    const curves = curvesOf([
      step("rivet", "warm", 50, [
        { rep: 0, n: 100, ms: 5 },
        { rep: 1, n: 100, ms: 5 },
      ]),
      step("rivet", "warm", 100, [
        { rep: 0, n: 200, ms: 5 },
        { rep: 1, n: 200, ms: 5, slow: 10 },
      ]),
      step("rivet", "warm", 200, [{ rep: 0, n: 400, ms: 5, slow: 50 }]),
      step("rivet", "warm", 71, [{ rep: 1, n: 142, ms: 5 }]),
      step("rivet", "warm", 84, [{ rep: 1, n: 168, ms: 5 }]),
      step("cloudflare", "create", 5, [{ rep: 0, n: 10, ms: 150 }]),
    ]);
    const warm = curves.find((c) => c.side === "rivet" && c.op === "warm")!;
    expect(warm.reps).toEqual([
      { rep: 0, held: 100, missed: 200 },
      { rep: 1, held: 84, missed: 100 },
    ]);
    expect(warm.range).toEqual({ low: 84, high: 200 });
    expect(warm.steps.map((s) => `${s.rep}:${s.ratePerSecond}:${s.held}`)).toEqual([
      "0:50:true",
      "0:100:true",
      "0:200:false",
      "1:50:true",
      "1:71:true",
      "1:84:true",
      "1:100:false",
    ]);
    // CPU per successful call of the step's repetition: the side's processes, and the driver.
    expect(warm.steps[0]).toMatchObject({ ownCpuMsPerOp: 1, driverCpuMsPerOp: 0.1, p50: 5, p99: 5, failed: 0 });
    // Every create slower than the objective: nothing held, and the range's low end is open.
    expect(curves.find((c) => c.side === "cloudflare")).toMatchObject({
      op: "create",
      reps: [{ rep: 0, held: null, missed: 5 }],
      range: { low: null, high: 5 },
    });
  });

  it("takes a step's verdict again from its samples: a step that stopped early is a miss", () => {
    const [c] = curvesOf([step("rivet", "write", 50, [{ rep: 0, n: 100, ms: 5, sent: 40 }])]);
    expect(c.steps[0]).toMatchObject({ held: false, why: "stopped after 40 of 100 arrivals", sent: 40, planned: 100 });
  });

  it("refuses a step whose record does not state its objective and plan", () => {
    const s = step("rivet", "warm", 50, [{ rep: 0, n: 100, ms: 5 }]);
    delete (s.st.repetitions![0].notes!.capacity as { planned?: number }).planned;
    expect(() => curvesOf([s])).toThrow("stages/rivet.capacity.warm.r50.json: a capacity step's notes.capacity must hold planned");
  });
});

describe("the interval of the rate held", () => {
  const normal = (rnd: () => number) => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  /** The knee the search brackets for a side that holds every rate up to `knee`. */
  const bracket = (knee: number) => {
    const b = searchBounds("warm");
    const steps: Array<{ rate: number; held: boolean }> = [];
    for (let r = nextRate(steps, b); r !== null; r = nextRate(steps, b)) steps.push({ rate: r, held: r <= knee });
    return kneeOf(steps);
  };

  // 1,000 simulated runs per case (Monte Carlo SD of a 95% coverage: 0.7 points), through the search itself.
  for (const k of [3, 5, 10, 20]) {
    it(`covers a fresh run's typical rate held at least 93% of the time at ${k} repetitions, for spreads between them of 0 to 30%`, () => {
      const rnd = prng(11 + k);
      for (const spread of [0, 0.03, 0.1, 0.3]) {
        let covered = 0;
        let width = 0;
        const runs = 1000;
        for (let i = 0; i < runs; i++) {
          // The side's typical knee anywhere on the search's grid, each repetition's moved by its own state.
          const typical = 60 * Math.exp(rnd() * 4);
          const iv = kneeInterval(Array.from({ length: k }, () => bracket(typical * Math.exp(spread * normal(rnd)))));
          if (iv.lo! <= typical && typical <= iv.hi!) covered++;
          width += Math.log(iv.hi! / iv.lo!) / runs;
        }
        if (process.env.SHOW_COVERAGE)
          console.log(`k ${k} spread ${spread}: coverage ${(covered / runs).toFixed(3)}, hi/lo ${Math.exp(width).toFixed(2)}`);
        expect(covered / runs, `k ${k}, spread ${spread}`).toBeGreaterThanOrEqual(0.93);
        // Not a trivially wide interval: with no spread, about one bracket of the search (its resolution), not more.
        if (spread === 0) expect(Math.exp(width), `k ${k}`).toBeLessThan(CAPACITY.resolution * 1.05);
      }
    });
  }

  it("has none where a repetition's bracket is open or there is one repetition, and says why", () => {
    expect(kneeInterval([{ held: 100, missed: 119 }])).toMatchObject({ lo: null, none: "one repetition" });
    expect(
      kneeInterval([
        { held: 100, missed: 119 },
        { held: 20_000, missed: null },
      ]),
    ).toMatchObject({ estimate: null, none: "a repetition's knee lies past the highest rate tried or below the lowest" });
    expect(
      intervalsOverlap(
        kneeInterval([
          { held: 100, missed: 119 },
          { held: 100, missed: 119 },
        ]),
        kneeInterval([
          { held: 400, missed: 476 },
          { held: 400, missed: 476 },
        ]),
      ),
    ).toBe(false);
  });
});

describe("a committed capacity run", () => {
  const dir = resolve(__dirname, "../../results/local/20261205T0609Z");
  it("reports, for every side, operation and repetition, the knee the raw samples show under the stated objective", () => {
    const summary = JSON.parse(readFileSync(join(dir, "report", "summary.json"), "utf8")) as {
      capacity: Array<{ side: string; op: string; heldPerSecond: Array<number | null> }>;
    };
    expect(summary.capacity.map((c) => `${c.side}.${c.op}`)).toEqual([
      "rivet.warm",
      "rivet.create",
      "rivet.write",
      "cloudflare.warm",
      "cloudflare.create",
      "cloudflare.write",
      "floor.warm",
      "floor.create",
      "floor.write",
    ]);
    for (const c of summary.capacity) {
      // Straight from the files: each step's samples by repetition, its plan from its record.
      const held = new Map<number, number[]>();
      const missed = new Map<number, number[]>();
      for (const f of readdirSync(join(dir, "stages")).filter((x) => x.startsWith(`${c.side}.capacity.${c.op}.r`))) {
        const st = JSON.parse(readFileSync(join(dir, "stages", f), "utf8")) as StageRecord;
        const rate = Number(/\.r(\d+)\.json$/.exec(f)![1]);
        const lines = readListed(dir, st.file)
          .toString("utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as RawSample);
        for (const r of st.repetitions!) {
          const planned = (r.notes!.capacity as { planned: number }).planned;
          const mine = lines.filter((s) => s.rep === r.rep);
          const good = mine
            .filter((s) => s.ok && (c.op !== "create" || s.cold === true))
            .map((s) => s.ms)
            .sort((a, b) => a - b);
          const ok =
            mine.length === planned &&
            mine.length - good.length <= Math.floor(planned / 1000) &&
            good[Math.ceil(0.99 * good.length) - 1] <= 100;
          const into = ok ? held : missed;
          into.set(r.rep, [...(into.get(r.rep) ?? []), rate]);
        }
      }
      const reps = [...new Set([...held.keys(), ...missed.keys()])].sort();
      const knee = reps.map((rep) => {
        const lowestMiss = Math.min(...(missed.get(rep) ?? [Infinity]));
        const below = (held.get(rep) ?? []).filter((x) => x < lowestMiss);
        return below.length ? Math.max(...below) : null;
      });
      expect(c.heldPerSecond, `${c.side} ${c.op}`).toEqual(knee);
    }
  });
});
