/**
 * One Worker and one SQLite-backed Durable Object class, the same source for
 * local workerd and for Cloudflare. The Worker times each awaited DO call with
 * Date.now() (on Cloudflare the only clock that advances, and only across I/O)
 * and returns that figure with the DO's reply.
 */
import { DurableObject } from "cloudflare:workers";
import { WORKLOAD } from "../../../../analysis/contract/catalog";
import { alarmDelay, alarmState, OPS, ROW_VALUE, rowValue, SQL, type Op } from "../../../../analysis/contract/operations";
import { durableObjectPlantMs, plantUsFor, readPlant, type Plant } from "../../plantSpec";

interface Env {
  BENCH: DurableObjectNamespace<BenchObject>;
  /** Secret binding: every route but /noop requires `Authorization: Bearer <BENCH_TOKEN>`. */
  BENCH_TOKEN?: string;
  /** A planted delay (--plant-delay-us), microseconds by operation (plantSpec.ts); the DO waits whole milliseconds of it on a timer before replying; unset: none. */
  BENCH_PLANT?: string;
}

type Answer = DoReply | Promise<DoReply>;

export interface DoReply {
  /** True on the first request this instance served: proof of a fresh start. */
  cold: boolean;
  value: unknown;
  /** SQLite rows this call read and wrote, as its cursors counted them (what Cloudflare bills). */
  rows: { read: number; written: number };
}

export class BenchObject extends DurableObject<Env> {
  /** Requests this instance has served; a new instance (create or wake after eviction) starts at 0. */
  private served = 0;
  private table = false;
  /** Rows the current call's statements read and wrote: a DO runs one call's synchronous SQL at a time. */
  private rowsRead = 0;
  private rowsWritten = 0;
  private readonly plant: Plant;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.plant = readPlant(env.BENCH_PLANT);
  }

  /**
   * The table, created on an instance's first SQL call, so a ping (the
   * "no storage" create and wake) touches no SQL, as the Rivet actor without
   * a database does not.
   */
  private get sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.table) {
      const cursor = sql.exec(SQL.schema);
      cursor.toArray();
      this.rowsRead += cursor.rowsRead;
      this.rowsWritten += cursor.rowsWritten;
      this.table = true;
    }
    return sql;
  }

  /** Runs one statement to its end and counts the rows it read and wrote. */
  private exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: SqlStorageValue[]): T[] {
    const cursor = this.sql.exec<T>(query, ...bindings);
    const rows = cursor.toArray();
    this.rowsRead += cursor.rowsRead;
    this.rowsWritten += cursor.rowsWritten;
    return rows;
  }

  private reply(op: string, value: unknown = null): Answer {
    const cold = this.served === 0;
    this.served += 1;
    const r = { cold, value, rows: { read: this.rowsRead, written: this.rowsWritten } };
    this.rowsRead = 0;
    this.rowsWritten = 0;
    const plantMs = durableObjectPlantMs(plantUsFor(this.plant, op));
    return plantMs > 0 ? new Promise((ok) => setTimeout(() => ok(r), plantMs)) : r;
  }

  ping(): Answer {
    return this.reply("ping");
  }

  /** Point read by primary key; the value is materialized as a JS string. */
  read(id: number): Answer {
    const rows = this.exec<{ v: string }>(SQL.read, id);
    return this.reply("read", rows.length > 0 ? String(rows[0].v).length : null);
  }

  /** One INSERT of a 128 B row, or of `bytes` made here. The reply is held by the output gate until the write is durable. */
  write(bytes?: number): Answer {
    this.exec(SQL.write, rowValue(bytes));
    return this.reply("write");
  }

  scan(): Answer {
    let rows = 0;
    let bytes = 0;
    for (const r of this.exec<{ id: number; v: string }>(SQL.scan, WORKLOAD.scanRows)) {
      rows += 1;
      bytes += String(r.v).length;
    }
    return this.reply("scan", { rows, bytes });
  }

  /**
   * Drops this instance at once (DurableObjectState.abort): the next call
   * gets a new one, as after an eviction. Lets a run start a group with the
   * previous groups' DOs gone without waiting out the runtime's eviction.
   */
  reset(): void {
    this.ctx.abort("reset by actor-bench before its next group");
  }

  /** Records when the alarm is due and sets the object's alarm (the Alarms API) that far ahead. */
  async setAlarm(delayMs: number): Promise<DoReply> {
    const due = Date.now() + alarmDelay(delayMs);
    this.exec(SQL.alarmSchema);
    this.exec(SQL.alarmSet, due);
    await this.ctx.storage.setAlarm(due);
    return this.reply("setAlarm", due);
  }

  /** setAlarm, then the instance goes at once (its writes made durable first): the alarm has to start a fresh one. */
  async setAlarmSleep(delayMs: number): Promise<DoReply> {
    await this.setAlarm(delayMs);
    await this.ctx.storage.sync();
    this.ctx.abort(ALARM_SLEEP);
    throw new Error("the instance did not go");
  }

  /** The alarm handler: when it began, on this instance's clock, and whether the instance was fresh (its first work). */
  async alarm(): Promise<void> {
    const fired = Date.now();
    const cold = this.served === 0;
    this.served += 1;
    this.exec(SQL.alarmSchema);
    this.exec(SQL.alarmFired, fired, cold ? 1 : 0);
  }

  alarmResult(): Answer {
    this.exec(SQL.alarmSchema);
    return this.reply("alarmResult", alarmState(this.exec<{ due: number; fired: number | null; cold: number | null }>(SQL.alarmGet)[0]));
  }

  /** Fill the table up to `count` rows in one transaction (setup, not a sample). */
  seed(count: number): Answer {
    this.ctx.storage.transactionSync(() => {
      const have = Number(this.exec<{ n: number }>(SQL.count)[0].n);
      for (let i = have; i < count; i++) this.exec(SQL.write, ROW_VALUE);
    });
    return this.reply("seed");
  }
}

