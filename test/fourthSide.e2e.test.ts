/**
 * A side is its package and one line of the registry: a fourth side, an echo
 * server (test/fixtures/echoSide/: profile, runtime, descriptor), added here
 * by that one line, runs through `npm start`'s parser and run, and shows in
 * the run directory, the report, the README's headline and the site without
 * a change anywhere else (docs/adding-a-side.md); and a local stack declares
 * its runtime and its runs from the same registry.
 */
import { describe, expect, it, beforeAll } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SIDE_REGISTRY } from "../workloads/sides/registry";
import { parseRunArgs, usage, runOptions } from "../workloads/run/runConfig";
import { runLocalSuite, type RunOutcome } from "../workloads/run/run";
import { createProgress } from "../workloads/experiment/progress";
import { verifyRunDir } from "../analysis/contract/verify";
import { metricsOf } from "../analysis/contract/catalog";
import { generateReport, type Report } from "../analysis/report/report";
import { buildSite } from "../analysis/report/site";
import { echoSide } from "./fixtures/echoSide/side";
import { ECHO_PROFILE } from "./fixtures/echoSide/profile";
import { runProgram } from "./pulumiProgram";
import { check as checkLocalSide } from "../components/providers/localSide";
import { resolve } from "node:path";

// The registry line.
const registry = [...SIDE_REGISTRY, echoSide];

