import { describe, expect, it } from "vitest";
import { coldRequired, IDLE_LADDERS, idleLabel, idleMetric, parseIdleLadder, parseIdleLength, parseIdleMetric } from "./idleLadder";
import { catalogEntry, defaultGroups, isColdMetric, metricRank, sampleCount, PRESETS } from "./catalog";

describe("the idle ladder's lengths and metric ids", () => {
  it("writes each length in its shortest exact unit and reads it back", () => {
    expect([10_000, 30_000, 60_000, 90_000, 120_000, 300_000, 3_600_000, 5_400_000].map(idleLabel)).toEqual([
      "10s",
      "30s",
      "1m",
      "90s",
      "2m",
      "5m",
      "1h",
      "90m",
    ]);
    for (const ms of [...IDLE_LADDERS.local, ...IDLE_LADDERS.long, 90_000]) expect(parseIdleLength(idleLabel(ms))).toBe(ms);
    expect(parseIdleMetric(idleMetric(120_000))).toEqual({ idleMs: 120_000 });
    // One id per length: a longer spelling of the same length is not a metric.
    expect(parseIdleMetric("wake.idle.60s")).toBeUndefined();
    expect(parseIdleMetric("wake.idle.0s")).toBeUndefined();
    expect(parseIdleMetric("wake.idle.3h")).toBeUndefined();
  });

  it("parses a ladder ascending, and says what is wrong with a bad one", () => {
    expect(parseIdleLadder("5m, 10s,1m")).toEqual({ lengths: [10_000, 60_000, 300_000] });
    expect(parseIdleLadder("10s,10s")).toEqual({ error: "10s is given twice" });
    expect(parseIdleLadder("10")).toEqual({ error: '"10" is not a length such as 30s, 2m or 1h' });
    expect(parseIdleLadder("3h")).toEqual({ error: "3h is outside 1s to 2h" });
    expect(parseIdleLadder("")).toEqual({ error: "no length given" });
    expect("error" in parseIdleLadder(Array.from({ length: 13 }, (_, i) => `${i + 1}s`).join(","))).toBe(true);
  });

  it("a step must prove cold only past the runtime's own idle sleep", () => {
    expect(coldRequired(30_000, 30_000)).toBe(false);
    expect(coldRequired(60_000, 30_000)).toBe(true);
  });

  it("is a catalog metric of the idle group: its count, its slot before the bursts, its cold flag reported not required", () => {
    const e = catalogEntry("wake.idle.30s");
    expect(e).toMatchObject({ group: "idle", kind: "idle", idle: { idleMs: 30_000 } });
    expect(isColdMetric("wake.idle.30s")).toBe(false);
    expect(sampleCount(e, PRESETS.large)).toBe(PRESETS.large.idleWake);
    expect(metricRank("wake.idle.30s")).toBeGreaterThan(metricRank("seqwrite"));
    expect(metricRank("wake.idle.30s")).toBeLessThan(metricRank("burst.c1"));
    expect(defaultGroups("local")).not.toContain("idle");
    expect(defaultGroups("large")).toContain("idle");
  });
});