/** The reason setAlarmSleep's abort gives: its caller reads it as the expected end of the call. */
const ALARM_SLEEP = "instance let go by setAlarmSleep: the alarm wakes a fresh one";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** Constant-time comparison of the presented bearer token with the configured one. */
function authorized(request: Request, token: string): boolean {
  const got = request.headers.get("authorization") ?? "";
  const want = `Bearer ${token}`;
  if (got.length !== want.length) return false;
  let diff = 0;
  for (let i = 0; i < want.length; i++) diff |= got.charCodeAt(i) ^ want.charCodeAt(i);
  return diff === 0;
}

function targetId(env: Env, url: URL): DurableObjectId | string {
  const name = url.searchParams.get("name");
  const id = url.searchParams.get("id");
  if (url.searchParams.get("unique") === "1") return env.BENCH.newUniqueId();
  if (name) return env.BENCH.idFromName(name);
  if (id) {
    try {
      return env.BENCH.idFromString(id);
    } catch {
      return "id is not a Durable Object id of this namespace";
    }
  }
  return "give ?name=<key>, ?id=<hex id> or ?unique=1";
}

/** /reset?id=<hex id>: the object drops its instance; the call ends with the abort's error, which is the expected outcome. */
async function resetObject(env: Env, url: URL): Promise<Response> {
  const id = targetId(env, url);
  if (typeof id === "string") return json(400, { error: id });
  try {
    await env.BENCH.get(id).reset();
  } catch (err) {
    return json(200, { reset: true, said: (err as Error).message });
  }
  return json(500, { error: "the object did not reset: its call returned" });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/noop") return new Response("ok");
    if (!env.BENCH_TOKEN) return json(500, { error: "BENCH_TOKEN is not configured on this Worker" });
    if (!authorized(request, env.BENCH_TOKEN)) return json(401, { error: "missing or wrong bearer token" });

    if (url.pathname === "/reset") return resetObject(env, url);
    const m = /^\/do\/([a-zA-Z]+)$/.exec(url.pathname);
    const op = m?.[1] as Op | undefined;
    if (!op || !OPS.includes(op))
      return json(404, { error: `unknown route ${url.pathname}; routes: /noop, /reset, ${OPS.map((o) => `/do/${o}`).join(", ")}` });
    const id = targetId(env, url);
    if (typeof id === "string") return json(400, { error: id });
    const argText = url.searchParams.get("arg");
    const arg = argText === null ? undefined : Number(argText);
    const stub = env.BENCH.get(id);

    const t0 = Date.now();
    let reply: DoReply;
    try {
      reply =
        op === "read" || op === "seed"
          ? await stub[op](arg ?? 0)
          : op === "write"
            ? await stub.write(arg)
            : op === "setAlarm" || op === "setAlarmSleep"
              ? await stub[op](arg ?? 0)
              : await stub[op]();
    } catch (err) {
      // setAlarmSleep ends its instance on purpose; the alarm is set and durable, so that is its answer.
      if (op === "setAlarmSleep" && (err as Error).message.includes(ALARM_SLEEP))
        return json(200, { ms: Date.now() - t0, cold: false, value: "asleep", rows: { read: 0, written: 0 }, id: id.toString() });
      return json(502, { error: `DO call failed: ${(err as Error).message}`, ms: Date.now() - t0 });
    }
    const ms = Date.now() - t0;
    // Where this Worker ran (Cloudflare's data center code); local workerd has no cf object.
    const colo = request.cf?.colo;
    return json(200, {
      ms,
      cold: reply.cold,
      value: reply.value,
      rows: reply.rows,
      id: id.toString(),
      ...(typeof colo === "string" ? { colo } : {}),
    });
  },
} satisfies ExportedHandler<Env>;
