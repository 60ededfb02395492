/**
 * The stage plan against both real adapters, over fake transports that behave
 * like the runtimes (an actor is a fresh instance after a sleep or an
 * eviction): both sides get the same calls, counts, preparation and failure
 * rules; only the side-only stages differ (the floor, a third adapter, has none).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunDir } from "./runDir";
import { createProgress } from "./progress";
import { groupShape, LAST_GROUPS, OVERLAPPING_GROUPS, runGroup } from "./stagePlan";
import { censusFor, trackActors } from "./stageKit";
import { prepareActors } from "./prepare";
import type { ActorRef, GroupStart, PlanContext, SideAdapter } from "./adapter";
import { CpuLock, runOverlapped } from "../host/cpuLock";
import { StageSetupError } from "./measure";
import { rivetAdapter } from "../sides/rivet/adapter";
import { cloudflareAdapter } from "../sides/cloudflare/adapter";
import { floorAdapter } from "../sides/floor/adapter";
import {
  ALARM,
  catalogEntry,
  GROUPS as ALL_GROUPS,
  isColdMetric,
  metricsOf,
  PAYLOAD_LIMIT_SIZES,
  PRESETS,
  type SampleCounts,
  type Side,
  WORKLOAD,
} from "../../analysis/contract/catalog";
import { capacityCurves } from "../../analysis/stats/capacity";
import { kneeOf } from "../../analysis/contract/capacity";
import { stageSamples } from "../../analysis/contract/runDirContract";
import type { GatewayClient, Target } from "../sides/rivet/gateway";
import type { ActorProtocolClient } from "../sides/actorProtocol";
import { LEGACY_BOOK } from "../../analysis/contract/sideProfile";
import type { DoOp, DoTarget, WorkerClient } from "../sides/cloudflare/workerClient";

const PREFIX = "run";
/** The idle ladder of every test context: two steps, the shorter nested in the longer. */
const LADDER = [10_000, 30_000];
/** Every group but capacity and the ceiling, whose steps last as long as the clock says: their search has its own test below, against a runtime that saturates. */
const GROUPS = ALL_GROUPS.filter((g) => g !== "capacity" && g !== "ceiling");
/** What the alarms group holds the lock for: each delay, then the bound past it. */
const ALARM_HOLDS = ALARM.delaysMs.map((d) => d + ALARM.boundMs);
const counts: SampleCounts = {
  ...PRESETS.quick,
  createPing: 3,
  createRead: 2,
  createWrite: 2,
  wake: 4,
  warm: 5,
  sqliteRead: 3,
  sqliteWrite: 3,
  sqliteScan: 2,
  burstAttempts: 4,
  seqWrite: 3,
  openSeconds: 1,
  scaleCreate: 2,
  scaleWake: 2,
  scaleBurst: 3,
  idleWake: 2,
};

/** A runtime's actors: an actor asleep (or evicted) answers its next call from a fresh instance. */
class FakeRuntime {
  actors = new Map<string, { served: number; asleep: boolean; reset?: boolean }>();
  /** Actors a reset dropped (the DO's release), in order; and those a call then found dropped by a reset rather than asleep. */
  resets: string[] = [];
  wokenFromReset: string[] = [];
  /** What each call did, keys without the run's prefix: "<op> <key|id|unique> [name]". */
  log: string[] = [];
  failKeys = new Set<string>();
  failText = "DO call failed";
  /** Actors told to sleep that never report asleep. */
  neverSleeps = new Set<string>();
  evicts = true;
  serve(id: string, op: string, via: string) {
    this.log.push(`${op} ${via}`);
    const a = this.actors.get(id) ?? { served: 0, asleep: false };
    if (a.reset) this.wokenFromReset.push(id);
    if (a.asleep) Object.assign(a, { served: 0, asleep: false, reset: false });
    this.actors.set(id, a);
    const cold = a.served === 0;
    a.served += 1;
    return cold;
  }
  /** Alarms set, by actor: whether its instance was let go right after (setAlarmSleep). */
  alarms = new Map<string, boolean>();
  /** What an alarm operation answers: the due time for a set (a setAlarmSleep lets the instance go); for alarmResult, an alarm fired 1 ms late, on a fresh instance where it had to wake one. */
  alarmValue(id: string, op: string): unknown {
    if (op === "setAlarm" || op === "setAlarmSleep") {
      this.alarms.set(id, op === "setAlarmSleep");
      if (op === "setAlarmSleep") this.actors.get(id)!.asleep = true;
      return 100;
    }
    return op === "alarmResult" ? { due: 100, fired: 101, cold: this.alarms.get(id) === true } : null;
  }
  evictAll() {
    // An instance a reset dropped stays dropped by it: the eviction finds nothing live.
    if (this.evicts) for (const a of this.actors.values()) a.asleep = true;
  }
  reset(id: string) {
    this.resets.push(id);
    Object.assign(this.actors.get(id)!, { asleep: true, reset: true });
  }
}

const short = (key: string) => key.replace(/^run-[0-9a-z]+-/, "").replace(/^run-/, "");

