/**
 * The floor: what the benchmark's operations cost with no actor system. One
 * plain Node http server, one process, 127.0.0.1 only, in front of one SQLite
 * file per key (better-sqlite3, WAL, synchronous=FULL: a write is answered
 * after its commit is fsynced). It speaks the project's own actor protocol
 * (../actorProtocol.ts), measured on the driver's own client:
 *   POST /actor/<op>     {"key", "actor": "plain"|"store", "args"}: opens (creates) the key's file
 *   POST /actor/<op>     {"id", "args"}: the actor a reply named
 *   GET  /floor/state    {"actors": files, "awake": open files}
 * An "actor" is its open database handle: created by the first request for a
 * key, put to sleep by closing the handle (the `sleep` op, or idle past the
 * sleep timeout), woken by reopening the file. The first request an open
 * handle serves reports cold: true.
 *   node dist/workloads/sides/floor/server.js <port> <dataDir> <idleCloseMs> [<plant>]
 * `plant` (none by default; "write=500" or "*=500", ../plantSpec.ts) is spun in
 * the actions it names before their reply is sent: a planted slowdown a
 * comparison of runs must catch (../plant.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createHash } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { WORKLOAD } from "../../../analysis/contract/catalog";
import { alarmDelay, alarmState, ROW_VALUE, rowValue, SQL, type ActorClass } from "../../../analysis/contract/operations";
import { FLOOR_PRAGMAS } from "./pragmas";
import type { ActorReply } from "../actorReply";
import { actorAnswer, readActorCall } from "../actorProtocol";
import { spinUs } from "../plant";
import { plantUsFor, readPlant, type Plant } from "../plantSpec";

interface Actor {
  id: string;
  actor: ActorClass;
  file: string;
  db: Database.Database | null;
  served: number;
  lastUsed: number;
}

export const floorId = (key: string) => `f${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;

export class FloorStore {
  private readonly byId = new Map<string, Actor>();
  private awake = 0;
  constructor(readonly dataDir: string) {}

  /** The actor for a key, created (its file opened for the first time) when new. */
  byKey(key: string, actor: ActorClass): Actor {
    const id = floorId(key);
    let a = this.byId.get(id);
    if (!a) {
      a = { id, actor, file: join(this.dataDir, `${id}.sqlite`), db: null, served: 0, lastUsed: Date.now() };
      this.byId.set(id, a);
    }
    return a;
  }
  get(id: string): Actor | undefined {
    return this.byId.get(id);
  }
  /** Opens a sleeping actor's file: a create the first time, a wake after. */
  open(a: Actor): Database.Database {
    if (a.db) return a.db;
    const db = new Database(a.file);
    for (const p of FLOOR_PRAGMAS) db.pragma(p);
    if (a.actor === "store") db.exec(SQL.schema);
    a.db = db;
    a.served = 0;
    this.awake += 1;
    return db;
  }
  close(a: Actor): boolean {
    if (!a.db) return false;
    a.db.close();
    a.db = null;
    this.awake -= 1;
    return true;
  }
  /** Closes every handle idle longer than `ms` (as an actor runtime sleeps idle actors). */
  closeIdle(ms: number, now = Date.now()): number {
    let n = 0;
    for (const a of this.byId.values()) if (a.db && now - a.lastUsed > ms && this.close(a)) n += 1;
    return n;
  }
  state(): { actors: number; awake: number } {
    return { actors: this.byId.size, awake: this.awake };
  }
  closeAll(): void {
    for (const a of this.byId.values()) this.close(a);
  }
}

/** The floor's alarm: a timer in the server process; when it fires it opens the actor's file if it was closed (a wake) and records the firing. */
function fireAlarm(store: FloorStore, a: Actor): void {
  const fired = Date.now();
  const db = store.open(a);
  const cold = a.served === 0;
  a.served += 1;
  db.exec(SQL.alarmSchema);
  db.prepare(SQL.alarmFired).run(fired, cold ? 1 : 0);
}

/** setAlarm and setAlarmSleep: the due time recorded, the timer set; setAlarmSleep then closes the file (the actor sleeps). */
function setAlarm(store: FloorStore, a: Actor, db: Database.Database, delay: unknown, sleep: boolean): number {
  const ms = alarmDelay(delay);
  const due = Date.now() + ms;
  db.exec(SQL.alarmSchema);
  db.prepare(SQL.alarmSet).run(due);
  setTimeout(() => fireAlarm(store, a), ms);
  if (sleep) setImmediate(() => store.close(a));
  return due;
}

