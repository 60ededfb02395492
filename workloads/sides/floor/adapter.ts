/** The floor side of the stage plan: the same driver client, against a plain Node server over SQLite files. */
import { PREPARE_PACE, type AdapterProperties, type SideAdapter, type SleepOutcome } from "../../experiment/stagePlan";
import { OPEN_RATES, throughputText } from "../../../analysis/contract/catalog";
import type { GatewayClient } from "../rivet/gateway";
import type { Progress } from "../../experiment/progress";
import { gatewayCall, sendSleepCalls } from "../gatewayActions";
import { FLOOR_PRAGMAS } from "./pragmas";

export const FLOOR_PROPERTIES: Omit<AdapterProperties, "wakeIdle" | "openModelRates" | "preparationPace"> = {
  clock: "the driver's round trip to the floor server (process.hrtime.bigint(), from the request's write on its connection to the full reply), the same client as Rivet's",
  create: "the first request for a new key opens (creates) that key's SQLite file; that request is the sample",
  sleep: "a sleep call closes the key's database handle before it answers (nothing to confirm); a handle idle past the actor sleep timeout is closed too",
  plainActor: "a SQLite file with no table, opened and closed like the store's",
  storeSchema: "CREATE TABLE IF NOT EXISTS each time the file is opened",
  inActor: "handler interval (actorMs) and SQL interval around the better-sqlite3 call (sqlMs)",
  sideOnlyStages: "none",
  throughput: throughputText("floor"),
};

/** What the floor is, for the manifest: the physical limit both runtimes are read against. */
export const FLOOR_SETTINGS = {
  server: "one Node http server process on 127.0.0.1, HTTP/1.1 keep-alive, the Engine gateway's routes and reply shape",
  storage: `better-sqlite3, one file per key, PRAGMA ${FLOOR_PRAGMAS.join(", ")} (a write answers after its commit is fsynced)`,
  what: "no actor system: no routing, no placement, no runner protocol, no replication; the cost of HTTP plus SQLite on this machine",
};

/** Closes each actor's handle; one that answers "asleep already" was closed by idle. */
export async function closeHandles(client: GatewayClient, ids: string[], progress?: Progress): Promise<SleepOutcome> {
  const closedByIdle = (values: Map<string, unknown>) => [...values.values()].filter((v) => v === "asleep already").length;
  const { told, failures, values } = await sendSleepCalls(client, ids, ids.length > 1 ? progress : undefined, "floor: closing the actors' files", (t) =>
    `floor: ${t.told.size} of ${ids.length} actors' files closed (${closedByIdle(t.values)} closed by idle already), ${t.failures.length} failed`);
  return { asleep: ids.filter((id) => told.has(id)), failures, alreadyAsleep: closedByIdle(values) };
}

export function floorAdapter(client: GatewayClient, o: { wakeIdleMs: number }): SideAdapter {
  return {
    side: "floor",
    properties: {
      ...FLOOR_PROPERTIES,
      preparationPace: PREPARE_PACE,
      wakeIdle: `${o.wakeIdleMs} ms after every file is closed`,
      openModelRates: `${OPEN_RATES.floor.join(", ")} creates per second`,
    },
    wakeIdleMs: o.wakeIdleMs,
    call: (ref, op, arg) => gatewayCall(client, ref, op, arg),
    sleep: (ids, progress) => closeHandles(client, ids, progress),
  };
}
