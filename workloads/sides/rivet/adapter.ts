/** The Rivet side of the stage plan: the Engine gateway, driven over HTTP/1.1 (the driver's client; the Engine API with undici). */
import type { ActorRef, AdapterProperties, PlanContext, SideAdapter, SleepOutcome } from "../../experiment/adapter";
import { PREPARE_PACE } from "../../experiment/prepare";
import { measureStage } from "../../experiment/stageKit";
import { THROUGHPUT_TEXT } from "../../../analysis/contract/catalog";
import { RIVET_PROFILE } from "./profile";
import { gatewayCall, type GatewayClient } from "./gateway";
import { forEachBounded } from "../../host/bounded";
import { sendSleepCalls, SLEEP_CONCURRENCY } from "../sleepCalls";
import type { Progress } from "../../experiment/progress";

/** The Engine's GET /actors accepts at most 32 actor_ids per request. */
export const ACTORS_PER_QUERY = 32;

const RIVET_PROPERTIES: Omit<AdapterProperties, "wakeIdle" | "openModelRates" | "preparationPace" | "idleSleep"> = {
  alarm: "RivetKit's scheduled action (c.schedule.after); asleep: the action calls c.sleep() right after scheduling",
  clock:
    "the driver's round trip through the Engine gateway (process.hrtime.bigint(), from the request's write on its connection to the full reply)",
  create: "getOrCreate of a new key through the gateway; the first request is the sample",
  sleep:
    "explicit c.sleep() on each actor still awake (one idle past RivetKit's sleep timeout is asleep already), then the Engine's actor API is polled until every one reports sleep_ts",
  settle: "the sleep call on every actor earlier groups left awake, confirmed by the Engine as before a wake",
  plainActor: "an actor class with no database",
  storeSchema: "CREATE TABLE IF NOT EXISTS in the database's onMigrate, when an instance opens its database",
  inActor: "handler interval (actorMs) and SQL interval around db.execute (sqlMs)",
  sideOnlyStages: "warm.getOrCreate (the warm actor called by key instead of id)",
  throughput: THROUGHPUT_TEXT[RIVET_PROFILE.throughputMethod].text,
};

interface RivetAdapterOptions {
  /** How long slept actors stay idle after the Engine confirms them asleep. */
  wakeIdleMs: number;
  /** Upper bound on waiting for the Engine to report actors asleep. */
  sleepConfirmTimeoutMs: number;
  /** RivetKit's sleep timeout of the benchmark actors (the app's actor option). */
  actorSleepTimeoutMs: number;
  runtimeLog?: SideAdapter["runtimeLog"];
}

/** The ids among `ids` the Engine reports asleep (and not destroyed), asked 32 at a time, 8 queries at once. */
async function asleepAmong(client: GatewayClient, ids: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const batches = Array.from({ length: Math.ceil(ids.length / ACTORS_PER_QUERY) }, (_, b) =>
    ids.slice(b * ACTORS_PER_QUERY, (b + 1) * ACTORS_PER_QUERY),
  );
  await forEachBounded(batches.length, SLEEP_CONCURRENCY, async (b) => {
    for (const a of await client.actors(batches[b])) if (a.sleep_ts !== null && a.destroy_ts === null) out.add(a.actor_id);
  });
  return out;
}

/**
 * Puts the actors to sleep and waits until the Engine reports every one
 * asleep. An actor idle past RivetKit's sleep timeout is asleep already, and
 * a sleep action would wake it first, so only the awake ones are told. A
 * sleep call that fails, or an actor the Engine does not report asleep within
 * `timeoutMs`, leaves that actor out (counted, like a failed preparation).
 * Long ones report progress.
 */
export async function sleepAndConfirm(
  client: GatewayClient,
  actorIds: string[],
  timeoutMs: number,
  progress?: Progress,
  deadlineMs?: number,
): Promise<SleepOutcome> {
  const many = actorIds.length > 1 ? progress : undefined;
  const already = await asleepAmong(client, actorIds);
  const awake = actorIds.filter((id) => !already.has(id));
  const { told, failures } = await sendSleepCalls(
    (id) => client.call({ kind: "id", actorId: id }, "sleep"),
    awake,
    many,
    "rivet: putting the awake actors to sleep",
    (t) => `rivet: ${already.size} actors asleep already, ${t.told.size} told to sleep, ${t.failures.length} sleep calls failed`,
    deadlineMs,
  );
  const pending = new Set(told);
  const confirming = many?.start("rivet: the Engine confirms them asleep", told.size, "actors");
  try {
    const deadline = Date.now() + timeoutMs;
    while (pending.size > 0 && Date.now() <= deadline) {
      for (const id of await asleepAmong(client, [...pending])) pending.delete(id);
      confirming?.tick(told.size - pending.size);
      if (pending.size > 0) await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    confirming?.finish(`rivet: ${told.size - pending.size} of ${told.size} actors confirmed asleep`);
  }
  // One the Engine never reports asleep is left out too, counted; the wake group fails only when most are.
  for (const id of pending) failures.push(`actor ${id} not reported asleep by the Engine within ${timeoutMs} ms`);
  return { asleep: actorIds.filter((id) => already.has(id) || (told.has(id) && !pending.has(id))), failures, alreadyAsleep: already.size };
}

/** warm.getOrCreate: the warm actor again, addressed by its key (the gateway resolves it on every call). */
async function warmGetOrCreate(ctx: PlanContext): Promise<void> {
  const ref: ActorRef = { key: `${ctx.keyPrefix}-warm`, actor: "plain" };
  await measureStage(ctx, "warm.getOrCreate", () => ctx.adapter.call(ref, "ping"));
}

export function rivetAdapter(client: GatewayClient, o: RivetAdapterOptions): SideAdapter {
  return {
    side: RIVET_PROFILE.id,
    profile: RIVET_PROFILE,
    ...(o.runtimeLog ? { runtimeLog: o.runtimeLog } : {}),
    properties: {
      ...RIVET_PROPERTIES,
      preparationPace: PREPARE_PACE,
      wakeIdle: `${o.wakeIdleMs} ms after the Engine reports every actor asleep`,
      openModelRates: `${RIVET_PROFILE.openRates.join(", ")} creates per second`,
      idleSleep: `RivetKit puts an actor with no call in flight to sleep ${o.actorSleepTimeoutMs} ms after its last one (the actors' sleepTimeout option)`,
    },
    wakeIdleMs: o.wakeIdleMs,
    idleSleepMs: o.actorSleepTimeoutMs,
    call: (ref, op, arg) => gatewayCall(client, ref, op, arg),
    origin: client.origin,
    sleep: (ids, progress, deadlineMs) => sleepAndConfirm(client, ids, o.sleepConfirmTimeoutMs, progress, deadlineMs),
    sideOnly: { warm: warmGetOrCreate },
  };
}
