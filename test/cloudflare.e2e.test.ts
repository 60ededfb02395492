/**
 * End to end on real workerd (Miniflare 4 from npm) over real HTTP on loopback:
 * the Worker's routes and token check, the DO's cold flag, eviction-based
 * wakes, persistence across a workerd restart, and every driver stage.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKER_UPLOAD } from "../workloads/sides/cloudflare/upload";
import { summarizeRun } from "../analysis/stats/summary";
import { CLOUDFLARE_PROFILE } from "../workloads/sides/cloudflare/profile";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { startLocalWorker, type LocalWorker } from "../workloads/sides/cloudflare/localWorker";
import { WorkerClient, type WorkerResult } from "../workloads/sides/cloudflare/workerClient";
import { RunDir } from "../workloads/experiment/runDir";
import { createProgress } from "../workloads/experiment/progress";
import { metricsOf, defaultGroups } from "../analysis/contract/catalog";
import { measureRuntimes } from "../workloads/run/run";
import { suiteTasks } from "../workloads/experiment/passPlan";
import { parseRunArgs } from "../workloads/run/runConfig";
import type { Sample } from "../workloads/experiment/samples";
import { rawText, TINY_SAMPLES } from "./fixtures";
import { stageReps } from "../analysis/contract/runDirContract";
import { generateReport } from "../analysis/report/report";

let workDir: string;
let worker: LocalWorker;
let client: WorkerClient;
const ok = (r: WorkerResult) => {
  if (!r.ok) throw new Error(r.error);
  return r;
};
/** A run's raw file's samples, stored plain or (once the run ended) compressed. */
const samplesOf = (dir: string, file: string): Sample[] =>
  rawText(dir, file)
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Sample);

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "ab-cf-"));
  worker = await startLocalWorker({ workDir });
  client = new WorkerClient(worker.url, worker.token, 20_000);
});