/** Runs one op on an actor; throws on an op the actor does not have. */
export function runOp(store: FloorStore, a: Actor, op: string, args: unknown[]): ActorReply {
  const t0 = performance.now();
  if (op === "sleep") {
    const closed = store.close(a);
    return { cold: false, actorMs: performance.now() - t0, sqlMs: null, value: closed ? "closed" : "asleep already" };
  }
  const db = store.open(a);
  const cold = a.served === 0;
  a.served += 1;
  a.lastUsed = Date.now();
  if (op === "ping") return { cold, actorMs: performance.now() - t0, sqlMs: null, value: null };
  if (a.actor !== "store") throw new Error(`the plain actor has no op "${op}"`);
  const s0 = performance.now();
  let value: unknown = null;
  if (op === "read") {
    const row = db.prepare(SQL.read).get(Number(args[0])) as { v: string } | undefined;
    value = row ? String(row.v).length : null;
  } else if (op === "write") {
    db.prepare(SQL.write).run(rowValue(args[0]));
  } else if (op === "scan") {
    const rows = db.prepare(SQL.scan).all(WORKLOAD.scanRows) as Array<{ v: string }>;
    let bytes = 0;
    for (const r of rows) bytes += String(r.v).length;
    value = { rows: rows.length, bytes };
  } else if (op === "setAlarm" || op === "setAlarmSleep") {
    value = setAlarm(store, a, db, args[0], op === "setAlarmSleep");
  } else if (op === "alarmResult") {
    db.exec(SQL.alarmSchema);
    value = alarmState(db.prepare(SQL.alarmGet).get() as { due: number; fired: number | null; cold: number | null } | undefined);
  } else if (op === "seed") {
    const count = Number(args[0]);
    db.transaction(() => {
      const { n } = db.prepare(SQL.count).get() as { n: number };
      const ins = db.prepare(SQL.write);
      for (let i = n; i < count; i++) ins.run(ROW_VALUE);
    })();
  } else {
    throw new Error(`unknown op "${op}"`);
  }
  const sqlMs = performance.now() - s0;
  return { cold, actorMs: performance.now() - t0, sqlMs, value };
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Answers one request; the body has already been read. The plant is spun in the actions it names before their reply (a planted change). */
export function handle(store: FloorStore, req: IncomingMessage, body: string, res: ServerResponse, plant: Plant = {}): void {
  if (req.method === "GET" && req.url === "/floor/state") {
    reply(res, 200, JSON.stringify(store.state()));
    return;
  }
  const call = readActorCall(req.method, req.url, body);
  if (!call.ok) {
    reply(res, call.status, JSON.stringify({ error: call.error }));
    return;
  }
  const a = "id" in call.ref ? store.get(call.ref.id) : store.byKey(call.ref.key, call.ref.actor);
  if (!a) {
    reply(res, 404, JSON.stringify({ error: `no actor ${"id" in call.ref ? call.ref.id : ""}` }));
    return;
  }
  let status = 200;
  let text: string;
  try {
    text = actorAnswer(a.id, runOp(store, a, call.op, call.args));
  } catch (err) {
    status = 500;
    text = JSON.stringify({ error: (err as Error).message });
  }
  spinUs(plantUsFor(plant, call.op));
  reply(res, status, text);
}

if (require.main === module) {
  const [port, dataDir, idle] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4])];
  if (!Number.isInteger(port) || port <= 0 || !dataDir || !(idle > 0))
    throw new Error("usage: server.js <port> <dataDir> <idleCloseMs> [<plant>]");
  const delay = readPlant(process.argv[5]);
  const store = new FloorStore(dataDir);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(store, req, Buffer.concat(chunks).toString(), res, delay));
  });
  server.keepAliveTimeout = 120_000;
  setInterval(() => store.closeIdle(idle), Math.min(idle, 1_000)).unref();
  const stop = () => {
    server.close();
    store.closeAll();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  server.listen(port, "127.0.0.1", () => console.log(`floor server listening on 127.0.0.1:${port}, data in ${dataDir}`));
}
