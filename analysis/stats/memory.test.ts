import { describe, expect, it } from "vitest";
import { memoryPerActor } from "./memory";
import type { ManifestLike } from "../contract/runDirContract";

const stage = (
  side: string,
  metric: string,
  attempts: number,
  rssKb: Record<string, { start: number; end: number } | null>,
  existing: number,
) => ({
  side,
  metric,
  file: `raw/${side}.${metric}.jsonl`,
  attempts,
  errors: 0,
  wallMs: 1,
  concurrency: 1,
  startedAt: "",
  repetitions: [
    { rep: 0, attempts, errors: 0, wallMs: 1, startedAt: "", notes: { rssKb, startState: { atStage: { existing, awake: 0 } } } },
  ],
});

describe("memory per actor", () => {
  it("per sleeping actor from the wakes' start between levels, per live actor across the top level's burst; the driver apart", () => {
    const m = {
      stages: {
        a: stage(
          "x",
          "scale.wake.e0",
          10,
          { engine: { start: 100_000, end: 100_500 }, app: { start: 50_000, end: 50_000 }, driver: { start: 1, end: 9 } },
          40,
        ),
        b: stage(
          "x",
          "scale.wake.e1000",
          10,
          { engine: { start: 101_000, end: 101_000 }, app: { start: 50_600, end: 50_600 }, driver: { start: 1, end: 9 } },
          1040,
        ),
        c: stage(
          "x",
          "scale.burst.e1000",
          64,
          { engine: { start: 101_000, end: 101_320 }, app: { start: 50_600, end: 50_600 }, driver: { start: 1, end: 99 } },
          1060,
        ),
      },
    } as unknown as ManifestLike;
    expect(memoryPerActor(m)).toEqual([
      {
        side: "x",
        processes: ["engine", "app"],
        sleepingKb: 1600 / 1000,
        sleepingInterval: { lo: null, hi: null, none: "one repetition" },
        sleepingActors: 1000,
        levels: 2,
        liveKb: 320 / 64,
        liveInterval: { lo: null, hi: null, none: "one repetition" },
        liveActors: 64,
        perRep: [{ sleepingKb: 1600 / 1000, liveKb: 320 / 64 }],
        atLowest: { existing: 40, ownRssKb: 150_000 },
      },
    ]);
  });
  it("says nothing it did not measure: one level gives no sleeping figure; a process one stage could not read is left out", () => {
    const m = {
      stages: {
        a: stage("x", "scale.wake.e0", 10, { server: { start: 10, end: 20 }, gone: null }, 40),
        c: stage("x", "scale.burst.e0", 32, { server: { start: 20, end: 52 }, gone: { start: 1, end: 2 } }, 50),
      },
    } as unknown as ManifestLike;
    expect(memoryPerActor(m)).toEqual([
      {
        side: "x",
        processes: ["server"],
        sleepingKb: null,
        sleepingInterval: { lo: null, hi: null, none: "no repetition measured it" },
        sleepingActors: 0,
        levels: 1,
        liveKb: 1,
        liveInterval: { lo: null, hi: null, none: "one repetition" },
        liveActors: 32,
        perRep: [{ sleepingKb: null, liveKb: 1 }],
        atLowest: { existing: 40, ownRssKb: 10 },
      },
    ]);
    expect(memoryPerActor({ stages: {} } as unknown as ManifestLike)).toEqual([]);
  });

  it("fits a slope over every level in each repetition, and gives the mean of the repetitions' slopes with a t interval over them", () => {
    const wake = (level: number, reps: Array<[number, number]>) => ({
      ...stage("x", `scale.wake.e${level}`, 10, {}, 0),
      repetitions: reps.map(([existing, kb], rep) => ({
        rep,
        attempts: 10,
        errors: 0,
        wallMs: 1,
        startedAt: "",
        notes: { rssKb: { server: { start: kb, end: kb } }, startState: { atStage: { existing, awake: 0 } } },
      })),
    });
    // Repetition 0: 2 kB an actor with a bump in the middle level; repetition 1: 4 kB an actor exactly.
    const m = {
      stages: {
        a: wake(0, [
          [100, 10_000],
          [100, 20_000],
        ]),
        b: wake(1000, [
          [1100, 12_300],
          [1100, 24_000],
        ]),
        c: wake(4000, [
          [4100, 18_000],
          [4100, 36_000],
        ]),
      },
    } as unknown as ManifestLike;
    const [x] = memoryPerActor(m);
    const fit0 = x.perRep[0].sleepingKb!;
    // Least squares over (100, 10000), (1100, 12300), (4100, 18000): not the two-point 2.0.
    expect(fit0).toBeCloseTo(17_133_333.33 / 8_666_666.67, 6);
    expect(x.perRep[1].sleepingKb).toBeCloseTo(4, 9);
    expect(x.levels).toBe(3);
    expect(x.sleepingKb).toBeCloseTo((fit0 + 4) / 2, 9);
    // Two repetitions: t(1) = 12.706 on the standard error of their mean.
    const half = 12.706 * Math.sqrt((fit0 - 4) ** 2 / 2 / 2);
    expect(x.sleepingInterval.lo!).toBeCloseTo(x.sleepingKb! - half, 2);
    expect(x.sleepingInterval.hi!).toBeCloseTo(x.sleepingKb! + half, 2);
  });
});
