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
        sleepingActors: 1000,
        liveKb: 320 / 64,
        liveActors: 64,
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
        sleepingActors: 0,
        liveKb: 1,
        liveActors: 32,
        atLowest: { existing: 40, ownRssKb: 10 },
      },
    ]);
    expect(memoryPerActor({ stages: {} } as unknown as ManifestLike)).toEqual([]);
  });
});
