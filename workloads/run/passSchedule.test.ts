import { describe, expect, it } from "vitest";
import { overLimit } from "./passSchedule";
import type { PassSchedule } from "../experiment/passPlan";

const run = (tasks: string[], startMs: number, endMs: number) => ({
  run: { tasks: tasks.map((t) => ({ side: t.split(".")[0], group: t.split(".")[1] })) },
  startMs,
  endMs,
  spans: [],
});

describe("a planned run against the runner's time limit", () => {
  const schedule = {
    runs: [run(["rivet.create"], 0, 5 * 60_000), run(["cloudflare.wake", "rivet.warm"], 5 * 60_000, 47 * 60_000)],
    totalMs: 47 * 60_000,
    aloneMs: 0,
  } as unknown as PassSchedule;
  it("names the first run that would outlast it, its minutes and a limit that fits", () => {
    expect(overLimit(schedule, 30)).toBe(
      "config actor-bench:runTimeLimitMinutes: 30 is shorter than the planned run cloudflare.wake+rivet.warm (about 42 min); raise it to at least 52, or run fewer groups (actor-bench:groups)",
    );
  });
  it("says nothing when every run fits, to the minute", () => {
    expect(overLimit(schedule, 42)).toBeUndefined();
  });
});
