import { describe, expect, it } from "vitest";
import { CATALOG, chartMetric, GROUPS, isColdMetric, METRIC_ORDER, metricsOf, PRESETS, RUNTIMES, sampleCount, SIDES, catalogEntry, THROUGHPUT_METHOD, throughputText } from "./catalog";

/** The reference's n per row and side (its headline and throughput tables), written out independently of the catalog. */
const REFERENCE_N: Record<string, { rivet?: number; cloudflare?: number }> = {
  "create.ping": { rivet: 1500, cloudflare: 200 },
  "create.unique": { cloudflare: 200 },
  "create.read": { rivet: 1200, cloudflare: 200 },
  "create.write": { rivet: 1200, cloudflare: 200 },
  "wake.ping": { rivet: 1200, cloudflare: 200 },
  "wake.read": { rivet: 1200, cloudflare: 200 },
  "wake.write": { rivet: 1200, cloudflare: 200 },
  "warm.ping": { rivet: 2000, cloudflare: 300 },
  "warm.getOrCreate": { rivet: 2000 },
  "sqlite.read": { rivet: 1200, cloudflare: 300 },
  "sqlite.write": { rivet: 1200, cloudflare: 300 },
  "sqlite.scan": { rivet: 1000, cloudflare: 300 },
  "burst.c1": { rivet: 500, cloudflare: 500 },
  "burst.c8": { rivet: 500, cloudflare: 500 },
  "burst.c32": { rivet: 500, cloudflare: 500 },
  "burst.c128": { rivet: 500, cloudflare: 500 },
  seqwrite: { rivet: 5000, cloudflare: 2000 },
};

describe("metric catalog", () => {
  it("the full preset takes the reference's n on each side", () => {
    for (const [id, want] of Object.entries(REFERENCE_N)) {
      for (const side of RUNTIMES) {
        const e = catalogEntry(id);
        expect(e.sides.includes(side), `${side} ${id}`).toBe(want[side] !== undefined);
        if (want[side] !== undefined) expect(sampleCount(e, PRESETS.full[side]), `${side} ${id}`).toBe(want[side]);
      }
    }
  });
  it("the floor measures every metric both runtimes share, with at least the larger side's count in every preset", () => {
    for (const e of CATALOG.filter((x) => RUNTIMES.every((r) => x.sides.includes(r)))) {
      expect(e.sides, e.id).toContain("floor");
      for (const counts of Object.values(PRESETS)) {
        expect(sampleCount(e, counts.floor), e.id).toBeGreaterThanOrEqual(Math.max(...RUNTIMES.map((r) => sampleCount(e, counts[r]))));
      }
    }
    // Side-only stages stay with their side.
    expect(catalogEntry("create.unique").sides).toEqual(["cloudflare"]);
    expect(catalogEntry("warm.getOrCreate").sides).toEqual(["rivet"]);
  });
  it("every design metric id is in the catalog, once, in the design's order of groups", () => {
    expect(new Set(METRIC_ORDER).size).toBe(METRIC_ORDER.length);
    for (const id of [...Object.keys(REFERENCE_N), "baseline.noop"]) expect(METRIC_ORDER).toContain(id);
    for (const e of CATALOG) expect(GROUPS).toContain(e.group);
  });
  it("coldness follows the kind: creates, wakes and bursts need a proven fresh start; nothing else does", () => {
    expect(["create.ping", "create.unique", "wake.write", "burst.c128", "open.r5"].map(isColdMetric)).toEqual([true, true, true, true, true]);
    expect(["warm.ping", "sqlite.read", "seqwrite", "baseline.noop", "rtt.c1.r1"].map(isColdMetric)).toEqual([false, false, false, false, false]);
  });
  it("side-only metrics stay with their side", () => {
    expect(metricsOf("rivet", "warm")).toEqual(["warm.ping", "warm.getOrCreate"]);
    expect(metricsOf("cloudflare", "warm")).toEqual(["warm.ping", "baseline.noop"]);
    expect(metricsOf("cloudflare", "create")).toContain("create.unique");
    expect(metricsOf("rivet", "create")).not.toContain("create.unique");
    expect(metricsOf("rivet", "burst")).toEqual(["burst.c1", "burst.c8", "burst.c32", "burst.c128", "open.r5", "open.r10", "open.r20"]);
  });
  it("the headline chart's create bar is the DO's unique-id create, Rivet's create.ping", () => {
    expect(chartMetric("cloudflare", "create")).toBe("create.unique");
    expect(chartMetric("rivet", "create")).toBe("create.ping");
    expect(chartMetric("rivet", "request")).toBe("warm.ping");
  });
  it("an unknown metric is named", () => expect(() => catalogEntry("create.pong")).toThrow(/"create.pong" is not a metric of the catalog/));
});

describe("throughputText", () => {
  it("says in words the method the report's arithmetic uses for each side", () => {
    for (const side of SIDES) {
      expect(throughputText(side)).toMatch(THROUGHPUT_METHOD[side] === "littles-law" ? /^Little's law/ : /^measured: completions \/ stage wall time$/);
    }
    expect(THROUGHPUT_METHOD.cloudflare).toBe("littles-law");
  });
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
