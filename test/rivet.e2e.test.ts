/**
 * End to end against a real Rivet Engine (the npm binary) and the real RivetKit
 * app registered as its runner, over real HTTP on loopback. Small counts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RIVET_PROFILE } from "../workloads/sides/rivet/profile";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { readListed } from "../analysis/contract/runDirContract";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { startLocalRivet, type LocalRivet } from "../workloads/sides/rivet/localRivet";
import { GatewayClient, type CallResult, type Target } from "../workloads/sides/rivet/gateway";
import { DEFAULT_ENGINE_SETTINGS } from "../cluster/engineConfig";
import { RunDir } from "../workloads/experiment/runDir";
import { createProgress } from "../workloads/experiment/progress";
import { metricsOf, defaultGroups } from "../analysis/contract/catalog";
import { ACTORS_PER_QUERY, sleepAndConfirm } from "../workloads/sides/rivet/adapter";
import { measure } from "../workloads/experiment/measure";
import { measureRuntimes } from "../workloads/run/run";
import { suiteTasks } from "../workloads/experiment/passPlan";
import { parseRunArgs } from "../workloads/run/runConfig";
import type { Sample } from "../workloads/experiment/samples";
import { rawText, TINY_SAMPLES } from "./fixtures";
import { hopRows } from "../analysis/stats/hopRows";
import { HOP_METRICS } from "../analysis/contract/hops";

let rivet: LocalRivet;
let client: GatewayClient;
let workDir: string;

const ok = (r: CallResult) => {
  if (!r.ok) throw new Error(r.error);
  return r;
};
/** A run's raw file's samples, stored plain or (once the run ended) compressed. */
const samplesOf = (dir: string, file: string): Sample[] =>
  rawText(dir, file)
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Sample);
const alive = (pid: number | undefined) => {
  try {
    process.kill(pid!, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "ab-e2e-"));
  rivet = await startLocalRivet({ workDir, settings: DEFAULT_ENGINE_SETTINGS });
  client = new GatewayClient(rivet.gatewayUrl, 20_000);
});

afterAll(async () => {
  await client?.close();
  const pids = [rivet?.engine.child.pid, rivet?.app.child.pid];
  await rivet?.stop();
  for (const pid of pids) expect(alive(pid)).toBe(false);
  rmSync(workDir, { recursive: true, force: true });
});