describe("a fourth side, added by its folder and one registry line", () => {
  const root = mkdtempSync(join(tmpdir(), "ab-echo-"));
  let out: RunOutcome;
  let report: Report;
  beforeAll(async () => {
    const cfg = {
      ...parseRunArgs(["--preset", "quick", "--side", "echo", "--wake-idle-ms", "300", "--results-dir", root], registry),
      quiet: true,
    };
    out = await runLocalSuite(cfg, createProgress(process.stdout, true), registry);
    report = await generateReport(out.runDir);
  }, 120_000);

  it("is a value of --side and of --plant-delay-us, and --help lists it", () => {
    expect(usage(runOptions(registry))).toContain("--side rivet|cloudflare|floor|echo|both|all");
    expect(parseRunArgs(["--side", "both"], registry).sides).toEqual(["rivet", "cloudflare", "echo"]);
    expect(parseRunArgs(["--plant-delay-us", "echo=5"], registry).plantDelayUs).toEqual({ echo: { "*": 5 } });
    expect(() => parseRunArgs(["--side", "echo"])).toThrow(/--side must be rivet, cloudflare, floor, both/);
  });

  it("runs every group of the quick preset into a run directory that verifies, its profile recorded", () => {
    expect(out.failures).toEqual([]);
    const m = verifyRunDir(out.runDir);
    const want = ["create", "wake", "warm", "sqlite", "seqwrite", "burst"]
      .flatMap((g) => metricsOf(ECHO_PROFILE, g as never))
      .map((id) => `echo.${id}`);
    expect(Object.keys(m.stages).sort()).toEqual(want.sort());
    expect(m.stages["echo.open.r20"]).toBeDefined();
    expect(m.sideProfiles?.map((p) => p.id)).toEqual(["rivet", "cloudflare", "floor", "echo"]);
    expect((m.settings?.echo as { caveats: string[] } | undefined)?.caveats).toEqual([
      "The echo side is a test fixture: it stores nothing.",
    ]);
    // Creates and wakes are proven cold by the echo server's own flag.
    const wake = out.rows.find((r) => r.metric === "wake.ping")!;
    expect(wake.n).toBeGreaterThan(0);
    expect(wake.notCold).toBe(0);
  });

  it("has its columns in the report, the README's headline and the throughput table, in its own words", () => {
    const md = readFileSync(join(out.runDir, "report", "results.md"), "utf8");
    expect(md).toContain(
      "| Metric | Rivet Actor: client round trip through the Engine gateway (driver hrtime) | n | errors / cold flag wrong | Durable Object: Worker's Date.now() around the awaited DO call | n | errors / cold flag wrong | Echo server (test fixture): client round trip to the echo server (driver hrtime) |",
    );
    expect(md).toMatch(/\| Burst creates at concurrency 8 \| - \| - \| [\d.,]+\/s \(0 errors of \d+\) \|/);
    expect(md).toContain("### Echo server (test fixture)");
    expect(md).toContain("- The echo side is a test fixture: it stores nothing.");
    expect(md).toMatch(/\| Echo server \(test fixture\) \| 20\.0\/s \| [\d.]+\/s \| 0 of 60 \|/);
    const head = report.readmeHeadline.split("\n").find((l) => l.startsWith("| Metric"));
    expect(head).toBe(
      "| Metric | Rivet Actor (client) | Durable Object (client, via the Worker) | Durable Object (Worker's clock) | Floor (client) | Echo (client) | n |",
    );
    expect(report.readmeHeadline).toMatch(/\| Warm request \(no storage\) \| - \| - \| - \| - \| [\d.]+ \/ [\d.]+ \|/);
    const summary = JSON.parse(readFileSync(join(out.runDir, "report", "summary.json"), "utf8")) as { rows: Array<{ side: string }> };
    expect(new Set(summary.rows.map((r) => r.side))).toEqual(new Set(["echo"]));
  });

  it("has its page on the site, coloured as its profile says", () => {
    const into = mkdtempSync(join(tmpdir(), "ab-echo-site-"));
    const site = buildSite(root, join(into, "site"), root);
    const page = readFileSync(join(into, "site", site.runs[0].page), "utf8");
    expect(page).toContain("Echo server (test fixture)");
    expect(page).toContain(ECHO_PROFILE.colour);
    expect(readFileSync(site.index, "utf8")).toContain("Echo (client)");
  });

  it("runs in a local stack: the stack declares its LocalSide and one run per group, and the provider accepts it", async () => {
    const dist = (p: string) => resolve("dist", p);
    const { registered } = await runProgram("echo-local", {}, false, [], (load) => {
      const { LocalBenchmark } = load(dist("components/local/localBenchmark.js")) as typeof import("../components/local/localBenchmark");
      const reg = [...(load(dist("workloads/sides/registry.js")) as typeof import("../workloads/sides/registry")).SIDE_REGISTRY];
      reg.push((load(dist("test/fixtures/echoSide/side.js")) as typeof import("./fixtures/echoSide/side")).echoSide);
      const { parseRunArgs: parse } = load(dist("workloads/run/runConfig.js")) as typeof import("../workloads/run/runConfig");
      const runArgs = ["--preset", "quick"];
      const run = { ...parse([...runArgs, "--side", "echo"], reg), stack: "echo-local" };
      const config = {
        stack: "echo-local",
        target: "local" as const,
        run,
        runArgs,
        engineVersion: "2.3.19",
        runTrigger: null,
        azure: null,
        cloudflare: null,
      };
      return { report: new LocalBenchmark("echo-local", { config, projectDir: root, registry: reg }).report };
    });
    const sides = registered.filter((r) => r.type.endsWith(":LocalSide"));
    expect(sides.map((r) => [r.inputs.side, r.inputs.stateDir])).toEqual([["echo", join(root, ".actor-bench", "echo-local", "echo")]]);
    const runs = registered.filter((r) => r.type.endsWith(":BenchmarkRun"));
    expect(runs.map((r) => `${r.inputs.side}.${r.inputs.group}`)).toEqual(
      ["create", "wake", "warm", "sqlite", "seqwrite", "burst"].map((g) => `echo.${g}`),
    );
    for (const r of runs) expect(r.dependencies).toContain(sides[0].urn);
    // The provider takes it by the registry, as a runtime with a daemon target; without the registry line it is refused.
    const inputs = { stack: "t", side: "echo", stateDir: "/tmp/x", loopback: "host", own: {}, actorSleepTimeoutMs: 1000 };
    expect((await checkLocalSide({}, inputs, registry)).failures).toEqual([]);
    expect((await checkLocalSide({}, inputs)).failures.map((f) => f.property)).toEqual(["side"]);
  });
});
