import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawText } from "../../../test/fixtures";
import { FLOOR_PROFILE } from "./profile";
import Database from "better-sqlite3";
import { floorId, FloorStore, runOp } from "./server";
import { startLocalFloor, type LocalFloor } from "./localFloor";
import { closeHandles } from "./adapter";
import { ActorProtocolClient } from "../actorProtocol";
import { stopAll } from "../../host/processes";
import { parseRunArgs } from "../../run/runConfig";
import { runLocalSuite } from "../../run/run";
import { parseAbArgs, runAb } from "../../run/ab";
import { catalogEntry, metricsOf, GROUPS, WORKLOAD } from "../../../analysis/contract/catalog";
import { verifyRunDir } from "../../../analysis/contract/verify";
import { stageReps } from "../../../analysis/contract/runDirContract";
import type { CompareRow } from "../../../analysis/stats/compareRows";
import { HOP_METRICS } from "../../../analysis/contract/hops";
import { generateReport } from "../../../analysis/report/report";

describe("the floor's store (real SQLite files)", () => {
  const dir = mkdtempSync(join(tmpdir(), "floor-store-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a key's first op creates its file (cold), later ops are warm, a closed file reopens cold with its rows", () => {
    const store = new FloorStore(dir);
    const a = store.byKey("k1", "store");
    expect(existsSync(a.file)).toBe(false);
    expect(runOp(store, a, "write", []).cold).toBe(true);
    expect(existsSync(a.file)).toBe(true);
    expect(runOp(store, a, "write", []).cold).toBe(false);
    expect(store.state()).toEqual({ actors: 1, awake: 1 });
    expect(runOp(store, a, "sleep", []).value).toBe("closed");
    expect(runOp(store, a, "sleep", []).value).toBe("asleep already");
    expect(store.state()).toEqual({ actors: 1, awake: 0 });
    const woke = runOp(store, a, "scan", []);
    expect(woke.cold).toBe(true);
    expect(woke.value).toEqual({ rows: 2, bytes: 2 * WORKLOAD.rowBytes });
    expect(woke.sqlMs).toBeGreaterThanOrEqual(0);
    store.closeAll();
  });

  it("a write of a named size stores exactly that many bytes made in the server; an outsized one is refused in one line", () => {
    const store = new FloorStore(dir);
    const a = store.byKey("k-payload", "store");
    runOp(store, a, "write", [1_048_576]);
    expect(runOp(store, a, "read", [1]).value).toBe(1_048_576);
    expect(() => runOp(store, a, "write", [9 * 1_048_576])).toThrow(
      /^a write's value size must be a whole number of bytes from 1 to 8388608, got 9437184$/,
    );
    store.closeAll();
  });

  it("an alarm fires on its timer: on the live handle (warm), or on a closed one it reopens (cold), its lateness on the record", async () => {
    const store = new FloorStore(dir);
    const awake = store.byKey("k-alarm-awake", "store");
    const asleep = store.byKey("k-alarm-asleep", "store");
    const due = runOp(store, awake, "setAlarm", [50]).value as number;
    runOp(store, asleep, "setAlarmSleep", [50]);
    await new Promise((r) => setTimeout(r, 20));
    expect(store.state().awake).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    const live = runOp(store, awake, "alarmResult", []).value as { due: number; fired: number; cold: boolean };
    expect(live.due).toBe(due);
    expect(live.fired - live.due).toBeGreaterThanOrEqual(0);
    expect(live.cold).toBe(false);
    expect(runOp(store, asleep, "alarmResult", []).value).toMatchObject({ cold: true, fired: expect.any(Number) });
    expect(() => runOp(store, awake, "setAlarm", [0])).toThrow(/^an alarm's delay must be a whole number of ms from 1 to 3600000, got 0$/);
    store.closeAll();
  });

  it("every file is opened with WAL and synchronous=FULL: a write answers after its commit is fsynced", () => {
    const store = new FloorStore(dir);
    const a = store.byKey("k2", "store");
    runOp(store, a, "seed", [10]);
    const db = store.open(a);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("synchronous", { simple: true })).toBe(2); // FULL
    store.closeAll();
    // The rows are in the file, read by another connection.
    const other = new Database(a.file, { readonly: true });
    expect((other.prepare("SELECT count(*) AS n FROM rows").get() as { n: number }).n).toBe(10);
    other.close();
  });

  it("seed fills up to the count, read finds a seeded row, the plain actor refuses SQL ops by name", () => {
    const store = new FloorStore(dir);
    const a = store.byKey("k3", "store");
    runOp(store, a, "seed", [5]);
    runOp(store, a, "seed", [5]);
    expect(runOp(store, a, "scan", []).value).toEqual({ rows: 5, bytes: 5 * WORKLOAD.rowBytes });
    expect(runOp(store, a, "read", [3]).value).toBe(WORKLOAD.rowBytes);
    expect(runOp(store, a, "read", [99]).value).toBeNull();
    const p = store.byKey("k4", "plain");
    expect(runOp(store, p, "ping", []).cold).toBe(true);
    expect(() => runOp(store, p, "write", [])).toThrow(/the plain actor has no op "write"/);
    expect(() => runOp(store, a, "drop", [])).toThrow(/unknown op "drop"/);
    store.closeAll();
  });

  it("handles idle past the timeout are closed, busy ones are not", () => {
    const store = new FloorStore(dir);
    const idle = store.byKey("k5", "plain");
    const busy = store.byKey("k6", "plain");
    runOp(store, idle, "ping", []);
    runOp(store, busy, "ping", []);
    idle.lastUsed -= 60_000;
    expect(store.closeIdle(30_000)).toBe(1);
    expect(store.state()).toEqual({ actors: 2, awake: 1 });
    expect(runOp(store, idle, "ping", []).cold).toBe(true);
    store.closeAll();
  });
});

describe("the floor server over HTTP, on its own actor protocol and the driver's client", () => {
  let floor: LocalFloor;
  let client: ActorProtocolClient;
  const work = mkdtempSync(join(tmpdir(), "floor-http-"));
  beforeAll(async () => {
    floor = await startLocalFloor({ workDir: work, idleCloseMs: 60_000 });
    client = new ActorProtocolClient(floor.url, 10_000);
  });
  afterAll(async () => {
    await client.close();
    await stopAll();
    rmSync(work, { recursive: true, force: true });
  });

  it("listens on 127.0.0.1 only", () => {
    expect(floor.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("by key creates (cold), by id calls the same actor, sleep closes it and the next call wakes it with its rows", async () => {
    const created = await client.call({ actor: "store", key: "http-1" }, "write");
    expect(created.ok && created.reply.cold).toBe(true);
    if (!created.ok) return;
    expect(created.actorId).toBe(floorId("http-1"));
    const again = await client.call({ id: created.actorId }, "write");
    expect(again.ok && again.reply.cold).toBe(false);
    const slept = await closeHandles(client, [created.actorId]);
    expect(slept).toEqual({ asleep: [created.actorId], failures: [], alreadyAsleep: 0 });
    const state = JSON.parse(await (await fetch(`${floor.url}/floor/state`)).text()) as { actors: number; awake: number };
    expect(state.awake).toBe(0);
    const woke = await client.call({ id: created.actorId }, "scan");
    expect(woke.ok && woke.reply.cold).toBe(true);
    expect(woke.ok && woke.reply.value).toEqual({ rows: 2, bytes: 2 * WORKLOAD.rowBytes });
  });

  it("an unknown id is a 404 failure, a bad op a 500 that names it; neither is retried", async () => {
    const unknown = await client.call({ id: "f000" }, "ping");
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error).toMatch(/^HTTP 404: .*no actor f000/);
    // A malformed call is refused with its reason, and the server keeps serving.
    const garbled = await fetch(`${floor.url}/actor/ping`, { method: "POST", body: "{not json" });
    expect(garbled.status).toBe(400);
    expect(await garbled.text()).toMatch(/the body is not JSON/);
    const nameless = await fetch(`${floor.url}/actor/ping`, { method: "POST", body: JSON.stringify({ key: "k", actor: "table" }) });
    expect(nameless.status).toBe(400);
    expect(await nameless.text()).toMatch(/a call names an id, or a key and the actor plain or store/);
    const bad = await client.call({ actor: "plain", key: "http-2" }, "scan");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^HTTP 500: .*the plain actor has no op \\"scan\\"/);
  });
});

describe("npm start --side floor: every shared metric through the one stage plan", () => {
  it("measures every group, proves every create and wake cold, and the run verifies", async () => {
    const root = mkdtempSync(join(tmpdir(), "floor-run-"));
    // Every group but capacity and the ceiling, whose steps are as long as their search makes them (a minute and more on the floor), and the idle
    // ladder, which the CLI test runs on every side at once (test/cli.e2e.test.ts): the stage plan's
    // test runs its search against a runtime that saturates, and the committed capacity runs ran it on every real side.
    // The alarms group is left out too: its 26 s of waiting would add as much to every CI run; its operations are tested on the floor
    // above and on the two runtimes, and it runs through the stage plan in workloads/experiment/stagePlan.test.ts.
    const groups = GROUPS.filter((g) => g !== "capacity" && g !== "ceiling" && g !== "idle" && g !== "alarms");
    const cfg = {
      ...parseRunArgs([
        "--preset",
        "quick",
        "--side",
        "floor",
        "--groups",
        groups.join(","),
        "--wake-idle-ms",
        "1000",
        "--capture",
        "--results-dir",
        root,
      ]),
      quiet: true,
    };
    const out = await runLocalSuite(cfg);
    expect(out.failures).toEqual([]);
    const m = verifyRunDir(out.runDir);
    const want = groups
      .flatMap((g) => metricsOf(FLOOR_PROFILE, g))
      .filter((id) => {
        const level = catalogEntry(id).scale?.level;
        return level === undefined || cfg.scaleLevels.includes(level);
      });
    expect(Object.keys(m.stages).sort()).toEqual(want.map((id) => `floor.${id}`).sort());
    for (const r of out.rows) {
      expect(r.errors, r.metric).toBe(0);
      expect(r.notCold, r.metric).toBe(0);
    }
    expect(m.repetitions!.map((r) => r.order)).toEqual([["floor"]]);
    expect(stageReps(m.stages["floor.wake.read"])[0].notes).toMatchObject({ preparationFailures: 0 });
    expect(JSON.stringify((m.settings as { floor: unknown }).floor)).toMatch(/no actor system/);
    expect(rawText(out.runDir, "raw/floor.create.ping.jsonl").trim().split("\n")).toHaveLength(20);
    // The scaling group: the 100 level ran with the 100 fillers (and every earlier actor) existing, all asleep.
    const e100 = stageReps(m.stages["floor.scale.wake.e100"])[0].notes as {
      level: number;
      fillers: number;
      startState: { atStage: { existing: number; awake: number } };
    };
    expect(e100).toMatchObject({ level: 100, fillers: 100 });
    expect(e100.startState.atStage.awake).toBe(0);
    expect(e100.startState.atStage.existing).toBeGreaterThanOrEqual(100 + 10);
    await generateReport(out.runDir);
    expect(readdirSync(join(out.runDir, "report", "charts"))).toContain("scale.png");
    expect(readFileSync(join(out.runDir, "report", "results.md"), "utf8")).toMatch(
      /## Cost as the work grows[\s\S]*\| Floor \(Node http \+ SQLite file\) \| 100 \| [\d,]+ \|/,
    );
    // Memory per actor, from the scaling group: the server's resident set, read before and after each stage.
    const mem = JSON.parse(readFileSync(join(out.runDir, "report", "summary.json"), "utf8")).memory as Array<{
      side: string;
      processes: string[];
      sleepingActors: number;
      liveActors: number;
      sleepingKb: number | null;
      liveKb: number | null;
    }>;
    // The hop stages, captured: every call matched to its request on the wire, the server's own interval inside its part.
    const hops = JSON.parse(readFileSync(join(out.runDir, "report", "summary.json"), "utf8")).hops as Array<{
      metric: string;
      calls: number[];
      refused: string[];
      sumGap: number;
      segments: Array<{ id: string; atMedian: { mean: number } }>;
    }>;
    expect(hops.map((h) => h.metric).sort()).toEqual([...HOP_METRICS].sort());
    for (const h of hops) {
      expect({ metric: h.metric, refused: h.refused }).toEqual({ metric: h.metric, refused: [] });
      expect(h.calls, h.metric).toEqual([m.stages[`floor.${h.metric}`].attempts]);
      expect(Math.abs(h.sumGap), h.metric).toBeLessThanOrEqual(0.05);
      expect(h.segments.map((s) => s.id)).toEqual(["driver", "request", "own", "rest", "reply"]);
    }
    expect(readdirSync(join(out.runDir, "raw"))).toContain("floor.warm.ping.rep0.pcap.gz");
    expect(mem).toHaveLength(1);
    expect(mem[0]).toMatchObject({ side: "floor", processes: ["server"], liveActors: 32 });
    expect(mem[0].sleepingActors).toBe(
      e100.startState.atStage.existing - (stageReps(m.stages["floor.scale.wake.e0"])[0].notes as typeof e100).startState.atStage.existing,
    );
    expect(typeof mem[0].sleepingKb).toBe("number");
    expect(readFileSync(join(out.runDir, "report", "results.md"), "utf8")).toMatch(
      /## Memory per actor[\s\S]*\| Floor \(Node http \+ SQLite file\) \| server \| /,
    );
    rmSync(root, { recursive: true, force: true });
  }, 120_000);
});

describe("npm run ab on the floor: a planted 2 ms in writes against none, interleaved in one session, compared pair by pair", () => {
  it("calls the write row a real difference whose interval holds the planted ratio, leaves the other operations as they were, and records the order and the delay", async () => {
    const root = mkdtempSync(join(tmpdir(), "floor-ab-"));
    const cfg = parseAbArgs([
      "--side",
      "floor",
      "--groups",
      "warm,sqlite",
      "--preset",
      "quick",
      "--wake-idle-ms",
      "1000",
      "--a",
      "",
      "--b",
      "--plant-delay-us floor:write=2000",
      "--pairs",
      "4",
      "--results-dir",
      root,
      "--quiet",
    ]);
    const out = await runAb(cfg);
    expect([out.a.failures, out.b.failures]).toEqual([[], []]);
    expect(out.order.join(" ")).toBe("A B B A A B B A");
    const mb = verifyRunDir(out.b.runDir);
    expect(mb.repetitions).toHaveLength(4);
    expect(mb.config.plantDelayUs).toEqual({ floor: { write: 2000 } });
    expect(String((mb.settings!.floor as Record<string, unknown>).plantedDelay)).toMatch(/^2000 us in write planted before it replies/);
    expect(mb.settings!.ab).toMatchObject({ arm: "B", partnerRunId: verifyRunDir(out.a.runDir).runId, order: out.order });
    const json = JSON.parse(readFileSync(join(out.comparisonDir, "comparison.json"), "utf8")) as { rows: CompareRow[] };
    const p50 = json.rows.filter((r) => r.q === "p50");
    expect(p50.map((r) => r.key).sort()).toEqual(["floor.sqlite.read", "floor.sqlite.scan", "floor.sqlite.write", "floor.warm.ping"]);
    for (const r of p50) {
      expect(r.paired, r.key).toBe(true);
      if (r.key !== "floor.sqlite.write") {
        // Not planted: a floor call takes well under a millisecond, so 2 ms would be a ratio of 3 or more.
        expect(r.ratio!, r.key).toBeLessThan(1.5);
        continue;
      }
      expect(r.verdict, r.key).toBe("different");
      // 2 ms spun on top of the write's own time: B/A is (A + 2) / A, which the interval must hold.
      const truth = (r.a! + 2) / r.a!;
      expect(r.ratioCi!.lo!, r.key).toBeLessThan(truth * 1.15);
      expect(r.ratioCi!.hi!, r.key).toBeGreaterThan(truth / 1.15);
    }
    expect(readFileSync(join(out.comparisonDir, "comparison.md"), "utf8")).toMatch(
      /Paired: the two arms of one interleaved session \(A B B A A B B A\)/,
    );
    rmSync(root, { recursive: true, force: true });
  }, 300_000);
});
