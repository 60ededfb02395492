import { describe, expect, it } from "vitest";
import { capacityComparison } from "./compare";
import { kneeInterval, type CapacityCurve } from "../stats/capacity";
import { LEGACY_BOOK } from "../contract/sideProfile";
import { comparisonWarnings, interleaved, stageStats } from "./compare";
import type { ManifestLike } from "../contract/verify";
import { repSpread } from "../stats/repetitions";

const manifest = (over: Partial<ManifestLike> & Record<string, unknown> = {}): ManifestLike => ({
  schema: 1,
  stack: "local",
  runId: "20261205T0100Z",
  startedAt: "2026-12-05T01:00:00Z",
  finishedAt: null,
  preset: "local",
  versions: {},
  machine: {},
  config: { counts: { warm: 10 } },
  stages: {},
  files: {},
  repetitions: [0, 1, 2].map((rep) => ({ rep, startedAt: "", finishedAt: "", order: ["rivet"] })),
  calibration: { rounds: { cpu: [40, 41, 42], fsync: [2, 2.1], loopback: [0.05, 0.06] } },
  ...over,
});

describe("what compare warns of before its table", () => {
  it("presets, sample counts, repetitions and machines that differ; the same run given twice", () => {
    const a = manifest();
    expect(comparisonWarnings(a, manifest({ runId: "20261205T0200Z" }))).toEqual([]);
    const w = comparisonWarnings(
      a,
      manifest({
        runId: "x",
        preset: "quick",
        repetitions: [{ rep: 0, startedAt: "", finishedAt: "", order: [] }],
        calibration: { rounds: { cpu: [60, 61, 62], fsync: [2, 2.1], loopback: [0.05, 0.06] } },
      }),
    );
    expect(w[0]).toMatch(/^the presets differ \(A local, B quick\)/);
    expect(w[1]).toMatch(/^the repetitions differ \(A 3, B 1\): Welch's test/);
    expect(w[2]).toMatch(/^the machine differs: cpu, a fixed loop .*B\/A 1\.49/);
    expect(comparisonWarnings(a, manifest({ runId: "x", config: { counts: { warm: 20 } } }))).toEqual([
      "the sample counts differ (--samples): a percentile of fewer samples sits lower in its tail",
    ]);
    expect(comparisonWarnings(a, a)[0]).toMatch(/^A and B are the same run/);
    expect(comparisonWarnings(a, manifest({ runId: "x", calibration: { rounds: "hostile" } }))).toEqual([
      "no calibration in B (made before runs recorded one): its speed cannot be compared",
    ]);
  });

  it("pairs two runs only when each names the other as the partner in one session", () => {
    const ab = (runId: string, arm: "A" | "B", partnerRunId: string, id = "ab-1") =>
      manifest({ runId, settings: { ab: { id, arm, partnerRunId, order: ["A", "B", "B", "A"] } } });
    expect(interleaved(ab("r1", "A", "r2"), ab("r2", "B", "r1"))).toBe(true);
    expect(interleaved(ab("r1", "A", "r2"), ab("r2", "B", "r3"))).toBe(false);
    expect(interleaved(ab("r1", "A", "r2"), ab("r2", "A", "r1"))).toBe(false);
    expect(interleaved(ab("r1", "A", "r2"), ab("r2", "B", "r1", "ab-2"))).toBe(false);
    expect(interleaved(manifest(), manifest())).toBe(false);
  });
});

describe("the rows compare tests", () => {
  it("the DO on the driver's clock, its Worker clock a descriptive row beside it; Rivet on its own (the driver's)", () => {
    const spread = (v: number[]) =>
      repSpread(
        v.map((x) => [x, x, x]),
        0.000001,
      );
    const row = (side: string, metric: string, ms: number[], client?: number[]) => ({
      side,
      metric,
      n: 9,
      errors: 0,
      notCold: 0,
      restarts: 0,
      p50: 1,
      p90: 1,
      p99: 1,
      mean: 1,
      repetitions: spread(ms),
      ...(client ? { clientRepetitions: spread(client) } : {}),
    });
    const s = stageStats({
      rows: [row("rivet", "warm.ping", [4, 5, 6]), row("cloudflare", "warm.ping", [0, 1, 1], [0.6, 0.7, 0.8])],
      throughput: [],
      sides: LEGACY_BOOK,
    });
    expect(Object.keys(s)).toEqual(["rivet.warm.ping", "cloudflare.warm.ping", "cloudflare.warm.ping (own clock)"]);
    expect(s["cloudflare.warm.ping"]).toMatchObject({ reps: { p50: [0.6, 0.7, 0.8] }, tick: 0.000001, clock: "client round trip" });
    expect(s["cloudflare.warm.ping (own clock)"]).toMatchObject({ reps: { p50: [0, 1, 1] }, tick: 1, descriptive: true });
    expect(s["rivet.warm.ping"].descriptive).toBeUndefined();
  });
});

describe("capacity in a comparison", () => {
  const curve = (side: string, held: Array<[number, number]>, p99Ms = 100): CapacityCurve => {
    const reps = held.map(([h, m], rep) => ({ rep, held: h, missed: m }));
    return {
      side,
      op: "warm",
      objective: { p99Ms, maxFailureShare: 0.001 },
      reps,
      range: { low: 0, high: 0 },
      held: kneeInterval(reps),
      steps: [],
    };
  };
  it("says per side and operation whether the two runs' intervals of the rate held overlap, and when it cannot tell", () => {
    const md = capacityComparison(
      [
        curve("rivet", [
          [400, 476],
          [336, 400],
          [400, 476],
        ]),
        curve("floor", [
          [1345, 1600],
          [1345, 1600],
          [1345, 1600],
        ]),
        curve("echo", [[10, 12]]),
      ],
      [
        curve("rivet", [
          [400, 476],
          [400, 476],
          [400, 476],
        ]),
        curve("floor", [
          [2263, 2691],
          [2263, 2691],
          [2263, 2691],
        ]),
        curve("echo", [[10, 12]]),
      ],
    );
    expect(md).toMatch(/\| rivet warm \| 412\/s \[\d+, \d+\] \| 436\/s \[\d+, \d+\] \| agree: the intervals overlap \|/);
    expect(md).toMatch(/\| floor warm \| .* \| differ: the intervals are apart \|/);
    expect(md).toContain(
      "| echo warm | 11/s (no interval: one repetition) | 11/s (no interval: one repetition) | cannot tell (an interval is missing) |",
    );
    expect(
      capacityComparison(
        [
          curve(
            "rivet",
            [
              [400, 476],
              [400, 476],
            ],
            100,
          ),
        ],
        [
          curve(
            "rivet",
            [
              [400, 476],
              [400, 476],
            ],
            250,
          ),
        ],
      ),
    ).toContain("different objectives: not comparable");
    expect(capacityComparison([], [])).toBe("");
  });
});
