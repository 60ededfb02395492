/**
 * What every actor answers and what the store actor runs: the operations, the
 * two actor classes and the SQL of each operation, declared once. The stage
 * plan sends them; the Rivet app, the Worker's Durable Object class and the
 * floor server answer them (the Worker bundle inlines this file).
 */
import { WORKLOAD } from "./catalog";

/** The operations of a benchmark actor; `sleep` (setup, never a sample) is not one of them. */
export const OPS = ["ping", "read", "write", "scan", "seed"] as const;
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
} as const;

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
