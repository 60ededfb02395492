import { describe, expect, it } from "vitest";
import { benjaminiHochberg, compareRows, verdictText, type StageStats } from "./compareRows";
import { prng } from "./prng";
import { shiftForPower, tCritical } from "./studentT";

const normal = (rnd: () => number) => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
const HRTIME = 0.000001;

/** A row's per-repetition values: `center` x exp(each repetition's own log offset). */
function stage(logs: readonly number[], center: number, o: { n?: number; tick?: number } = {}): StageStats {
  const reps = logs.map((x) => center * Math.exp(x));
  return {
    n: (o.n ?? 100) * logs.length,
    reps: { p50: reps, p90: reps, p99: reps },
    perRepN: logs.map(() => o.n ?? 100),
    tick: o.tick ?? HRTIME,
    clock: "client",
  };
}

/** Simulated rows of 9 samples a repetition: their p90 and p99 are each repetition's maximum, untested, so only p50 is computed. */
const SIM = { n: 9 };

/**
 * Two runs of `rows` rows with k repetitions each, every repetition's log value
 * N(0, sd[i]) around the row's centre; B's centre is `factor(i)` times A's.
 */
function pair(rnd: () => number, rows: number, k: number, sd: (i: number) => number, factor: (i: number) => number = () => 1) {
  const a: Record<string, StageStats> = {};
  const b: Record<string, StageStats> = {};
  for (let i = 0; i < rows; i++) {
    const draw = () => Array.from({ length: k }, () => sd(i) * normal(rnd));
    a[`rivet.m${i}`] = stage(draw(), 0.5 * (i + 1), SIM);
    b[`rivet.m${i}`] = stage(draw(), 0.5 * (i + 1) * factor(i), SIM);
  }
  return { a, b };
}

const p50Rows = (a: Record<string, StageStats>, b: Record<string, StageStats>, paired = false) =>
  compareRows(a, b, { paired }).filter((r) => r.q === "p50");

/** Rows whose between-repetition SDs differ 4x: 10 quiet rows at 0.05 on the log scale, 5 noisy ones at 0.2. */
const UNEVEN = (i: number) => (i < 10 ? 0.05 : 0.2);

/** k pairs interleaved: pair j of a row shares that moment's drift (SD 0.15); each repetition its own noise, SD sd(i) / √2 each side. */
function interleaved(rnd: () => number, rows: number, k: number, sd: (i: number) => number, factor: (i: number) => number = () => 1) {
  const a: Record<string, StageStats> = {};
  const b: Record<string, StageStats> = {};
  for (let i = 0; i < rows; i++) {
    const drift = Array.from({ length: k }, () => 0.15 * normal(rnd));
    const own = () => (sd(i) / Math.SQRT2) * normal(rnd);
    a[`rivet.m${i}`] = stage(
      drift.map((d) => d + own()),
      5 + i,
      SIM,
    );
    b[`rivet.m${i}`] = stage(
      drift.map((d) => d + own()),
      (5 + i) * factor(i),
      SIM,
    );
  }
  return { a, b };
}

describe("under no change, with rows whose spreads differ 4x (15 rows: 10 at SD 0.05, 5 at 0.2; 2,000 compares a case)", () => {
  // Monte Carlo SD at 2,000 compares: 0.5 points for a 5% rate, 0.5 points for a 95% coverage.
  const cases = [
    { name: "unpaired, 3 repetitions a side", draw: (rnd: () => number) => pair(rnd, 15, 3, UNEVEN), paired: false },
    { name: "unpaired, 5 repetitions a side", draw: (rnd: () => number) => pair(rnd, 15, 5, UNEVEN), paired: false },
    { name: "paired, 6 pairs", draw: (rnd: () => number) => interleaved(rnd, 15, 6, UNEVEN), paired: true },
    { name: "paired, 16 pairs", draw: (rnd: () => number) => interleaved(rnd, 15, 16, UNEVEN), paired: true },
  ];
  for (const c of cases) {
    it(`${c.name}: a compare calls any row real at most 5% of the time, every row's 95% interval covers 93-97%, and every verdict agrees with its interval`, () => {
      const rnd = prng(c.name.length * 97);
      const runs = 2000;
      let anyFlag = 0;
      const inside = new Array(15).fill(0);
      for (let t = 0; t < runs; t++) {
        const { a, b } = c.draw(rnd);
        const rows = p50Rows(a, b, c.paired);
        if (rows.some((r) => r.verdict === "different")) anyFlag++;
        rows.forEach((r, i) => {
          if (r.ratioCi!.lo! <= 1 && 1 <= r.ratioCi!.hi!) inside[i]++;
          const holds = r.verdictCi!.lo! <= 1 && 1 <= r.verdictCi!.hi!;
          expect(holds, `${r.key} ${r.verdict}`).toBe(r.verdict !== "different");
        });
      }
      if (process.env.SHOW_COVERAGE)
        console.log(
          `${c.name}: any row flagged ${(anyFlag / runs).toFixed(4)}; coverage ${inside.map((x) => (x / runs).toFixed(3)).join(" ")}`,
        );
      expect(anyFlag / runs).toBeLessThanOrEqual(0.05 + 2 * 0.0049);
      // The quiet rows together and the noisy rows together cover 93-97%; each row alone within 2 Monte Carlo SDs of it.
      for (const [name, rows] of [
        ["quiet", inside.slice(0, 10)],
        ["noisy", inside.slice(10)],
      ] as const) {
        const share = rows.reduce((x, y) => x + y, 0) / (rows.length * runs);
        expect(share, name).toBeGreaterThanOrEqual(0.93);
        expect(share, name).toBeLessThanOrEqual(0.97);
        for (const x of rows) expect(Math.abs(x / runs - Math.min(0.97, Math.max(0.93, x / runs))), name).toBeLessThanOrEqual(2 * 0.0049);
      }
    });
  }
});

