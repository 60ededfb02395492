import { describe, expect, it } from "vitest";
import { parseWrkOutput } from "./wrk";
import { benchTable, median, ratio } from "./benchFigures";

describe("driver benchmark figures", () => {
  it("reads the line wrk's done() hook prints, in ms and completions", () => {
    const out = "Running 2s test @ http://127.0.0.1:1/\n  1 threads and 8 connections\nWRK_RESULT {\"requests\":60000,\"duration_us\":2000000,\"errors\":2,\"p50_us\":54,\"p99_us\":812}\n";
    expect(parseWrkOutput(out)).toEqual({ requests: 60000, durationMs: 2000, errors: 2, p50: 0.054, p99: 0.812 });
    expect(() => parseWrkOutput("Running 2s test\n")).toThrow(/wrk printed no result line/);
  });
  it("medians, ratios and the printed table", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(ratio(0.08, 0.05)).toBeCloseTo(1.6);
    expect(ratio(1, null)).toBeNull();
    const t = benchTable([{ name: "c1 round trip p50 (ms)", lowerIsBetter: true, driver: 0.08, autocannon: 0.05, wrk: null }]);
    // Without wrk the table says why its columns are empty (apt-get install wrk), never a bare "-".
    expect(t.split("\n")[1]).toMatch(/^c1 round trip p50 \(ms\)\s+0\.080\s+0\.050\s+not installed\s+1\.60\s+not installed$/);
  });
});