afterAll(async () => {
  await client?.close();
  await worker?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe("the Worker", () => {
  it("listens on loopback; /noop needs no token", async () => {
    expect(worker.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await request(`${worker.url}/noop`);
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe("ok");
  });

  it("answers 401 without or with a wrong token and never touches the DO", async () => {
    const name = `guarded-${Date.now()}`;
    for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: `Bearer ${worker.token}x` }]) {
      const res = await request(`${worker.url}/do/write?name=${name}`, { method: "POST", headers });
      expect(res.statusCode).toBe(401);
      await res.body.text();
    }
    // first request this DO ever served, and no row was written
    expect(ok(await client.call("read", { name }, 1)).reply).toMatchObject({ cold: true, value: null });
  });

  it("each route: ping, read, write, seed, scan; by name, by id and by unique id; Worker-timed ms", async () => {
    const name = `routes-${Date.now()}`;
    const first = ok(await client.call("ping", { name }));
    expect(first.reply.cold).toBe(true);
    expect(Number.isInteger(first.ms)).toBe(true); // local Date.now() steps in whole ms
    expect(first.clientMs).toBeGreaterThan(0);
    expect(ok(await client.call("write", { id: first.id })).reply.cold).toBe(false);
    expect(ok(await client.call("read", { name }, 1)).reply.value).toBe(128);
    ok(await client.call("seed", { name }, 1000));
    expect(ok(await client.call("scan", { name })).reply.value).toEqual({ rows: 1000, bytes: 128_000 });
    const u1 = ok(await client.call("ping", { unique: true }));
    const u2 = ok(await client.call("ping", { unique: true }));
    expect(u1.reply.cold && u2.reply.cold).toBe(true);
    expect(u1.id).not.toBe(u2.id);
    const bad = await client.call("ping", { id: "not-an-id" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/HTTP 400/);
  });

  it("an idle DO is evicted and its next call is a fresh instance that keeps its rows", async () => {
    const name = `evict-${Date.now()}`;
    ok(await client.call("write", { name }));
    expect(ok(await client.call("ping", { name })).reply.cold).toBe(false);
    await new Promise((r) => setTimeout(r, 12_000));
    const woke = ok(await client.call("read", { name }, 1));
    expect(woke.reply).toMatchObject({ cold: true, value: 128 });
  }, 60_000);
});

describe("value sizes and alarms on a real DO", () => {
  it("writes a value of the size named, made in the DO, up to Cloudflare's documented 2 MB, and refuses an outsized one in one line", async () => {
    const name = `payload-${Date.now()}`;
    ok(await client.call("write", { name }, 2_000_000));
    expect(ok(await client.call("read", { name }, 1)).reply.value).toBe(2_000_000);
    const big = await client.call("write", { name }, 9 * 1_048_576);
    expect(big.ok).toBe(false);
    if (!big.ok)
      expect(big.error).toMatch(/^HTTP 502: .*a write's value size must be a whole number of bytes from 1 to 8388608, got 9437184/);
  });

  it("an alarm set on a live DO fires on it; one set by setAlarmSleep starts a fresh instance, and says so", async () => {
    const awake = `alarm-awake-${Date.now()}`;
    const asleep = `alarm-asleep-${Date.now()}`;
    ok(await client.call("ping", { name: awake }));
    ok(await client.call("ping", { name: asleep }));
    const due = ok(await client.call("setAlarm", { name: awake }, 200)).reply.value as number;
    expect(ok(await client.call("setAlarmSleep", { name: asleep }, 200)).reply.value).toBe("asleep");
    await new Promise((r) => setTimeout(r, 1500));
    const live = ok(await client.call("alarmResult", { name: awake })).reply.value as { due: number; fired: number; cold: boolean };
    expect(live).toMatchObject({ due, cold: false });
    expect(live.fired).toBeGreaterThanOrEqual(due);
    const woke = ok(await client.call("alarmResult", { name: asleep })).reply.value as { due: number; fired: number; cold: boolean };
    expect(woke.cold).toBe(true);
    expect(woke.fired).toBeGreaterThanOrEqual(woke.due);
  });
});

describe("a reset (the settle before a group)", () => {
  it("drops live DOs at once: their files close, their next call is a fresh instance, their rows stay; it needs the token", async () => {
    const openFiles = () => readdirSync(`/proc/${worker.process.pid}/fd`).length;
    const before = openFiles();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(ok(await client.call("write", { name: `reset-${Date.now()}-${i}` })).id);
    const live = openFiles();
    expect(live - before).toBeGreaterThanOrEqual(40); // each live SQLite DO holds files open
    for (const id of ids) expect(await client.reset(id)).toEqual({ ok: true });
    expect(openFiles()).toBeLessThanOrEqual(before + 2);
    for (const id of ids) expect(ok(await client.call("read", { id }, 1)).reply).toMatchObject({ cold: true, value: 128 });
    const res = await request(`${worker.url}/reset?id=${ids[0]}`, { method: "POST" });
    expect(res.statusCode).toBe(401);
    await res.body.text();
    expect(ok(await client.call("ping", { id: ids[0] })).reply.cold).toBe(false);
    expect(await client.reset("not-an-id")).toMatchObject({ ok: false, error: expect.stringMatching(/^HTTP 400/) });
  });
});

describe("persistence", () => {
  it("rows survive a workerd restart on the same data directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ab-cf-persist-"));
    const a = await startLocalWorker({ workDir: dir, token: "t".repeat(32) });
    const ca = new WorkerClient(a.url, a.token, 20_000);
    ok(await ca.call("write", { name: "kept" }));
    await ca.close();
    await a.stop();
    const b = await startLocalWorker({ workDir: dir, token: "t".repeat(32) });
    const cb = new WorkerClient(b.url, b.token, 20_000);
    expect(ok(await cb.call("read", { name: "kept" }, 1)).reply).toMatchObject({ cold: true, value: 128 });
    await cb.close();
    await b.stop();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("the Cloudflare driver stages (the stage plan through measureRuntimes)", () => {
  let run: RunDir;
  const failures: string[] = [];
  beforeAll(async () => {
    run = new RunDir(mkdtempSync(join(tmpdir(), "ab-cfrun-")), "local", "test", {});
    const cfg = parseRunArgs(["--preset", "quick", "--samples", TINY_SAMPLES, "--side", "cloudflare"]);
    await measureRuntimes(
      cfg,
      run,
      createProgress(process.stdout, true),
      failures,
      { cloudflare: { url: worker.url, token: worker.token, versions: worker.versions, startedBy: "e2e test" } },
      suiteTasks(["cloudflare"], cfg.groups),
    );
    run.finish(failures.length ? "failed" : "complete");
  }, 180_000);

  it("completes every group, the wake-once series included", () => {
    expect(failures).toEqual([]);
    for (const m of ["sqlite.read", "seqwrite"]) expect(run.manifest.stages[`cloudflare.${m}`].notes?.wokenOnce, m).toBe(true);
  });

  it("writes every Cloudflare metric of the contract with both clocks", () => {
    // The quick preset's groups (the scaling group is off in quick; workloads/sides/floor/floor.e2e.test.ts runs it).
    const expected = defaultGroups("quick").flatMap((g) => metricsOf(CLOUDFLARE_PROFILE, g));
    expect(Object.keys(run.manifest.stages).sort()).toEqual(expected.map((m) => `cloudflare.${m}`).sort());
    for (const m of expected) {
      const st = run.manifest.stages[`cloudflare.${m}`];
      const samples = samplesOf(run.dir, st.file);
      expect(samples.length, m).toBe(st.attempts);
      expect(st.errors, m).toBe(0);
      for (const s of samples) {
        expect(s.ok, m).toBe(true);
        expect(typeof s.clientMs, m).toBe("number");
        // Local workerd has no real data center: Miniflare's placeholder colo is not recorded.
        expect(s.colo, m).toBeUndefined();
        if (m.startsWith("open.")) {
          // Open model: both clocks are the client's, ms from the intended send, clientMs from the actual one.
          expect(s.ms, m).toBeGreaterThanOrEqual(s.clientMs!);
          continue;
        }
        if (m === "baseline.noop") {
          // No DO call: both figures are the client's own round trip.
          expect(s.ms, m).toBe(s.clientMs);
        } else {
          // The Worker's Date.now() steps in whole ms, and the client's round trip contains the Worker's.
          expect(Number.isInteger(s.ms), m).toBe(true);
          expect(s.clientMs!, m).toBeGreaterThanOrEqual(s.ms - 1);
        }
      }
    }
  });

  it("counts the SQLite rows each DO call read and wrote, as its own cursors did: what a DO's storage is billed by", () => {
    const rowsOf = (metric: string) =>
      samplesOf(run.dir, run.manifest.stages[`cloudflare.${metric}`].file).map((s) => [s.rowsRead, s.rowsWritten]);
    // A warm ping runs no SQL; a point read reads one row; a durable write writes one (the table has only its primary key); a scan reads the 1,000 seeded rows.
    for (const r of rowsOf("warm.ping")) expect(r).toEqual([0, 0]);
    for (const r of rowsOf("sqlite.read")) expect(r).toEqual([1, 0]);
    for (const r of rowsOf("sqlite.write")) expect(r).toEqual([0, 1]);
    for (const r of rowsOf("sqlite.scan")) expect(r).toEqual([1000, 0]);
    // A call that reaches no DO counts nothing.
    for (const r of rowsOf("baseline.noop")) expect(r).toEqual([undefined, undefined]);
    // The summary carries the mean per operation.
    const rows = summarizeRun(run.dir, run.manifest).rows;
    expect(rows.find((r) => r.metric === "sqlite.scan")!.rowsPerOp).toEqual({
      read: 1000,
      written: 0,
      n: run.manifest.stages["cloudflare.sqlite.scan"].attempts,
    });
  });

  it("creates, wakes and bursts are proven cold by the DO; warm rows keep their (false) cold flag", () => {
    for (const [metric, st] of Object.entries(run.manifest.stages)) {
      const samples = samplesOf(run.dir, st.file);
      if (/\.(create|wake|burst|open)\./.test(`.${metric.split(".").slice(1).join(".")}`)) {
        expect(
          samples.every((s) => s.cold === true),
          metric,
        ).toBe(true);
      } else {
        expect(
          samples.every((s) => s.cold === false),
          metric,
        ).toBe(true);
      }
    }
    expect(run.manifest.stages["cloudflare.wake.read"].notes?.idleAtLeastMs).toBe(12_000);
  });
});

describe("wrangler", () => {
  it("`wrangler deploy --dry-run` bundles the same Worker with the DO bindings the stack uploads", async () => {
    const { spawnSync } = await import("node:child_process");
    const out = mkdtempSync(join(tmpdir(), "ab-wrangler-"));
    const root = join(__dirname, "..");
    const r = spawnSync(
      join(root, "node_modules/.bin/wrangler"),
      ["deploy", "--dry-run", "--outdir", out, "-c", "workloads/sides/cloudflare/wrangler.jsonc"],
      {
        cwd: root,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
      },
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
    // The bindings the stack uploads (upload.ts), as wrangler reads them from wrangler.jsonc.
    for (const b of WORKER_UPLOAD.bindings.filter((x) => x.type === "durable_object_namespace"))
      expect(r.stdout).toMatch(new RegExp(`env\\.${b.name} \\(${b.className}\\)\\s+Durable Object`));
    expect(readFileSync(join(out, "index.js"), "utf8")).toMatch(/(class BenchObject|BenchObject = class) extends DurableObject/);
    rmSync(out, { recursive: true, force: true });
  });
});

describe("a machine limit met on real workerd (the stage plan driven directly; npm start refuses such a limit up front)", () => {
  it("is named while the run runs, kept in the stage record, and listed by the report as a local artifact", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ab-cf-limit-"));
    const tiny = await startLocalWorker({ workDir: join(dir, "worker"), openFileLimit: 48 });
    const notes: string[] = [];
    const progress = { ...createProgress(process.stdout, true), note: (t: string) => void notes.push(t) };
    const run = new RunDir(join(dir, "results"), "local", "quick", {});
    const failures: string[] = [];
    try {
      const cfg = parseRunArgs(["--preset", "quick", "--side", "cloudflare", "--groups", "create"]);
      await measureRuntimes(
        cfg,
        run,
        progress,
        failures,
        {
          cloudflare: {
            url: tiny.url,
            token: tiny.token,
            versions: tiny.versions,
            startedBy: "e2e test",
            logFile: tiny.logFile,
            limits: tiny.limits,
            processes: [tiny.process],
          },
        },
        suiteTasks(["cloudflare"], cfg.groups),
      );
    } finally {
      await tiny.stop();
    }
    run.finish(failures.length ? "failed" : "complete", failures.join("\n") || undefined);
    expect(notes.join("\n")).toMatch(
      /cloudflare create\.\w+: failures from a limit of this machine, not the runtime's behaviour: open files \(\d+ workerd log lines\)/,
    );
    const limited = Object.values(run.manifest.stages)
      .flatMap(stageReps)
      .filter((part) => part.notes?.machineLimit);
    expect(limited.length).toBeGreaterThan(0);
    for (const part of limited) expect(part.errors).toBeGreaterThan(0);
    // the live-DO limit the open files allow is in the manifest: 0 here
    expect((run.manifest.settings.cloudflare as { limits: unknown }).limits).toEqual({ openFiles: 48, liveDos: 0 });
    await generateReport(run.dir);
    const report = readFileSync(join(run.dir, "report", "results.md"), "utf8");
    expect(report).toMatch(
      /A local artifact, not either runtime's behaviour: these stages failed on a limit of the machine the run was on/,
    );
    expect(report).toMatch(/cloudflare create\.\w+: \d+ of \d+ failed; open files \(\d+ workerd log lines\)/);
    expect(report).toContain("⚠");
  }, 120_000);
});
