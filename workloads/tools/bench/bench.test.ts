import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunDir } from "../../experiment/runDir";
import { autocannonRun } from "./referenceRuns";
import { NOOP_REPLY } from "./noopServer";
import { parseWrkOutput } from "./wrk";
import { benchTable, median, pairedRatio, toolOrder } from "./benchFigures";

describe("driver benchmark figures", () => {
  it("reads the line wrk's done() hook prints, in ms and completions", () => {
    const out =
      'Running 2s test @ http://127.0.0.1:1/\n  1 threads and 8 connections\nWRK_RESULT {"requests":60000,"duration_us":2000000,"errors":2,"p50_us":54,"p99_us":812}\n';
    expect(parseWrkOutput(out)).toEqual({ requests: 60000, durationMs: 2000, errors: 2, p50: 0.054, p99: 0.812 });
    expect(() => parseWrkOutput("Running 2s test\n")).toThrow(/wrk printed no result line/);
  });
  it("runs the driver next to autocannon, and each round in the reverse order of the one before", () => {
    expect(toolOrder(1)).toEqual(["driver", "autocannon", "undici", "wrk"]);
    expect(toolOrder(2)).toEqual(["wrk", "undici", "autocannon", "driver"]);
    expect(toolOrder(3)).toEqual(toolOrder(1));
    for (const r of [1, 2]) expect(Math.abs(toolOrder(r).indexOf("driver") - toolOrder(r).indexOf("autocannon"))).toBe(1);
  });
  it("medians, paired ratios and the printed table", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    // Rounds at three machine loads; the tool is twice the reference in each.
    expect(pairedRatio([20, 10, 15], [10, 5, 7.5])).toBe(2);
    // A third round where the reference alone was disturbed: the ratio of the medians
    // moves (15 / 10 = 1.5), the median of the rounds' own ratios does not.
    expect(median([20, 10, 15]) / median([10, 5, 40])).toBe(1.5);
    expect(pairedRatio([20, 10, 15], [10, 5, 40])).toBe(2);
    expect(pairedRatio([1], null)).toBeNull();
    expect(pairedRatio([1, 2], [1])).toBeNull();
    const t = benchTable([
      {
        name: "c1 round trip p50 (ms)",
        lowerIsBetter: true,
        rounds: { driver: [0.08, 0.09, 0.07], undici: [0.06, 0.06, 0.06], autocannon: [0.05, 0.06, 0.05], wrk: null },
      },
    ]);
    expect(t.split("\n")[0]).toMatch(
      /^figure\s+driver\s+undici alone\s+autocannon\s+wrk\s+driver\/autocannon\s+undici\/autocannon\s+driver\/wrk$/,
    );
    // Without wrk the table says why its columns are empty (apt-get install wrk), never a bare "-".
    // driver/autocannon: rounds 1.6, 1.5, 1.4 -> 1.5; undici/autocannon: 1.2, 1.0, 1.2 -> 1.2.
    expect(t.split("\n")[1]).toMatch(
      /^c1 round trip p50 \(ms\)\s+0\.080\s+0\.060\s+0\.050\s+not installed\s+1\.50\s+1\.20\s+not installed$/,
    );
  });
});

describe("autocannon's stage in the driver benchmark", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end(NOOP_REPLY));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gateway/noop/action/ping`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("ends its wall time at the last response, not at autocannon's next 1 s tick", async () => {
    const root = mkdtempSync(join(tmpdir(), "actor-bench-ac-"));
    try {
      const run = new RunDir(root, "driver-bench", "bench", {});
      const t0 = Date.now();
      await autocannonRun(run, url, "rtt.c8.r1", 8, 300);
      const callbackMs = Date.now() - t0;
      const st = run.manifest.stages["autocannon.rtt.c8.r1"];
      const samples = readFileSync(join(run.dir, st.file), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { at: number; ok: boolean });
      expect(samples).toHaveLength(300);
      expect(st.attempts).toBe(300);
      // autocannon's callback waits for its sampling tick; the stage does not.
      expect(callbackMs).toBeGreaterThanOrEqual(990);
      expect(st.wallMs).toBeLessThan(callbackMs - 200);
      expect(st.wallMs).toBeGreaterThanOrEqual(samples[299].at - samples[0].at - 1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
