import { actor, setup } from "rivetkit";
import { db } from "rivetkit/db";
import { WORKLOAD } from "../../../analysis/contract/catalog";
import { alarmDelay, alarmState, ROW_VALUE, rowValue, SQL } from "../../../analysis/contract/operations";
import type { ActorReply } from "../actorReply";
import { spinUs } from "../plant";
import { plantUsFor, readPlant } from "../plantSpec";

/** RivetKit's idle sleep timeout for both actors; the run sets it through the app's environment. */
const sleepTimeout = Number(process.env.BENCH_ACTOR_SLEEP_TIMEOUT_MS) || 30_000;
/** A planted delay (--plant-delay-us rivet=N or rivet:write=N), none unless a run asks for one. */
const plant = readPlant(process.env.BENCH_PLANT);

/**
 * Per-instance state. createVars runs each time an instance starts (create or
 * wake), so `served` counts requests on this instance: the first request sees 0.
 */
interface InstanceVars {
  served: number;
}

function begin(vars: InstanceVars, op: string): { cold: boolean; t0: number; op: string } {
  const cold = vars.served === 0;
  vars.served += 1;
  return { cold, t0: performance.now(), op };
}

function finish(s: { cold: boolean; t0: number; op: string }, sqlMs: number | null = null, value: unknown = null): ActorReply {
  spinUs(plantUsFor(plant, s.op));
  return { cold: s.cold, actorMs: performance.now() - s.t0, sqlMs, value };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const t0 = performance.now();
  const result = await fn();
  return { ms: performance.now() - t0, result };
}

/** What scheduling an alarm needs of a store actor's context. */
interface AlarmContext {
  db: { execute: (sql: string, ...args: number[]) => Promise<unknown> };
  schedule: { after: (ms: number, action: string) => Promise<unknown> };
}

/** Records when the alarm is due (the actor's clock) and schedules alarmFire that far ahead; returns the due time. */
async function scheduleAlarm(c: AlarmContext, delayMs: number): Promise<number> {
  const due = Date.now() + alarmDelay(delayMs);
  await c.db.execute(SQL.alarmSchema);
  await c.db.execute(SQL.alarmSet, due);
  await c.schedule.after(delayMs, "alarmFire");
  return due;
}

/** Actor without storage: ping and explicit sleep. */
export const plain = actor({
  options: { sleepTimeout },
  createVars: (): InstanceVars => ({ served: 0 }),
  actions: {
    ping: (c): ActorReply => finish(begin(c.vars, "ping")),
    sleep: (c): ActorReply => {
      const s = begin(c.vars, "sleep");
      c.sleep();
      return finish(s);
    },
  },
});

/** Actor with one SQLite table of 128 B rows. */
export const store = actor({
  options: { sleepTimeout },
  createVars: (): InstanceVars => ({ served: 0 }),
  db: db({
    onMigrate: async (d) => {
      await d.execute(SQL.schema);
    },
  }),
  actions: {
    ping: (c): ActorReply => finish(begin(c.vars, "ping")),
    /** Point read by primary key; the value is materialized into a JS string. */
    read: async (c, id: number): Promise<ActorReply> => {
      const s = begin(c.vars, "read");
      const { ms, result } = await timed(() => c.db.execute<{ v: string }>(SQL.read, id));
      const v = result.length > 0 ? String(result[0].v) : null;
      return finish(s, ms, v === null ? null : v.length);
    },
    /** One autocommit INSERT of a 128 B value, or of `bytes` made here; execute resolves after the commit is durable. */
    write: async (c, bytes?: number): Promise<ActorReply> => {
      const s = begin(c.vars, "write");
      const value = rowValue(bytes);
      const { ms } = await timed(() => c.db.execute(SQL.write, value));
      return finish(s, ms);
    },
    /** Scan of up to WORKLOAD.scanRows rows, every value materialized. */
    scan: async (c): Promise<ActorReply> => {
      const s = begin(c.vars, "scan");
      const { ms, result } = await timed(() => c.db.execute<{ id: number; v: string }>(SQL.scan, WORKLOAD.scanRows));
      let bytes = 0;
      for (const r of result) bytes += String(r.v).length;
      return finish(s, ms, { rows: result.length, bytes });
    },
    /** Fill the table up to `count` rows in one transaction (not timed as a sample). */
    seed: async (c, count: number): Promise<ActorReply> => {
      const s = begin(c.vars, "seed");
      const { ms } = await timed(() =>
        c.db.transaction(async (tx) => {
          const [{ n }] = await tx.execute<{ n: number }>(SQL.count);
          for (let i = Number(n); i < count; i++) {
            await tx.execute(SQL.write, ROW_VALUE);
          }
        }),
      );
      return finish(s, ms);
    },
    sleep: (c): ActorReply => {
      const s = begin(c.vars, "sleep");
      c.sleep();
      return finish(s);
    },
    /** Records when the alarm is due and schedules alarmFire that far ahead (RivetKit's scheduled action). */
    setAlarm: async (c, delayMs: number): Promise<ActorReply> => {
      const s = begin(c.vars, "setAlarm");
      return finish(s, null, await scheduleAlarm(c, delayMs));
    },
    /** setAlarm, then sleep at once: the scheduled action has to wake a fresh instance. */
    setAlarmSleep: async (c, delayMs: number): Promise<ActorReply> => {
      const s = begin(c.vars, "setAlarmSleep");
      const due = await scheduleAlarm(c, delayMs);
      c.sleep();
      return finish(s, null, due);
    },
    /** The scheduled action: when it began, on this instance's clock, and whether the instance was fresh. */
    alarmFire: async (c): Promise<void> => {
      const fired = Date.now();
      const cold = c.vars.served === 0;
      c.vars.served += 1;
      await c.db.execute(SQL.alarmSchema);
      await c.db.execute(SQL.alarmFired, fired, cold ? 1 : 0);
    },
    alarmResult: async (c): Promise<ActorReply> => {
      const s = begin(c.vars, "alarmResult");
      await c.db.execute(SQL.alarmSchema);
      const rows = await c.db.execute<{ due: number; fired: number | null; cold: number | null }>(SQL.alarmGet);
      return finish(s, null, alarmState(rows[0]));
    },
  },
});

export const registry = setup({ use: { plain, store } });
