/**
 * What every actor answers and what the store actor runs: the operations, the
 * two actor classes and the SQL of each operation, declared once. The stage
 * plan sends them; the Rivet app, the Worker's Durable Object class and the
 * floor server answer them (the Worker bundle inlines this file).
 */
import { WORKLOAD } from "./catalog";

/**
 * The operations of a benchmark actor; `sleep` (setup, never a sample) is not one of them.
 * The alarm operations are the store actor's: setAlarm schedules the runtime's own alarm
 * `arg` ms ahead and records when it is due; setAlarmSleep does the same and then lets the
 * instance go at once (the alarm must wake a fresh one); alarmResult says when it fired.
 */
export const OPS = ["ping", "read", "write", "scan", "seed", "setAlarm", "setAlarmSleep", "alarmResult"] as const;
export type Op = (typeof OPS)[number];

/** plain: no storage; store: one SQLite table of WORKLOAD.rowBytes rows. */
export const ACTOR_CLASSES = ["plain", "store"] as const;
export type ActorClass = (typeof ACTOR_CLASSES)[number];

/** The store actor's SQL, the same statements on every side. */
export const SQL = {
  /** Run when the store actor's database is opened. */
  schema: "CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, v TEXT NOT NULL)",
  /** read: a point read by primary key (one argument: the id). */
  read: "SELECT v FROM rows WHERE id = ?",
  /** write, and each row seed adds: one row of ROW_VALUE (a write may name another size: rowValue). */
  write: "INSERT INTO rows (v) VALUES (?)",
  /** scan: up to WORKLOAD.scanRows rows in id order, every value materialized. */
  scan: "SELECT id, v FROM rows ORDER BY id LIMIT ?",
  /** seed: how many rows there are, before filling up to the count asked for. */
  count: "SELECT count(*) AS n FROM rows",
  /** The alarm operations' one row: when the alarm was due, when its handler began and whether that instance was fresh (run by them only, so no other stage pays for it). */
  alarmSchema: "CREATE TABLE IF NOT EXISTS alarm (k INTEGER PRIMARY KEY, due INTEGER NOT NULL, fired INTEGER, cold INTEGER)",
  alarmSet: "INSERT OR REPLACE INTO alarm (k, due, fired, cold) VALUES (1, ?, NULL, NULL)",
  alarmFired: "UPDATE alarm SET fired = ?, cold = ? WHERE k = 1",
  alarmGet: "SELECT due, fired, cold FROM alarm WHERE k = 1",
} as const;

/** Delays an alarm may be set for, ms: what the alarms group asks, and the bounds an actor enforces. */
export const ALARM_DELAY_BOUNDS = { min: 1, max: 3_600_000 } as const;

/** The delay an alarm operation asks for; throws a one-line error outside ALARM_DELAY_BOUNDS. */
export function alarmDelay(ms: unknown): number {
  if (typeof ms !== "number" || !Number.isInteger(ms) || ms < ALARM_DELAY_BOUNDS.min || ms > ALARM_DELAY_BOUNDS.max)
    throw new Error(
      `an alarm's delay must be a whole number of ms from ${ALARM_DELAY_BOUNDS.min} to ${ALARM_DELAY_BOUNDS.max}, got ${JSON.stringify(ms)}`,
    );
  return ms;
}

/** What alarmResult answers: due and fired on the actor's own clock (Date.now(), ms), fired null until the handler ran. */
export interface AlarmState {
  due: number;
  fired: number | null;
  /** Whether the handler ran on a fresh instance (its first work): the proof an alarm woke a sleeping actor. */
  cold: boolean | null;
}

/** A row of SQL.alarmGet as an AlarmState, or null where there is none. */
export function alarmState(row: { due: unknown; fired: unknown; cold: unknown } | undefined): AlarmState | null {
  if (!row) return null;
  return {
    due: Number(row.due),
    fired: row.fired === null || row.fired === undefined ? null : Number(row.fired),
    cold: row.cold === null || row.cold === undefined ? null : Number(row.cold) === 1,
  };
}

/** Every written row's value: WORKLOAD.rowBytes bytes. */
export const ROW_VALUE = "x".repeat(WORKLOAD.rowBytes);

/** The largest value a write may ask for: past every documented limit tried (the payload group's), so a runaway size is refused by the actor, not allocated. */
export const MAX_VALUE_BYTES = 8 * 1_048_576;

/**
 * The value a write inserts, made inside the actor so the request stays small:
 * ROW_VALUE, or `bytes` bytes where the write names a size (the payload group).
 * Throws a one-line error on a size that is not a whole number from 1 to MAX_VALUE_BYTES.
 */
export function rowValue(bytes?: unknown): string {
  if (bytes === undefined || bytes === null) return ROW_VALUE;
  if (typeof bytes !== "number" || !Number.isInteger(bytes) || bytes < 1 || bytes > MAX_VALUE_BYTES)
    throw new Error(`a write's value size must be a whole number of bytes from 1 to ${MAX_VALUE_BYTES}, got ${JSON.stringify(bytes)}`);
  return bytes === WORKLOAD.rowBytes ? ROW_VALUE : "x".repeat(bytes);
}
