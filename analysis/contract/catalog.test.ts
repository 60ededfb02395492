import { describe, expect, it } from "vitest";
import {
  CATALOG,
  chartMetric,
  GROUPS,
  isColdMetric,
  METRIC_ORDER,
  metricEntry,
  metricRank,
  metricsOf,
  sideEntries,
  sideMeasures,
  catalogEntry,
} from "./catalog";

// Two profiles of the catalog's own fields, written here: one side with optional metrics and open rates, one with none.
const withExtras = { optionalMetrics: ["create.unique", "baseline.noop"], openRates: [50, 5] };
const plain = { optionalMetrics: [], openRates: [] };

describe("metric catalog", () => {
  it("every design metric id is in the catalog, once, in the design's order of groups", () => {
    expect(new Set(METRIC_ORDER).size).toBe(METRIC_ORDER.length);
    for (const id of [
      "create.ping",
      "create.unique",
      "wake.write",
      "warm.getOrCreate",
      "baseline.noop",
      "sqlite.scan",
      "seqwrite",
      "burst.c128",
      "scale.burst.e16000",
    ])
      expect(METRIC_ORDER).toContain(id);
    for (const e of CATALOG) expect(GROUPS).toContain(e.group);
  });
  it("coldness follows the kind: creates, wakes and bursts need a proven fresh start; nothing else does", () => {
    expect(["create.ping", "create.unique", "wake.write", "burst.c128", "open.r5"].map(isColdMetric)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(["warm.ping", "sqlite.read", "seqwrite", "baseline.noop", "rtt.c1.r1"].map(isColdMetric)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
  it("an open-model stage at any rate is a metric, ranked after the bursts and before the scaling group", () => {
    expect(metricEntry("open.r400")?.throughput).toEqual({ mode: "open", ratePerSecond: 400 });
    expect(metricEntry("open.r0")).toBeUndefined();
    expect(metricEntry("open.rx")).toBeUndefined();
    expect(metricRank("open.r5")).toBe(metricRank("open.r400"));
    expect(metricRank("open.r5")).toBeGreaterThan(metricRank("burst.c128"));
    expect(metricRank("open.r5")).toBeLessThan(metricRank("scale.wake.e0"));
  });
  it("a side measures the shared metrics, the optional ones its profile lists and its own open rates", () => {
    expect(sideMeasures(plain, "create.unique")).toBe(false);
    expect(sideMeasures(withExtras, "create.unique")).toBe(true);
    expect(sideMeasures(plain, "warm.ping")).toBe(true);
    expect(sideMeasures(withExtras, "open.r50")).toBe(true);
    expect(sideMeasures(withExtras, "open.r100")).toBe(false);
    expect(sideMeasures(plain, "nothing")).toBe(false);
    expect(metricsOf(withExtras, "warm")).toEqual(["warm.ping", "baseline.noop"]);
    expect(metricsOf(plain, "warm")).toEqual(["warm.ping"]);
    expect(metricsOf(withExtras, "burst")).toEqual(["burst.c1", "burst.c8", "burst.c32", "burst.c128", "open.r5", "open.r50"]);
    const ids = sideEntries(withExtras).map((e) => e.id);
    expect(ids.indexOf("open.r50")).toBeLessThan(ids.indexOf("scale.wake.e0"));
  });
  it("the headline chart's create bar is a side's optional create where it has one, else create.ping", () => {
    expect(chartMetric(withExtras, "create")).toBe("create.unique");
    expect(chartMetric(plain, "create")).toBe("create.ping");
    expect(chartMetric(plain, "request")).toBe("warm.ping");
  });
  it("an unknown metric is named", () => expect(() => catalogEntry("create.pong")).toThrow(/"create.pong" is not a metric of the catalog/));
});

describe("the catalog's own fields for what the views print and the plan sends", () => {
  it("names the first request of every create and wake stage, and no other", () => {
    for (const e of CATALOG) {
      const coldStart = (e.group === "create" || e.group === "wake") && !e.throughput;
      expect(e.firstRequest !== undefined, e.id).toBe(coldStart);
    }
    expect(CATALOG.find((e) => e.id === "create.write")?.firstRequest).toBe("write");
    expect(CATALOG.find((e) => e.id === "wake.read")?.firstRequest).toBe("read");
  });
  it("labels every closed-loop throughput row of the headline's throughput table (bursts and sequential writes)", () => {
    const labelled = CATALOG.filter((e) => e.throughputLabel).map((e) => e.id);
    expect(labelled).toEqual(["seqwrite", "burst.c1", "burst.c8", "burst.c32", "burst.c128"]);
    expect(new Set(CATALOG.filter((e) => e.throughputLabel).map((e) => e.throughputLabel)).size).toBe(labelled.length);
  });
});