function fakeGateway(rt: FakeRuntime): GatewayClient {
  return {
    async call(t: Target, action: string) {
      if (t.kind === "key" && rt.failKeys.has(short(t.key))) return { ok: false, ms: 1, error: "HTTP 504: route_resolve_query_timeout" };
      const id = t.kind === "key" ? `a-${short(t.key)}` : t.actorId;
      if (action === "sleep") {
        if (!rt.neverSleeps.has(id)) rt.actors.get(id)!.asleep = true;
        return { ok: true, ms: 1, actorId: id, reply: { cold: false, actorMs: 0.1, sqlMs: null, value: null } };
      }
      const cold = rt.serve(id, action, t.kind === "key" ? `key ${short(t.key)}` : "id");
      const value = rt.alarmValue(id, action);
      return { ok: true, ms: 1, actorId: id, reply: { cold, actorMs: 0.1, sqlMs: action === "ping" ? null : 0.05, value } };
    },
    async actors(ids: string[]) {
      return ids.map((id) => ({ actor_id: id, sleep_ts: rt.actors.get(id)?.asleep ? 1 : null, destroy_ts: null }));
    },
  } as unknown as GatewayClient;
}

/** The floor's client over the same fake runtime: the actor protocol's calls, by key or id. */
function fakeActorServer(rt: FakeRuntime): ActorProtocolClient {
  const gateway = fakeGateway(rt);
  const asTarget = (ref: ActorRef): Target =>
    "id" in ref ? { kind: "id", actorId: ref.id } : { kind: "key", actor: ref.actor, key: ref.key };
  return {
    call: (ref: ActorRef, op: string) => gateway.call(asTarget(ref), op),
    async outcome(ref: ActorRef, op: string) {
      const r = await gateway.call(asTarget(ref), op);
      return r.ok
        ? {
            ok: true,
            ms: r.ms,
            reply: { cold: r.reply.cold, actorMs: r.reply.actorMs, sqlMs: r.reply.sqlMs, value: r.reply.value },
            actorId: r.actorId,
          }
        : r;
    },
  } as unknown as ActorProtocolClient;
}

function fakeWorker(rt: FakeRuntime): WorkerClient {
  let unique = 0;
  return {
    async call(op: DoOp, t: DoTarget) {
      if ("name" in t && rt.failKeys.has(short(t.name))) return { ok: false, ms: 1, clientMs: 1, error: `HTTP 502: ${rt.failText}` };
      const id = "name" in t ? `a-${short(t.name)}` : "id" in t ? t.id : `u-${unique++}`;
      const cold = rt.serve(id, op, "name" in t ? `key ${short(t.name)}` : "id" in t ? "id" : "unique");
      return { ok: true, ms: 1, clientMs: 2, id, reply: { cold, actorMs: null, sqlMs: null, value: rt.alarmValue(id, op) } };
    },
    async noop() {
      return { ok: true, ms: 1, clientMs: 1, reply: { cold: false, actorMs: null, sqlMs: null } };
    },
    async reset(id: string) {
      rt.reset(id);
      return { ok: true };
    },
  } as unknown as WorkerClient;
}

interface Side$ {
  rt: FakeRuntime;
  adapter: SideAdapter;
  run: RunDir;
  ctx: PlanContext;
  idles: number[];
  holds: number[];
}

function sideOf(side: Side, c = counts, maxLiveActors?: number): Side$ {
  const rt = new FakeRuntime();
  const adapter =
    side === "rivet"
      ? rivetAdapter(fakeGateway(rt), { wakeIdleMs: 10_000, sleepConfirmTimeoutMs: 1_000, actorSleepTimeoutMs: 30_000 })
      : side === "floor"
        ? floorAdapter(fakeActorServer(rt), { wakeIdleMs: 10_000, idleCloseMs: 30_000 })
        : cloudflareAdapter(fakeWorker(rt), {
            wakeIdleMs: 10_000,
            evictionMs: 10_000,
            eviction: "the fake evicts at each idle wait",
            ...(maxLiveActors !== undefined ? { maxLiveActors } : {}),
          });
  const run = new RunDir(mkdtempSync(join(tmpdir(), "ab-plan-")), "local", "test", {});
  const idles: number[] = [];
  const holds: number[] = [];
  // One fake clock for the census: the waits advance it, nothing really waits.
  let now = 1_000_000;
  const census = censusFor(adapter, () => now);
  const ctx: PlanContext = {
    adapter: trackActors(adapter, census),
    census,
    run,
    counts: c,
    keyPrefix: PREFIX,
    progress: createProgress(process.stdout, true),
    scaleLevels: [0, 100],
    idleLadder: LADDER,
    hold: async (ms) => {
      holds.push(ms);
      now += ms;
      rt.evictAll();
    },
    // The DO runtime evicts what stays idle; explicit sleep needs no eviction. No real waiting.
    idle: async (ms) => {
      idles.push(ms);
      now += ms;
      if (side === "cloudflare") rt.evictAll();
    },
  };
  return { rt, adapter, run, ctx, idles, holds };
}

