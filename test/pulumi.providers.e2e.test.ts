/**
 * The real dynamic providers through the real provider host from @pulumi/pulumi
 * (no Pulumi CLI): the serialized providers the program registers, driven over
 * gRPC with Check, Diff, Create, Read and Delete, against a real Engine + app and
 * a real workerd, with a real quick run of both sides.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProgram, stackConfigFromFiles } from "./pulumiProgram";
import { startProviderHost, urnOf, type Props, type ProviderHost } from "./providerHost";
import { alive, descendants } from "./processTree";
import { verifyRunDir } from "../analysis/contract/verify";
import { netnsAvailable } from "../workloads/host/netns";
import { UNKNOWN_INPUT } from "../components/providers/common";

const T = (name: string) => `pulumi-nodejs:dynamic/actor-bench:${name}`;
const loopback = netnsAvailable().ok ? "quickack" : "host";

describe("dynamic providers in the real provider host", () => {
  let host: ProviderHost;
  let providers: Record<string, string>;
  const work = mkdtempSync(join(tmpdir(), "actor-bench-providers-"));

  beforeAll(async () => {
    // The providers exactly as the program serializes them.
    const { registered } = await runProgram("local", stackConfigFromFiles("local"), true);
    providers = {};
    for (const r of registered) if (r.custom) providers[r.type.split(":").pop()!] = String(r.inputs.__provider);
    expect(Object.keys(providers).sort()).toEqual(["BenchmarkReport", "BenchmarkRun", "LocalSide"]);
    host = await startProviderHost();
  });
  afterAll(async () => {
    await host?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const withProvider = (type: string, p: Props) => ({ ...p, __provider: providers[type] });
  /** Check of a new resource of `type` (named `name`) with these inputs, through the host. */
  const checkNew = (type: string, name: string, p: Props) => host.check(urnOf(T(type), name), {}, withProvider(type, p));

  it("Check refuses bad inputs with the property and the reason", async () => {
    const bad = await checkNew("LocalSide", "e", {
      stack: "t",
      side: "rivet",
      stateDir: "relative",
      loopback: "fast",
      own: {},
      actorSleepTimeoutMs: 0,
    });
    expect(bad.failures.map((f) => f.property).sort()).toEqual(["actorSleepTimeoutMs", "loopback", "stateDir"]);
    // A control side cannot run in a stack; a side's own check speaks through the provider's.
    const floor = await checkNew("LocalSide", "f", {
      stack: "t",
      side: "floor",
      stateDir: "/x",
      loopback: "host",
      own: {},
      actorSleepTimeoutMs: 1,
    });
    expect(floor.failures).toEqual([
      { property: "side", reason: 'side must be a runtime a stack can run (rivet, cloudflare), got "floor"' },
    ]);
    const cluster = await checkNew("LocalSide", "c", {
      stack: "t",
      side: "rivet",
      stateDir: "/x",
      loopback: "quickack",
      own: { engineTopology: "cluster" },
      actorSleepTimeoutMs: 1,
    });
    expect(cluster.failures.map((f) => f.property)).toEqual(["own"]);
    expect(cluster.failures[0].reason).toMatch(/^--engine-topology cluster needs --loopback host/);
    const run = await checkNew("BenchmarkRun", "r", {
      stack: "t",
      side: "rivet",
      group: "nap",
      runArgs: ["--preset", "huge"],
      blobRoot: "/x",
      daemon: {},
    });
    expect(run.failures.map((f) => f.property).sort()).toEqual(["daemon", "group", "runArgs"]);
    // A preview, before the stack's LocalSide exists: its daemon is not known yet, and the check lets it through.
    const preview = await checkNew("BenchmarkRun", "p", {
      stack: "t",
      side: "rivet",
      group: "warm",
      runArgs: [],
      trigger: null,
      blobRoot: "/x",
      daemon: UNKNOWN_INPUT,
    });
    expect(preview.failures).toEqual([]);
  });

  it("the Engine and the Worker start, runs of both sides measure against them, the report merges them; Delete stops and removes everything", async () => {
    // Start both runtimes.
    const engineUrn = urnOf(T("LocalSide"), "local-rivet");
    const sideIn = (side: string, dir: string, own: object) =>
      withProvider("LocalSide", { stack: "t", side, stateDir: join(work, dir), loopback, own, actorSleepTimeoutMs: 30000 });
    const engineIn = sideIn("rivet", "engine", {
      engine: { tcpNodelay: true, keepRustBacktrace: false, loadShedding: false },
      engineTopology: "single",
    });
    const checked = await host.check(engineUrn, {}, engineIn);
    expect(checked.failures).toEqual([]);
    const engine = await host.create(engineUrn, checked.inputs);
    const engineDaemon = engine.props.daemon as { pid: number; ready: { pids: number[]; target: { enginePid: number; appPid: number } } };
    // The daemon names the Engine's and the app's processes, as the Rivet side's launch started them.
    expect(engineDaemon.ready.pids).toEqual(
      expect.arrayContaining([engineDaemon.ready.target.enginePid, engineDaemon.ready.target.appPid]),
    );
    expect(alive(engineDaemon.pid) && engineDaemon.ready.pids.every(alive)).toBe(true);
    expect(engine.props.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(engine.props.secrets).toEqual({});

    const workerUrn = urnOf(T("LocalSide"), "local-cloudflare");
    const workerIn = sideIn("cloudflare", "worker", { cfWakeIdleMs: 12000 });
    const worker = await host.create(workerUrn, (await host.check(workerUrn, {}, workerIn)).inputs);
    const workerDaemon = worker.props.daemon as { pid: number };
    const workerTree = [workerDaemon.pid, ...descendants(workerDaemon.pid)];
    expect(workerTree.length).toBeGreaterThan(1); // the daemon and its workerd
    const token = (worker.props.secrets as { token: string }).token;
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(JSON.stringify(worker.props.target)).not.toContain(token);

    // Unchanged inputs: no diff; a changed input replaces.
    expect(await host.diff(engineUrn, engine.id, engine.props, engineIn)).toEqual({ changes: "none", replaces: [] });
    expect((await host.diff(engineUrn, engine.id, engine.props, { ...engineIn, actorSleepTimeoutMs: 2000 })).replaces).toEqual([
      "actorSleepTimeoutMs",
    ]);
    expect((await host.read(engineUrn, engine.id, engine.props)).id).toBe(engine.id);

    // One group of each side, quick preset.
    const runUrn = (side: string) => urnOf(T("BenchmarkRun"), `local-${side}-create`);
    const runs: Array<{ id: string; props: Props }> = [];
    for (const side of ["cloudflare", "rivet"]) {
      const running = side === "rivet" ? engine : worker;
      const input = withProvider("BenchmarkRun", {
        stack: "t",
        side,
        group: "create",
        runArgs: ["--preset", "quick", "--request-timeout-ms", "30000"],
        trigger: null,
        blobRoot: join(work, "blobs", `${side}.create`),
        daemon: running.props.daemon,
        secrets: running.props.secrets,
      });
      const c = await host.check(runUrn(side), {}, input);
      expect(c.failures).toEqual([]);
      const run = await host.create(runUrn(side), c.inputs);
      runs.push(run);
      const blob = run.props.blob as string;
      expect(run.props.status).toBe("complete");
      // The blob's digest is the manifest's sha256; the manifest pins every raw file.
      expect(run.props.sha256).toBe(
        createHash("sha256")
          .update(readFileSync(join(blob, "manifest.json")))
          .digest("hex"),
      );
      const m = verifyRunDir(blob);
      expect(Object.keys(m.files).length).toBeGreaterThanOrEqual(3);
      expect(JSON.stringify(m)).not.toContain(token);
      // Outputs carry a summary, never the samples.
      expect(JSON.stringify(run.props)).not.toMatch(/"seq"/);
      const rows = (run.props.summary as { rows: Array<{ metric: string; n: number; notCold: number; errors: number }> }).rows;
      const ping = rows.find((r) => r.metric === "create.ping")!;
      expect(ping).toMatchObject({ n: 20, notCold: 0, errors: 0 });
      // An unchanged config does not re-run; a new trigger does.
      expect((await host.diff(runUrn(side), run.id, run.props, input)).changes).toBe("none");
      expect((await host.diff(runUrn(side), run.id, run.props, { ...input, trigger: "again" })).replaces).toEqual(["trigger"]);
    }

    // The report merges both blobs, checks their digests and writes results/<stack>/<runId>/report/.
    const reportUrn = urnOf(T("BenchmarkReport"), "local-report");
    const resultsRoot = join(work, "results");
    const parts = runs.map((r) => ({ label: `${r.props.side} create`, runDir: r.props.blob, sha256: r.props.sha256 }));
    const tampered = await host
      .create(reportUrn, withProvider("BenchmarkReport", { stack: "t", resultsRoot, parts: [{ ...parts[0], sha256: "0".repeat(64) }] }))
      .catch((e: Error) => e);
    expect(String(tampered)).toMatch(
      /cloudflare create: .*manifest.json has sha256 [0-9a-f]{64}, the stack recorded 0{64}; the result was changed after the run/,
    );
    const report = await host.create(reportUrn, withProvider("BenchmarkReport", { stack: "t", resultsRoot, parts }));
    const runDir = report.props.runDir as string;
    expect(runDir.startsWith(join(resultsRoot, "t"))).toBe(true);
    expect(report.props.report).toBe(readFileSync(join(runDir, "report", "results.md"), "utf8"));
    expect(report.props.report).toMatch(/Rivet Actor[\s\S]*Durable Object/);
    const merged = verifyRunDir(runDir);
    expect(Object.keys(merged.stages).sort()).toEqual(expect.arrayContaining(["rivet.create.ping", "cloudflare.create.unique"]));
    // The site beside results/ is rebuilt with the new run on its index and a page of its own.
    expect(report.props.site).toBe(join(work, "site", "index.html"));
    const runId = report.props.runId as string;
    expect(readFileSync(report.props.site as string, "utf8")).toContain(`data-run="t/${runId}"`);
    expect(readFileSync(join(work, "site", "runs", "t", `${runId}.html`), "utf8")).toContain('id="chart-cdf-create"');

    // Delete a run: its blob goes, and a refresh finds it gone.
    await host.delete(runUrn("rivet"), runs[1].id, runs[1].props);
    expect(existsSync(runs[1].props.blob as string)).toBe(false);
    expect((await host.read(runUrn("rivet"), runs[1].id, runs[1].props)).id).toBe("");
    await host.delete(runUrn("cloudflare"), runs[0].id, runs[0].props);

    // A dead Engine: refresh sees it gone; Delete still cleans up.
    const engineTree = [engineDaemon.pid, ...descendants(engineDaemon.pid)];
    expect(engineTree).toEqual(expect.arrayContaining(engineDaemon.ready.pids));
    process.kill(engineDaemon.pid, "SIGKILL");
    const deadline = Date.now() + 10_000;
    while (engineTree.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(engineTree.filter(alive)).toEqual([]);
    expect((await host.read(engineUrn, engine.id, engine.props)).id).toBe("");
    await host.delete(engineUrn, engine.id, engine.props);
    expect(existsSync(join(work, "engine"))).toBe(false);

    // The Worker: Delete stops it and its workerd, and removes its data.
    await host.delete(workerUrn, worker.id, worker.props);
    expect(workerTree.filter(alive)).toEqual([]);
    expect(existsSync(join(work, "worker"))).toBe(false);
    expect((await host.read(workerUrn, worker.id, worker.props)).id).toBe("");
    expect(host.child.exitCode).toBeNull();
  });
});