describe("the Engine launcher", () => {
  it("binds only loopback and answers /health", async () => {
    expect(rivet.gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(rivet.engineVersion).toMatch(/^\d+\.\d+\.\d+/);
    const c = rivet.engineConfig as { guard: { host: string }; api_peer: { host: string }; metrics: { host: string } };
    expect([c.guard.host, c.api_peer.host, c.metrics.host]).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.1"]);
  });

  it("refuses a port that is taken, naming it", async () => {
    const srv = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => srv.once("listening", r));
    const port = (srv.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), "ab-port-"));
    await expect(
      startLocalRivet({ workDir: dir, settings: DEFAULT_ENGINE_SETTINGS, ports: { gateway: port, apiPeer: port + 1, metrics: port + 2 } }),
    ).rejects.toThrow(new RegExp(`Engine gateway port 127\\.0\\.0\\.1:${port} is already in use`));
    srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("the RivetKit actors", () => {
  it("plain: first request cold, then warm; sleep then wake is a fresh instance", async () => {
    const k: Target = { kind: "key", actor: "plain", key: `plain-${Date.now()}` };
    const first = ok(await client.call(k, "ping"));
    expect(first.reply.cold).toBe(true);
    expect(first.reply.actorMs).toBeGreaterThanOrEqual(0);
    expect(first.reply.sqlMs).toBeNull();
    const byId: Target = { kind: "id", actorId: first.actorId };
    expect(ok(await client.call(byId, "ping")).reply.cold).toBe(false);
    expect(ok(await client.call(k, "ping")).reply.cold).toBe(false);
    ok(await client.call(byId, "sleep"));
    for (let i = 0; i < 100; i++) {
      const [a] = await client.actors([first.actorId]);
      if (a.sleep_ts !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const [a] = await client.actors([first.actorId]);
    expect(a.sleep_ts).not.toBeNull();
    const woke = ok(await client.call(byId, "ping"));
    expect(woke.reply.cold).toBe(true);
    expect(woke.actorId).toBe(first.actorId);
  });

  it("store: read, durable write, seed and a 1,000-row scan, with SQL intervals", async () => {
    const k: Target = { kind: "key", actor: "store", key: `store-${Date.now()}` };
    const miss = ok(await client.call(k, "read", [1]));
    expect(miss.reply).toMatchObject({ cold: true, value: null });
    expect(miss.reply.sqlMs).toBeGreaterThan(0);
    const w = ok(await client.call(k, "write"));
    expect(w.reply.cold).toBe(false);
    expect(w.reply.sqlMs).toBeGreaterThan(0);
    expect(w.reply.actorMs).toBeGreaterThanOrEqual(w.reply.sqlMs!);
    expect(ok(await client.call(k, "read", [1])).reply.value).toBe(128);
    ok(await client.call(k, "seed", [1000]));
    expect(ok(await client.call(k, "scan")).reply.value).toEqual({ rows: 1000, bytes: 128_000 });
  });

  it("store: a write of a named size stores that many bytes made in the actor; an outsized one fails with the actor's one line", async () => {
    const k: Target = { kind: "key", actor: "store", key: `payload-${Date.now()}` };
    ok(await client.call(k, "write", [1_048_576]));
    expect(ok(await client.call(k, "read", [1])).reply.value).toBe(1_048_576);
    const big = await client.call(k, "write", [9 * 1_048_576]);
    expect(big.ok).toBe(false);
  });

  it("store: a scheduled action fires on a live actor (warm) and wakes one that slept right after setting it (cold)", async () => {
    const awake: Target = { kind: "key", actor: "store", key: `alarm-awake-${Date.now()}` };
    const asleep: Target = { kind: "key", actor: "store", key: `alarm-asleep-${Date.now()}` };
    const due = ok(await client.call(awake, "setAlarm", [200])).reply.value as number;
    ok(await client.call(asleep, "setAlarmSleep", [200]));
    await new Promise((r) => setTimeout(r, 2000));
    const live = ok(await client.call(awake, "alarmResult")).reply.value as { due: number; fired: number; cold: boolean };
    expect(live).toMatchObject({ due, cold: false });
    expect(live.fired).toBeGreaterThanOrEqual(due);
    const woke = ok(await client.call(asleep, "alarmResult")).reply.value as { due: number; fired: number; cold: boolean };
    expect(woke.cold).toBe(true);
    expect(woke.fired).toBeGreaterThanOrEqual(woke.due);
  });
});

describe("the Rivet driver stages (the stage plan through measureRuntimes)", () => {
  let run: RunDir;
  const failures: string[] = [];
  beforeAll(async () => {
    run = new RunDir(mkdtempSync(join(tmpdir(), "ab-run-")), "local", "test", {});
    const cfg = parseRunArgs(["--preset", "quick", "--samples", TINY_SAMPLES, "--wake-idle-ms", "500", "--side", "rivet", "--capture"]);
    await measureRuntimes(
      cfg,
      run,
      createProgress(process.stdout, true),
      failures,
      {
        rivet: {
          gatewayUrl: rivet.gatewayUrl,
          engineVersion: rivet.engineVersion,
          engineConfig: rivet.engineConfig,
          startedBy: "e2e test",
        },
      },
      suiteTasks(["rivet"], cfg.groups),
    );
    run.finish(failures.length ? "failed" : "complete");
  }, 300_000);

  it("completes every group and records the adapter's properties", () => {
    expect(failures).toEqual([]);
    const settings = run.manifest.settings.rivet as { adapter: Record<string, string> };
    expect(settings.adapter.clock).toMatch(/hrtime/);
    expect(settings.adapter.wakeIdle).toBe("500 ms after the Engine reports every actor asleep");
  });

  it("writes every Rivet metric of the contract, one sample per attempt", () => {
    // The quick preset's groups (the scaling group is off in quick; workloads/sides/floor/floor.e2e.test.ts runs it).
    const expected = defaultGroups("quick").flatMap((g) => metricsOf(RIVET_PROFILE, g));
    expect(Object.keys(run.manifest.stages).sort()).toEqual(expected.map((m) => `rivet.${m}`).sort());
    for (const m of expected) {
      const st = run.manifest.stages[`rivet.${m}`];
      const samples = samplesOf(run.dir, st.file);
      expect(samples.length, m).toBe(st.attempts);
      expect(
        samples.map((s) => s.seq).sort((a, b) => a - b),
        m,
      ).toEqual(samples.map((_, i) => i));
      expect(samples.filter((s) => !s.ok).length, m).toBe(st.errors);
      // Serial stages must not fail. Concurrent creates on a loaded 2-core machine can hit the
      // Engine's 15 s route timeout (docs/engine-latency.md): those are counted, with their text.
      if (st.concurrency === 1) expect(st.errors, m).toBe(0);
      for (const s of samples) {
        if (!s.ok) expect(s.error, m).toMatch(/HTTP 50\d|timeout/);
        expect(s.ms).toBeGreaterThan(0);
        expect(typeof s.at).toBe("number");
      }
    }
  });

  it("cuts every captured call at the Engine's hops: a create's and a wake's start is on the wire, a warm call has none", () => {
    const rows = hopRows(
      run.manifest,
      (key) => samplesOf(run.dir, run.manifest.stages[key].file),
      (f) => readListed(run.dir, f),
    );
    expect(rows.map((r) => r.metric).sort()).toEqual(HOP_METRICS.filter((m) => `rivet.${m}` in run.manifest.stages).sort());
    for (const r of rows) {
      expect({ metric: r.metric, refused: r.refused, noInnerHop: r.noInnerHop }).toEqual({ metric: r.metric, refused: [], noInnerHop: 0 });
      const w = r.waterfall!;
      expect(w.calls[0], r.metric).toBe(run.manifest.stages[`rivet.${r.metric}`].attempts);
      const seg = (id: string) => w.segments.find((s) => s.segment.id === id)!.atMedian.mean;
      // The Engine's part before the forward and RivetKit's after it are each some of every call.
      expect(seg("frontIn"), r.metric).toBeGreaterThan(0);
      expect(seg("rest") + seg("own"), r.metric).toBeGreaterThan(0);
      if (/^(create|wake)\./.test(r.metric)) expect(seg("start"), r.metric).toBeGreaterThan(1);
      else expect(seg("start"), r.metric).toBe(0);
    }
  });

  it("creates, wakes and burst creates are proven cold; warm, SQLite and sequential series keep their (false) cold flag", () => {
    for (const [metric, st] of Object.entries(run.manifest.stages)) {
      const samples = samplesOf(run.dir, st.file);
      const m = metric.slice("rivet.".length);
      if (/^(create|wake|burst|open)\./.test(m)) {
        expect(
          samples.every((s) => (s.ok ? s.cold === true : s.cold === null)),
          metric,
        ).toBe(true);
      } else {
        expect(
          samples.every((s) => s.cold === false),
          metric,
        ).toBe(true);
      }
    }
    // The series the reference runs on an actor woken once ran on one.
    for (const m of ["sqlite.read", "seqwrite"]) expect(run.manifest.stages[`rivet.${m}`].notes?.wokenOnce, m).toBe(true);
  });

  it("records SQL intervals on SQLite rows and the wake idle time", () => {
    for (const m of ["sqlite.read", "sqlite.write", "sqlite.scan", "create.write", "wake.read"]) {
      const samples = samplesOf(run.dir, `raw/rivet.${m}.jsonl`);
      expect(
        samples.every((s) => typeof s.sqlMs === "number" && s.sqlMs > 0),
        m,
      ).toBe(true);
    }
    expect(run.manifest.stages["rivet.wake.ping"].notes?.idleAtLeastMs).toBe(500);
    expect(run.manifest.stages["rivet.burst.c8"].concurrency).toBe(8);
  });

  it("open-model stages send at their rate, time from the intended send and say so", () => {
    const st = run.manifest.stages["rivet.open.r5"];
    expect(st.notes).toMatchObject({ mode: "open", ratePerSecond: 5 });
    expect(st.attempts).toBe(5);
    const samples = samplesOf(run.dir, st.file);
    // Sends 200 ms apart (the samples' `at` is the intended send time).
    const at = samples.map((s) => s.at).sort((a, b) => a - b);
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(199);
    for (const s of samples.filter((x) => x.ok)) expect(s.ms).toBeGreaterThanOrEqual(s.clientMs as number);
  });

  it("the manifest's sha256 and line counts match the files, raw samples and stage records alike", () => {
    const m = JSON.parse(readFileSync(join(run.dir, "manifest.json"), "utf8"));
    // A sample file and a record per stage, and a capture per hop stage (the run is made with --capture).
    const captures = Object.keys(m.files).filter((f) => f.endsWith(".pcap"));
    expect(captures.length).toBe(HOP_METRICS.filter((x) => `rivet.${x}` in run.manifest.stages).length);
    expect(Object.keys(m.files).length - captures.length).toBe(2 * Object.keys(run.manifest.stages).length);
    for (const [file, d] of Object.entries(m.files as Record<string, { sha256: string; lines: number }>)) {
      // A raw file is stored compressed once its run ended; its hash is over the bytes written.
      const buf = readListed(run.dir, file);
      expect(createHash("sha256").update(buf).digest("hex"), file).toBe(d.sha256);
      expect(buf.toString().split("\n").length - 1, file).toBe(d.lines);
    }
  });
});

describe("the Engine's caps", () => {
  const burst = async (c: GatewayClient, n: number, tag: string) =>
    Promise.all(Array.from({ length: n }, (_, i) => c.call({ kind: "key", actor: "plain", key: `${tag}-${i}` }, "ping")));

  it("the raised ones let a 64-wide create burst through without a 429", async () => {
    const results = await burst(client, 64, `caps-${Date.now()}`);
    expect(results.filter((r) => !r.ok && /HTTP 429/.test(r.error))).toEqual([]);
  });

  it("the create cap is a real setting: at 5 tokens the same burst gets 429 creation_rate_limit at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ab-caps-"));
    const low = await startLocalRivet({
      workDir: dir,
      settings: DEFAULT_ENGINE_SETTINGS,
      configOverride: { pegboard: { actor_create_rate_limit_requests: 5, actor_create_rate_limit_drip_rate_ms: 60_000 } },
    });
    const c = new GatewayClient(low.gatewayUrl, 20_000);
    try {
      const results = await burst(c, 64, "low");
      const limited = results.filter((r) => !r.ok && r.error.includes("creation_rate_limit"));
      expect(limited.length).toBeGreaterThanOrEqual(50);
      expect(limited.every((r) => !r.ok && r.error.startsWith("HTTP 429"))).toBe(true);
    } finally {
      await c.close();
      await low.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("sleep confirmation", () => {
  it("confirms more actors than one Engine query takes (32 ids) asleep", async () => {
    const ids: string[] = [];
    for (let i = 0; i < ACTORS_PER_QUERY + 8; i++) {
      // Setup, not a sample: the Engine now and then stalls one create past its
      // 15 s route timeout (docs/engine-latency.md), so this one may try twice.
      const target: Target = { kind: "key", actor: "plain", key: `many-${Date.now()}-${i}` };
      let r = await client.call(target, "ping");
      if (!r.ok && r.error.includes("route_resolve_query_timeout")) r = await client.call(target, "ping");
      ids.push(ok(r).actorId);
    }
    const out = await sleepAndConfirm(client, ids, 30_000);
    expect(out).toEqual({ asleep: ids, failures: [], alreadyAsleep: 0 });
    const asleep = [...(await client.actors(ids.slice(0, 32))), ...(await client.actors(ids.slice(32)))];
    expect(asleep.filter((a) => a.sleep_ts !== null)).toHaveLength(ids.length);
    // Asleep already: counted as such, and no sleep action is sent (it would wake them first).
    const again = await sleepAndConfirm(client, ids, 30_000);
    expect(again).toEqual({ asleep: ids, failures: [], alreadyAsleep: ids.length });
  });
});

describe("failures", () => {
  it("a SIGKILLed app mid-stage gives counted failures and loses no sample", async () => {
    const run = new RunDir(mkdtempSync(join(tmpdir(), "ab-kill-")), "local", "test", {});
    const short = new GatewayClient(rivet.gatewayUrl, 3_000);
    const k: Target = { kind: "key", actor: "plain", key: `kill-${Date.now()}` };
    ok(await short.call(k, "ping"));
    const n = 14;
    const ctx = { run, progress: createProgress(process.stdout, true) };
    let killed = false;
    await measure({
      ctx,
      side: "rivet",
      metric: "warm.ping",
      n,
      concurrency: 1,
      call: async (i) => {
        if (i === 10 && !killed) {
          killed = true;
          rivet.app.child.kill("SIGKILL");
          await rivet.app.exited;
        }
        return short.call(k, "ping");
      },
    });
    const samples = samplesOf(run.dir, "raw/rivet.warm.ping.jsonl");
    expect(samples.length).toBe(n);
    expect(samples.slice(0, 10).every((s) => s.ok)).toBe(true);
    const failed = samples.filter((s) => !s.ok);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((s) => typeof s.error === "string" && s.error.length > 0)).toBe(true);
    expect(run.manifest.stages["rivet.warm.ping"]).toMatchObject({ attempts: n, errors: failed.length });
    await short.close();
    await rivet.restartApp();
    expect(ok(await client.call({ kind: "key", actor: "plain", key: `after-${Date.now()}` }, "ping")).reply.cold).toBe(true);
  }, 240_000);
});
