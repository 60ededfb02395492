/** The floor side of the stage plan: the same driver client, against a plain Node server over SQLite files. */
import type { AdapterProperties, SideAdapter, SleepOutcome } from "../../experiment/adapter";
import { PREPARE_PACE } from "../../experiment/prepare";
import { THROUGHPUT_TEXT } from "../../../analysis/contract/catalog";
import { FLOOR_PROFILE } from "./profile";
import type { Progress } from "../../experiment/progress";
import { sendSleepCalls } from "../sleepCalls";
import type { ActorProtocolClient } from "../actorProtocol";
import { FLOOR_PRAGMAS } from "./pragmas";

const FLOOR_PROPERTIES: Omit<AdapterProperties, "wakeIdle" | "openModelRates" | "preparationPace" | "idleSleep"> = {
  alarm: "a setTimeout in the server process that reopens the file if it is closed; asleep: the file is closed right after",
  clock:
    "the driver's round trip to the floor server (process.hrtime.bigint(), from the request's write on its connection to the full reply), the same HTTP/1.1 client as every side's",
  create: "the first request for a new key opens (creates) that key's SQLite file; that request is the sample",
  sleep:
    "a sleep call closes the key's database handle before it answers (nothing to confirm); a handle idle past the actor sleep timeout is closed too",
  settle: "the sleep call on every handle earlier groups left open",
  plainActor: "a SQLite file with no table, opened and closed like the store's",
  storeSchema: "CREATE TABLE IF NOT EXISTS each time the file is opened",
  inActor: "handler interval (actorMs) and SQL interval around the better-sqlite3 call (sqlMs)",
  sideOnlyStages: "none",
  throughput: THROUGHPUT_TEXT[FLOOR_PROFILE.throughputMethod].text,
};

/** What the floor is, for the manifest: the physical limit both runtimes are read against. */
export const FLOOR_SETTINGS = {
  server:
    "one Node http server process on 127.0.0.1, HTTP/1.1 keep-alive, the project's own actor protocol (workloads/sides/actorProtocol.ts)",
  storage: `better-sqlite3, one file per key, PRAGMA ${FLOOR_PRAGMAS.join(", ")} (a write answers after its commit is fsynced)`,
  what: "no actor system: no routing, no placement, no runner protocol, no replication; the cost of HTTP plus SQLite on this machine",
};

/** Closes each actor's handle; one that answers "asleep already" was closed by idle. */
export async function closeHandles(
  client: ActorProtocolClient,
  ids: string[],
  progress?: Progress,
  deadlineMs?: number,
): Promise<SleepOutcome> {
  const closedByIdle = (values: Map<string, unknown>) => [...values.values()].filter((v) => v === "asleep already").length;
  const { told, failures, values } = await sendSleepCalls(
    (id) => client.call({ id }, "sleep"),
    ids,
    ids.length > 1 ? progress : undefined,
    "floor: closing the actors' files",
    (t) =>
      `floor: ${t.told.size} of ${ids.length} actors' files closed (${closedByIdle(t.values)} closed by idle already), ${t.failures.length} failed`,
    deadlineMs,
  );
  return { asleep: ids.filter((id) => told.has(id)), failures, alreadyAsleep: closedByIdle(values) };
}

/** How often the floor server closes idle handles, ms (server.ts: at most every second). */
const FLOOR_IDLE_CHECK_MS = 1_000;

export function floorAdapter(client: ActorProtocolClient, o: { wakeIdleMs: number; idleCloseMs: number }): SideAdapter {
  return {
    side: FLOOR_PROFILE.id,
    profile: FLOOR_PROFILE,
    properties: {
      ...FLOOR_PROPERTIES,
      preparationPace: PREPARE_PACE,
      wakeIdle: `${o.wakeIdleMs} ms after every file is closed`,
      openModelRates: `${FLOOR_PROFILE.openRates.join(", ")} creates per second`,
      idleSleep: `the server closes a handle idle longer than ${o.idleCloseMs} ms, checking every ${FLOOR_IDLE_CHECK_MS} ms`,
    },
    wakeIdleMs: o.wakeIdleMs,
    idleSleepMs: o.idleCloseMs + FLOOR_IDLE_CHECK_MS,
    call: (ref, op, arg) => client.outcome(ref, op, arg),
    origin: client.origin,
    sleep: (ids, progress, deadlineMs) => closeHandles(client, ids, progress, deadlineMs),
  };
}