describe("rows of one spread share it (10 rows at SD 0.15 on the log scale, 3 repetitions a side)", () => {
  it("under no change a compare calls any row real at most 5% of the time and the 95% intervals cover 93-97% (2,000 compares)", () => {
    const rnd = prng(1515);
    const runs = 2000;
    let anyFlag = 0;
    let inside = 0;
    for (let t = 0; t < runs; t++) {
      const { a, b } = pair(rnd, 10, 3, () => 0.15);
      const rows = p50Rows(a, b);
      if (rows.some((r) => r.verdict === "different")) anyFlag++;
      inside += rows.filter((r) => r.ratioCi!.lo! <= 1 && 1 <= r.ratioCi!.hi!).length;
    }
    expect(anyFlag / runs).toBeLessThanOrEqual(0.05 + 2 * 0.0049);
    expect(inside / (10 * runs)).toBeGreaterThanOrEqual(0.93);
    expect(inside / (10 * runs)).toBeLessThanOrEqual(0.97);
  });

  it("a doubling in 2 of the 10 rows is caught in both rows in at least 95% of compares (1,000 compares), where each row alone would miss it", () => {
    const rnd = prng(2020);
    const runs = 1000;
    let both = 0;
    let shared = 0;
    for (let t = 0; t < runs; t++) {
      const { a, b } = pair(
        rnd,
        10,
        3,
        () => 0.15,
        (i) => (i < 2 ? 2 : 1),
      );
      const rows = p50Rows(a, b);
      if (rows[0].verdict === "different" && rows[1].verdict === "different") both++;
      // Each doubled row's interval rests on more than its own 4 degrees of freedom: it borrowed from the others.
      if (rows[0].df! > 6 && rows[1].df! > 6) shared++;
    }
    expect(both / runs).toBeGreaterThanOrEqual(0.95);
    expect(shared / runs).toBeGreaterThan(0.8);
  });

  it("a row 8x as spread as nine others is tested on its own variance and named an outlier", () => {
    const rnd = prng(7);
    const quiet = Array.from({ length: 9 }, (_, i) => [`rivet.q${i}`, Array.from({ length: 5 }, () => 0.05 * normal(rnd))] as const);
    const a = Object.fromEntries([...quiet.map(([k, v]) => [k, stage(v, 5)]), ["rivet.loud", stage([0, 0.8, -0.8, 0.5, -0.5], 5)]]);
    const b = Object.fromEntries([
      ...quiet.map(([k]) => [
        k,
        stage(
          Array.from({ length: 5 }, () => 0.05 * normal(rnd)),
          5,
        ),
      ]),
      ["rivet.loud", stage([0.3, -0.6, 0.7, -0.4, 0.1], 5)],
    ]);
    const rows = p50Rows(a, b);
    const loud = rows.find((r) => r.key === "rivet.loud")!;
    expect(loud.outlier).toBe(true);
    expect(rows.filter((r) => r.outlier)).toHaveLength(1);
    expect(loud.prior!.df).toBeGreaterThan(0);
  });
});