const samples = (run: RunDir, side: string, metric: string) =>
  readFileSync(join(run.dir, `raw/${side}.${metric}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { ok: boolean; cold: boolean | null });

/**
 * The calls of the shared stages: the side-only ones taken out (Rivet's
 * getOrCreate calls by key, the DO's unique-id creates), and the open-model
 * stages, whose rates the catalog sets per side.
 */
function sharedCalls(side: Side, all: string[]): string[] {
  const log = all.filter((l) => !l.startsWith("ping key open."));
  if (side === "cloudflare") {
    // The DO's documented largest value: its own payload actor, warmed up, then its writes and reads.
    for (const bytes of PAYLOAD_LIMIT_SIZES) {
      const at = log.indexOf(`ping key ${bytes}`);
      if (at >= 0) log.splice(at, 1 + WORKLOAD.warmupCalls + 2 * counts.payload);
    }
    return log.filter((l) => !l.endsWith(" unique"));
  }
  let warmCreated = false;
  return log.filter((l) => {
    if (l !== "ping key warm") return true;
    const first = !warmCreated;
    warmCreated = true;
    return first;
  });
}

describe("each group's shape: what the estimate of a cloud pass is computed from", () => {
  it("is what the group does: the actors it prepares, its idle waits and every stage's samples, on every side", async () => {
    // The sides run at once (independent fake runtimes); their open-model stages take real time.
    await Promise.all(
      (["rivet", "cloudflare", "floor"] as const).map(async (side) => {
        for (const g of GROUPS) {
          const s = sideOf(side);
          const prepared: number[] = [];
          const quiet = createProgress(process.stdout, true);
          s.ctx.progress = {
            note: () => {},
            start: (stage, total, unit) => (/: preparing$/.test(stage) && prepared.push(total), quiet.start(stage, total, unit)),
          };
          await runGroup(g, s.ctx);
          const shape = groupShape(g, {
            profile: s.adapter.profile,
            counts,
            scaleLevels: [0, 100],
            wakeIdleMs: 10_000,
            idleLadder: LADDER,
          });
          const label = `${side} ${g}`;
          expect(
            prepared.reduce((a, b) => a + b, 0),
            label,
          ).toBe(shape.prepared);
          // Every stage, in any order (a side's own stages run after the shared ones).
          const byMetric = (a: { metric: string }, b: { metric: string }) => a.metric.localeCompare(b.metric);
          expect(
            Object.values(s.run.manifest.stages)
              .map((st) => ({ metric: st.metric, n: st.attempts }))
              .sort(byMetric),
            label,
          ).toEqual([...shape.stages].sort(byMetric));
          // The idle before the wakes; the scaling group's, one a level (the DO's is its settling, a hold).
          // The alarms group holds the lock while its alarms come due, on every side.
          const held =
            g === "alarms"
              ? s.holds.reduce((a, b) => a + b, 0)
              : side === "cloudflare"
                ? s.holds.filter((ms) => ms > 9_000).length * 10_000
                : s.idles.filter(() => g === "scale").reduce((a, b) => a + b, 0);
          expect(g === "scale" ? 0 : s.idles.reduce((a, b) => a + b, 0), label).toBe(shape.sharedIdleMs);
          expect(held, label).toBe(shape.heldIdleMs);
        }
      }),
    );
  });
});

describe("the state each group starts from", () => {
  it("every earlier actor is asleep when a group starts, on every side, and every stage record says what it started from", async () => {
    const sides = { rivet: sideOf("rivet"), cloudflare: sideOf("cloudflare"), floor: sideOf("floor") };
    // The sides are independent fake runtimes: each group runs on all of them at once.
    for (const g of GROUPS) await Promise.all(Object.values(sides).map((s) => runGroup(g, s.ctx)));
    for (const [side, s] of Object.entries(sides)) {
      const starts = new Map<string, GroupStart & { atStage: { existing: number; awake: number } }>();
      for (const st of Object.values(s.run.manifest.stages)) {
        const start = st.notes?.startState as (GroupStart & { atStage: { existing: number; awake: number } }) | undefined;
        expect(start, `${side} ${st.metric}`).toBeDefined();
        starts.set(st.metric, start!);
      }
      // The create group is first: nothing before it.
      expect(starts.get("create.ping")).toMatchObject({
        group: "create",
        before: { existing: 0, awake: 0 },
        atStart: { existing: 0, awake: 0 },
      });
      // The warm group comes after the create group's actors (awake then) were put to sleep.
      const warm = starts.get("warm.ping")!;
      expect(warm.group, side).toBe("warm");
      expect(warm.before.awake, side).toBeGreaterThan(0);
      expect(warm.atStart, side).toEqual({ existing: warm.before.existing, awake: 0 });
      // Bursts run last: many actors exist, none awake.
      const burst = starts.get("burst.c1")!;
      expect(burst.atStart.awake, side).toBe(0);
      expect(burst.atStart.existing, side).toBeGreaterThan(warm.atStart.existing);
      expect(burst.atStage, side).toEqual(burst.atStart);
      // Within a group the stages follow each other: the second create stage sees the first one's actors.
      expect(starts.get("create.read")!.atStage.existing, side).toBe(counts.createPing);
    }
    // Rivet and the floor confirm sleep; the DO side resets the earlier groups' DOs, and waits out idle eviction,
    // holding the CPU lock, only where the settle is a wake's idle (the scaling group's wakes).
    // The alarms group holds the lock on every side while its alarms come due.
    expect(sides.rivet.holds).toEqual(ALARM_HOLDS);
    expect(sides.floor.holds).toEqual(ALARM_HOLDS);
    expect(sides.cloudflare.rt.resets.length).toBeGreaterThan(0);
    expect(sides.cloudflare.holds.filter((ms) => !ALARM_HOLDS.includes(ms))).toHaveLength(2); // one per scaling level
    for (const ms of sides.cloudflare.holds.filter((x) => !ALARM_HOLDS.includes(x))) expect(ms).toBeLessThanOrEqual(10_000);
  });
});

describe("start states with groups overlapping (a wake group idles while the next groups run)", () => {
  it("each stage records its own group's start, not the group that ran during its idle", async () => {
    const s = sideOf("rivet");
    const lock = new CpuLock(async () => undefined);
    const ctx: PlanContext = { ...s.ctx, idle: (ms) => lock.idle(ms) };
    const order: string[] = [];
    await runOverlapped(
      GROUPS,
      async (g) => {
        order.push(`start ${g}`);
        await runGroup(g, ctx);
        order.push(`end ${g}`);
      },
      lock,
      OVERLAPPING_GROUPS,
      LAST_GROUPS,
    );
    // The overlap happened: the warm group started before the wake group ended.
    expect(order.indexOf("start warm")).toBeLessThan(order.indexOf("end wake"));
    for (const st of Object.values(s.run.manifest.stages)) {
      expect((st.notes?.startState as GroupStart | undefined)?.group, st.metric).toBe(catalogEntry(st.metric).group);
    }
  });
});

describe("the DO side's settle (release: its reset) with groups overlapping", () => {
  it("resets what earlier groups left live, never a set left idle for its wake, and waits only for that set", async () => {
    const s = sideOf("cloudflare");
    const lock = new CpuLock(async () => undefined);
    // The wake's idle lets the next groups run first; the eviction that ends it comes after them.
    let pending: Array<() => void> = [];
    const ctx: PlanContext = {
      ...s.ctx,
      idle: (ms) =>
        lock.idle(ms, async () => {
          await new Promise<void>((r) => pending.push(r));
          s.rt.evictAll();
        }),
    };
    const run = runOverlapped(
      GROUPS.filter((g) => g !== "scale" && g !== "idle"),
      (g) => runGroup(g, ctx),
      lock,
      OVERLAPPING_GROUPS,
      LAST_GROUPS,
    );
    const release = setInterval(() => {
      for (const r of pending.splice(0)) r();
    }, 5);
    await run.finally(() => clearInterval(release));
    pending = [];
    expect(s.rt.resets.length).toBeGreaterThan(0);
    // A wake set's DOs were woken from their eviction, never from a reset.
    expect(s.rt.wokenFromReset.filter((id) => id.startsWith("a-wake."))).toEqual([]);
    const wake = samples(s.run, "cloudflare", "wake.ping");
    expect(wake.length).toBe(counts.wake);
    expect(wake.every((x) => x.ok && x.cold)).toBe(true);
    // The warm group waited (holding the lock) only for the wake set, still idle when it started.
    const warm = s.run.manifest.stages["cloudflare.warm.ping"].notes?.startState as GroupStart;
    expect(warm.atStart.awake).toBe(0);
  });
});

describe("the DO side's settle by waiting (--cf-settle wait)", () => {
  it("resets nothing and waits out the eviction before a group instead", async () => {
    const rt = new FakeRuntime();
    const adapter = cloudflareAdapter(fakeWorker(rt), { wakeIdleMs: 10_000, evictionMs: 10_000, eviction: "fake", settle: "wait" });
    expect(adapter.release).toBeUndefined();
    expect(adapter.properties.settle).toMatch(/^the group waits, holding the CPU lock/);
    const s = sideOf("cloudflare");
    const ctx: PlanContext = { ...s.ctx, adapter: trackActors(adapter, s.ctx.census!) };
    for (const g of ["create", "warm"] as const) await runGroup(g, ctx);
    expect(rt.resets).toEqual([]);
    expect(s.holds).toEqual([10_000]);
  });
});

describe("the stage plan on both sides", () => {
  it("makes the same calls, in the same order, with the same counts, for every group", async () => {
    const sides = { rivet: sideOf("rivet"), cloudflare: sideOf("cloudflare"), floor: sideOf("floor") };
    // The sides are independent fake runtimes: each group runs on all of them at once.
    for (const g of GROUPS) await Promise.all(Object.values(sides).map((s) => runGroup(g, s.ctx)));
    expect(sharedCalls("rivet", sides.rivet.rt.log)).toEqual(sharedCalls("cloudflare", sides.cloudflare.rt.log));
    // The floor has no side-only stage: its calls are the shared ones as they are.
    expect(sides.floor.rt.log.filter((l) => !l.startsWith("ping key open."))).toEqual(sharedCalls("rivet", sides.rivet.rt.log));
    expect(sides.floor.idles).toEqual(sides.rivet.idles);
    expect(sides.rivet.rt.log.length).toBeGreaterThan(50);
    for (const side of ["rivet", "cloudflare"] as const) {
      const opens = sides[side].rt.log.filter((l) => l.startsWith("ping key open.")).length;
      expect(opens, side).toBe(
        metricsOf(LEGACY_BOOK.get(side), "burst")
          .filter((m) => m.startsWith("open."))
          .reduce((n, m) => n + Number(m.slice("open.r".length)), 0),
      );
    }
    // The same idle waits before wakes (the wake group's, the sqlite and seqwrite series', the idle ladder's
    // 10 s step nested in its 30 s one, and one per scaling level) on both sides; on the DO side a scaling
    // level's idle is its settling wait (a hold).
    expect(sides.rivet.idles).toEqual([10_000, 10_000, 10_000, 10_000, 20_000, 10_000, 10_000]);
    expect(sides.cloudflare.idles).toEqual([10_000, 10_000, 10_000, 10_000, 20_000]);
    expect(sides.cloudflare.holds.slice(-2).every((ms) => ms > 9_000)).toBe(true);
    for (const side of ["rivet", "cloudflare"] as const) {
      const { run } = sides[side];
      for (const g of GROUPS) {
        // Every level the run takes (the scaling group runs 0 and 100 here).
        for (const metric of metricsOf(LEGACY_BOOK.get(side), g).filter((id) =>
          [undefined, 0, 100].includes(catalogEntry(id).scale?.level),
        )) {
          const xs = samples(run, side, metric);
          expect(
            xs.every((x) => x.ok),
            `${side} ${metric}`,
          ).toBe(true);
          // Creates, wakes and bursts (the scaling group's too) are fresh instances; nothing else restarted, and the flag is kept either way.
          // An idle step's flag is what the runtime did: this fake DO runtime evicts at every idle wait, the fake Engine never by idle.
          const cold = catalogEntry(metric).kind === "idle" ? side === "cloudflare" : isColdMetric(metric);
          expect(
            xs.every((x) => x.cold === cold),
            `${side} ${metric}`,
          ).toBe(true);
        }
      }
      expect(run.manifest.stages[`${side}.wake.read`].attempts).toBe(4);
      expect(run.manifest.stages[`${side}.sqlite.read`].notes).toMatchObject({ wokenOnce: true, seededRows: 1000 });
      expect(run.manifest.stages[`${side}.seqwrite`].notes).toMatchObject({ wokenOnce: true });
    }
    // Side-only stages stay with their side.
    expect(Object.keys(sides.rivet.run.manifest.stages)).toContain("rivet.warm.getOrCreate");
    expect(Object.keys(sides.rivet.run.manifest.stages)).not.toContain("rivet.create.unique");
    expect(Object.keys(sides.cloudflare.run.manifest.stages)).toEqual(
      expect.arrayContaining(["cloudflare.create.unique", "cloudflare.baseline.noop"]),
    );
    expect(Object.keys(sides.cloudflare.run.manifest.stages)).not.toContain("cloudflare.warm.getOrCreate");
  });

  it("the plain actor's wake is prepared with a ping, the store actors' with a write, on both sides", async () => {
    for (const side of ["rivet", "cloudflare"] as const) {
      const s = sideOf(side);
      await runGroup("wake", s.ctx);
      expect(s.rt.log.filter((l) => l.startsWith("write key wake.read-") || l.startsWith("write key wake.write-"))).toHaveLength(8);
      expect(s.rt.log.filter((l) => l.startsWith("ping key wake.ping-"))).toHaveLength(4);
    }
  });

  it("leaves out an actor whose preparation failed, the same way on both sides, and says so", async () => {
    for (const side of ["rivet", "cloudflare"] as const) {
      const s = sideOf(side);
      s.rt.failKeys.add("wake.read-2");
      await runGroup("wake", s.ctx);
      const st = s.run.manifest.stages[`${side}.wake.read`];
      expect(st.attempts, side).toBe(3);
      expect(st.notes, side).toMatchObject({ preparationFailures: 1, preparationErrors: [expect.stringMatching(/^HTTP 50/)] });
      expect(s.run.manifest.stages[`${side}.wake.ping`].attempts, side).toBe(4);
    }
  });

  it("leaves out an actor that could not be put to sleep, counted with the preparation failures, instead of failing the group", async () => {
    const s = sideOf("rivet");
    const sleep = s.adapter.sleep.bind(s.adapter);
    let dropped = "";
    s.adapter = Object.assign(s.adapter, {
      sleep: async (ids: string[]) => {
        if (ids.length === 1) return sleep(ids);
        dropped = ids[0];
        const out = await sleep(ids.slice(1));
        return { ...out, asleep: out.asleep, failures: [`sleep of actor ${dropped}: timeout after 30000 ms`] };
      },
    });
    await runGroup("wake", s.ctx);
    const st = s.run.manifest.stages["rivet.wake.ping"];
    expect(st.attempts).toBe(3);
    expect(st.notes).toMatchObject({ preparationFailures: 1, preparationErrors: [`sleep of actor ${dropped}: timeout after 30000 ms`] });
  });

  it("leaves out an actor the Engine never reports asleep, counted, once the confirmation time is up", async () => {
    const s = sideOf("rivet");
    s.rt.neverSleeps.add("a-wake.write-1");
    await runGroup("wake", s.ctx);
    const st = s.run.manifest.stages["rivet.wake.write"];
    expect(st.attempts).toBe(3);
    expect(st.notes).toMatchObject({
      preparationFailures: 1,
      preparationErrors: ["actor a-wake.write-1 not reported asleep by the Engine within 1000 ms"],
    });
    expect(s.run.manifest.stages["rivet.wake.ping"].attempts).toBe(4);
    // The next group does not wait the confirmation time for it again: it starts at once, that actor counted awake.
    const t0 = Date.now();
    await runGroup("warm", s.ctx);
    expect(Date.now() - t0).toBeLessThan(900);
    const warm = s.run.manifest.stages["rivet.warm.ping"].notes!.startState as GroupStart;
    expect(warm.atStart.awake).toBe(1);
    expect(warm.sleepFailures).toBe(0);
  });

  it("fails the group when most preparations fail, on both sides", async () => {
    for (const side of ["rivet", "cloudflare"] as const) {
      const s = sideOf(side);
      for (const i of [0, 1, 2]) s.rt.failKeys.add(`wake.ping-${i}`);
      await expect(runGroup("wake", s.ctx), side).rejects.toThrow(StageSetupError);
      await expect(runGroup("wake", sideOf(side).ctx)).resolves.toBeUndefined();
    }
  });

  it("the idle ladder: each step's notes say whether its wakes must be cold, from the side's own idle sleep, and how long each actor really idled", async () => {
    for (const side of ["rivet", "cloudflare", "floor"] as const) {
      const s = sideOf(side);
      await runGroup("idle", s.ctx);
      const notes = (ms: number) =>
        s.run.manifest.stages[`${side}.wake.idle.${ms / 1000}s`].notes as {
          idle: { coldRequired: boolean; idleSleepMs: number };
          idleActualMs: { min: number; max: number };
        };
      // RivetKit's sleep timeout and the floor's idle close are 30 s here (the floor's checked every second), the DO's eviction 10 s.
      expect(notes(30_000).idle.coldRequired, side).toBe(side === "cloudflare");
      expect(notes(10_000).idle.coldRequired, side).toBe(false);
      expect(notes(30_000).idle.idleSleepMs, side).toBe({ rivet: 30_000, cloudflare: 10_000, floor: 31_000 }[side]);
      for (const ms of LADDER) expect(notes(ms).idleActualMs.min, `${side} ${ms}`).toBeGreaterThanOrEqual(ms);
      expect(s.run.manifest.stages[`${side}.wake.idle.30s`].attempts).toBe(counts.idleWake);
    }
  });

  it("the scaling curve ends, without failing the group, at the first level whose preparation collapsed; later levels are not reached", async () => {
    const s = sideOf("rivet");
    s.ctx.scaleLevels = [0, 100, 1000, 2000];
    // From the 400th filler on, every create fails: the level of 1,000 is where this runtime stops keeping up.
    for (let i = 399; i < 2000; i++) s.rt.failKeys.add(`fill-${i}`);
    await expect(runGroup("scale", s.ctx)).resolves.toBeUndefined();
    const stages = s.run.manifest.stages;
    expect(Object.keys(stages).filter((k) => k.includes(".e2000"))).toEqual([]);
    const end = stages["rivet.scale.wake.e1000"].notes as { curveEnd: string; fillers: number; preparations: Array<{ ended: string }> };
    expect(end.curveEnd).toMatch(/^fillers 100 to 1000: collapsed: 601 of 900 creates failed/);
    expect(end.fillers).toBe(399);
    expect(end.preparations[0].ended).toMatch(/^collapsed:/);
    expect(stages["rivet.scale.burst.e1000"].notes?.curveEnd).toBe(end.curveEnd);
    expect(stages["rivet.scale.wake.e100"].notes?.curveEnd).toBeUndefined();
  });

  it("the scaling curve ends at the level whose stage its deadline stopped, named from the stage's own outcome", async () => {
    const s = sideOf("floor", { ...counts, scaleWake: 10 });
    s.ctx.scaleLevels = [0, 100];
    s.ctx.deadlineMs = 50;
    const call = s.ctx.adapter.call;
    // 30 ms a call: the ten wake-set actors, 8 at a time, are made before the deadline; ten wakes one at a time are not.
    s.ctx.adapter = { ...s.ctx.adapter, call: async (ref, op, arg) => (await new Promise((r) => setTimeout(r, 30)), call(ref, op, arg)) };
    await expect(runGroup("scale", s.ctx)).resolves.toBeUndefined();
    const stages = s.run.manifest.stages;
    expect(Object.keys(stages).filter((k) => k.includes(".e100"))).toEqual([]);
    const wake = stages["floor.scale.wake.e0"];
    expect(wake.attempts).toBeLessThan(10);
    expect(stages["floor.scale.create.e0"].notes?.curveEnd).toBe(`scale.wake.e0: deadline: ${wake.attempts} of 10 calls done in 0.1 s`);
  });

  it("a preparation past the stage deadline asks for no more actors, says so, and the stage measures those made", async () => {
    const s = sideOf("floor");
    s.ctx.deadlineMs = 50;
    const call = s.ctx.adapter.call;
    // Each create takes 10 ms: 8 at a time, about 40 of the 200 fit in 50 ms.
    s.ctx.adapter = { ...s.ctx.adapter, call: async (ref, op, arg) => (await new Promise((r) => setTimeout(r, 10)), call(ref, op, arg)) };
    const made = await prepareActors(s.ctx, "fillers", 200, (i) => ({ key: `fill-${i}`, actor: "plain" }), "ping");
    expect(made.ids.length).toBeGreaterThan(0);
    expect(made.ids.length).toBeLessThan(200);
    expect(made.answeredAt).toHaveLength(made.ids.length);
    expect(made.ended).toBe(`deadline: ${made.ids.length} of 200 creates done in 0.1 s`);
  });

  it("paces the scaling fillers under the adapter's live-actor limit, never more awake at once, and says so in the next stage's notes", async () => {
    const s = sideOf("cloudflare", counts, 20);
    s.ctx.scaleLevels = [0, 100];
    let most = 0;
    const call = s.ctx.adapter.call;
    s.ctx.adapter = {
      ...s.ctx.adapter,
      call: async (ref, op, arg) => {
        const r = await call(ref, op, arg);
        most = Math.max(most, s.ctx.census!.count().awake);
        return r;
      },
    };
    await runGroup("scale", s.ctx);
    expect(most).toBeLessThanOrEqual(20);
    // 100 fillers, 20 per 10 s eviction window: at least 40 s of waiting on the census's clock
    const notes = s.run.manifest.stages["cloudflare.scale.wake.e100"].notes as {
      preparations: Array<{ what: string; maxLiveActors: number; pacedWaitMs: number }>;
    };
    expect(notes.preparations[0]).toMatchObject({ what: "scale fillers 0 to 100", maxLiveActors: 20 });
    expect(notes.preparations[0].pacedWaitMs).toBeGreaterThanOrEqual(40_000);
    expect(s.holds.filter((ms) => ms === 250).length * 250).toBeGreaterThanOrEqual(40_000);
    expect(s.adapter.properties.preparationPace).toContain("at most 20 DOs live at once");
    // Unpaced without a limit: the same group waits only for its settles.
    const free = sideOf("cloudflare");
    free.ctx.scaleLevels = [0, 100];
    await runGroup("scale", free.ctx);
    expect(free.holds.filter((ms) => ms === 250)).toEqual([]);
  });

  it("names a machine limit behind failed preparations in the group's failure", async () => {
    const s = sideOf("cloudflare");
    s.rt.failText = "internal error; EMFILE: too many open files";
    for (const i of [0, 1, 2]) s.rt.failKeys.add(`wake.ping-${i}`);
    await expect(runGroup("wake", s.ctx)).rejects.toThrow(
      /3 of 4 creates failed.*from a limit of this machine, not the runtime's behaviour: open files \(3 failed samples say so\)/,
    );
  });

  it("refuses a series whose actor did not really sleep before it, on both sides", async () => {
    for (const side of ["rivet", "cloudflare"] as const) {
      const s = sideOf(side);
      if (side === "cloudflare") s.rt.evicts = false;
      // A sleep that claims success but puts nothing to sleep: the wake before the series must catch it.
      else s.adapter = Object.assign(s.adapter, { sleep: async (ids: string[]) => ({ asleep: ids, failures: [] }) });
      await expect(runGroup("sqlite", s.ctx), side).rejects.toThrow(/sqlite: the wake before the series was not a fresh instance/);
    }
  });

  it("a setup call that hits a gateway error is tried once more and the retry is noted on the next stage; a second failure fails the group", async () => {
    for (const side of ["rivet", "cloudflare"] as const) {
      const s = sideOf(side);
      const call = s.adapter.call.bind(s.adapter);
      let failed = 0;
      s.adapter = Object.assign(s.adapter, {
        call: async (...a: Parameters<SideAdapter["call"]>) =>
          failed++ === 0 ? { ok: false as const, ms: 15_000, error: "HTTP 504: route_resolve_query_timeout" } : call(...a),
      });
      await runGroup("warm", s.ctx);
      expect(s.run.manifest.stages[`${side}.warm.ping`].notes?.setupRetries, side).toEqual([
        "warm actor create: HTTP 504: route_resolve_query_timeout",
      ]);
      expect(samples(s.run, side, "warm.ping").every((x) => x.ok)).toBe(true);
      const t = sideOf(side);
      t.adapter = Object.assign(t.adapter, {
        call: async () => ({ ok: false as const, ms: 15_000, error: "HTTP 504: route_resolve_query_timeout" }),
      });
      await expect(runGroup("warm", t.ctx), side).rejects.toThrow(/warm actor create failed: HTTP 504/);
    }
  });

  it("a restart inside a warm series is kept on its sample, not hidden", async () => {
    const s = sideOf("cloudflare");
    const call = s.adapter.call.bind(s.adapter);
    let n = 0;
    s.adapter = Object.assign(s.adapter, {
      call: async (...a: Parameters<SideAdapter["call"]>) => {
        if (a[1] === "ping" && "id" in a[0] && ++n === 8) s.rt.evictAll();
        return call(...a);
      },
    });
    await runGroup("warm", s.ctx);
    expect(samples(s.run, "cloudflare", "warm.ping").filter((x) => x.cold === true)).toHaveLength(1);
  });
});

describe("the capacity group", () => {
  /** One server that serves a call every 1000 / rate ms, in arrival order: it holds any rate up to `perSecond`, and queues without end past it. */
  function saturating(perSecond: number) {
    let freeAt = 0;
    return async () => {
      const now = performance.now();
      const start = Math.max(now, freeAt);
      freeAt = start + 1000 / perSecond;
      await new Promise((r) => setTimeout(r, freeAt - now));
    };
  }

  it("finds each operation's knee on a runtime that holds a known rate, keeps every step, and the report reads the same knees from the raw samples", async () => {
    // Half-second steps and a 50 ms objective: a step past 62 a second queues past it within the step. 62, not a rate
    // the search tries (warm and write try 50, 100, 71, 60; creates 57 and 68), so no step sits on the knee itself.
    const s = sideOf("floor", { ...counts, capacitySeconds: 0.5 });
    s.ctx.capacityObjective = { p99Ms: 50, maxFailureShare: 0.001 };
    const serve = saturating(62);
    const inner = s.ctx.adapter;
    s.ctx.adapter = { ...inner, call: async (ref, op, arg) => (await serve(), inner.call(ref, op, arg)) };
    const notes: string[] = [];
    s.ctx.progress = { ...s.ctx.progress, note: (n: string) => notes.push(n) };
    await runGroup("capacity", s.ctx);
    const stages = Object.values(s.run.manifest.stages);
    const curves = capacityCurves(stages, (st) => stageSamples(s.run.dir, s.run.manifest, st), ["floor"]);
    expect(curves.map((c) => c.op)).toEqual(["warm", "create", "write"]);
    for (const c of curves) {
      const [rep] = c.reps;
      // The knee: a rate held at or below 62 a second, one missed above it, within the search's resolution.
      expect(rep.held, c.op).not.toBeNull();
      expect(rep.held!, c.op).toBeLessThanOrEqual(62);
      expect(rep.missed!, c.op).toBeGreaterThan(62);
      expect(rep.missed! / rep.held!, c.op).toBeLessThanOrEqual(1.2);
      // The driver said the same of each step as the report reads from the samples.
      for (const st of c.steps)
        expect(notes, `${c.op} ${st.ratePerSecond}`).toContain(
          `floor capacity.${c.op}.r${st.ratePerSecond}: ${st.held ? "held" : `missed (${st.why})`}`,
        );
      expect(kneeOf(c.steps.map((x) => ({ rate: x.ratePerSecond, held: x.held })))).toEqual({ held: rep.held, missed: rep.missed });
    }
    // A missed step stopped sending once it had missed for certain, and says so; each step kept its CPU figures and objective.
    const stopped = stages.filter((st) => st.notes?.stoppedEarly);
    expect(stopped.length).toBeGreaterThan(0);
    for (const st of stopped) expect(st.attempts, st.metric).toBeLessThan((st.notes!.capacity as { planned: number }).planned);
    for (const st of stages)
      expect(st.notes, st.metric).toMatchObject({
        capacity: { objective: { p99Ms: 50, maxFailureShare: 0.001 } },
        cpuMs: expect.any(Object),
      });
    // Creates are new actors, warm calls and writes go to the pool.
    expect(s.rt.log.filter((l) => l.startsWith("ping key capacity.create.")).length).toBe(
      stages.filter((st) => st.metric.startsWith("capacity.create.")).reduce((t, st) => t + st.attempts, 0),
    );
    expect(s.rt.log.filter((l) => l === "write id").length).toBe(
      stages.filter((st) => st.metric.startsWith("capacity.write.")).reduce((t, st) => t + st.attempts, 0),
    );
  }, 60_000);
});