describe("what a compare can detect", () => {
  it("a change of the stated detectable size in one row of 15 is called real about 80% of the time (paired, 16 pairs; 1,000 sessions)", () => {
    const rnd = prng(88);
    const sd = 0.08;
    const runs = 1000;
    // What the column states for a row of this spread, read off 200 compares with no change.
    const stated: number[] = [];
    for (let t = 0; t < 200; t++) {
      const { a, b } = interleaved(rnd, 15, 16, () => sd);
      stated.push(p50Rows(a, b, true)[0].detectable!);
    }
    stated.sort((x, y) => x - y);
    const planted = stated[100];
    // Were the spread known exactly: 80% power at p <= q / m. Sharing over 15 rows of one spread comes near it.
    const known = Math.exp(shiftForPower(1000, tCritical(1000, 1 - 0.05 / 15), 0.8) * (sd / 4));
    expect(planted).toBeGreaterThan(known);
    expect(Math.log(planted) / Math.log(known)).toBeLessThan(1.25);
    let caught = 0;
    for (let t = 0; t < runs; t++) {
      const { a, b } = interleaved(
        rnd,
        15,
        16,
        () => sd,
        (i) => (i === 0 ? planted : 1),
      );
      if (p50Rows(a, b, true)[0].verdict === "different") caught++;
    }
    // Monte Carlo SD at 1,000 sessions: 1.3 points.
    expect(caught / runs).toBeGreaterThan(0.75);
    expect(caught / runs).toBeLessThan(0.86);
  });

  it("pairing removes a drift both arms share: a 10% change in all 5 rows over 10 pairs is caught paired far more often than unpaired (200 sessions)", () => {
    const rnd = prng(5);
    let pairedHits = 0;
    let unpairedHits = 0;
    for (let t = 0; t < 200; t++) {
      const { a, b } = interleaved(
        rnd,
        5,
        10,
        () => 0.057,
        () => 1.1,
      );
      pairedHits += p50Rows(a, b, true).filter((r) => r.verdict === "different").length;
      unpairedHits += p50Rows(a, b, false).filter((r) => r.verdict === "different").length;
    }
    expect(pairedHits / 1000).toBeGreaterThan(0.8);
    expect(unpairedHits / 1000).toBeLessThan(0.3);
  });

  it("a row too spread to detect a 3x change says so in words", () => {
    const [r] = p50Rows({ x: stage([0, 0.9, -0.8], 5) }, { x: stage([0.4, -0.7, 0.6], 5) });
    expect(r.detectable!).toBeGreaterThan(3);
    expect(verdictText(r)).toMatch(
      /^not detected: too spread to detect a change under 3x either way; B\/A within \[\d+\.\d\d, \d+\.\d\d\] \(95\.0% interval\)$/,
    );
  });
});

describe("rows it does not test, and never a certainty from identical repetitions", () => {
  it("a whole-ms clock's 2, 2, 2 against 3, 3, 3 cannot tell; equal 20s against 21s get a p above 0 from the rounding floor", () => {
    const whole = (v: number[]): StageStats => ({
      n: 300,
      reps: { p50: v, p90: v, p99: v },
      perRepN: [100, 100, 100],
      tick: 1,
      clock: "Worker",
    });
    const [small] = compareRows({ x: whole([2, 2, 2]) }, { x: whole([3, 3, 3]) });
    expect(small.verdict).toBe("cannot tell");
    expect(small.p).toBeNull();
    expect(verdictText(small)).toMatch(/under 5 ticks of a 1 ms clock/);
    const [big] = compareRows({ x: whole([20, 20, 20]) }, { x: whole([21, 21, 21]) });
    expect(big.p!).toBeGreaterThan(0.001);
    expect(big.ratioCi!.lo!).toBeLessThan(1.05);
    expect(big.ratioCi!.hi!).toBeGreaterThan(1.05);
  });

  it("one repetition, a p99 that is a repetition's maximum, and a descriptive row are not tested, and say so", () => {
    const rows = compareRows(
      { one: stage([0], 5), max: stage([0, 0.1, 0.2], 5, { n: 40 }), worker: { ...stage([0, 0.1], 5), descriptive: true } },
      { one: stage([0, 0.1], 5), max: stage([0, 0.1, 0.2], 5, { n: 40 }), worker: { ...stage([0, 0.1], 5), descriptive: true } },
    );
    const by = (k: string, q: string) => rows.find((r) => r.key === k && r.q === q)!;
    expect(verdictText(by("one", "p50"))).toBe("cannot tell: fewer than 2 repetitions");
    expect(verdictText(by("max", "p99"))).toBe("cannot tell: p99 of too few samples a repetition is its maximum");
    expect(by("max", "p50").verdict).toBe("not detected");
    expect(verdictText(by("max", "p50"))).toMatch(/^not detected, B\/A within \[\d\.\d\d, \d\.\d\d\] \(95\.0% interval\)$/);
    expect(by("worker", "p50").verdict).toBe("descriptive");
  });

  it("Welch where the repetition counts differ: the degrees of freedom follow the smaller arm", () => {
    const [r] = compareRows({ x: stage([0, 0.05, -0.05, 0.02, -0.02, 0.1, -0.1, 0, 0.03, -0.03], 5) }, { x: stage([0, 0.3, -0.3], 10) });
    expect([r.kA, r.kB]).toEqual([10, 3]);
    expect(r.ratio!).toBeCloseTo(2, 1);
    // B's spread dominates: the interval is about t(2) wide, not t(11).
    expect(r.ratioCi!.hi! / r.ratioCi!.lo!).toBeGreaterThan(2);
  });
});

describe("Benjamini-Hochberg over one family", () => {
  it("takes the largest rank whose p-value is under its share of the rate, and every row below it", () => {
    expect(benjaminiHochberg([0.01, 0.04, 0.03, 0.2, null], 0.05)).toEqual([true, false, false, false, false]);
    expect(benjaminiHochberg([0.013, 0.03, 0.012, 0.9], 0.05)).toEqual([true, true, true, false]);
    expect(benjaminiHochberg([], 0.05)).toEqual([]);
  });
});
