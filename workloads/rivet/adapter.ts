/** The Rivet side of the stage plan: the Engine gateway, driven over HTTP with undici. */
import { measureStage, type ActorRef, type AdapterProperties, type Op, type PlanContext, type SideAdapter, type SideOutcome } from "../stagePlan";
import { StageSetupError, must } from "../measure";
import { OPEN_RATES } from "../../analysis/catalog";
import type { GatewayClient, Target } from "./gateway";
import { forEachBounded } from "../bounded";
import type { Progress } from "../progress";

/** The Engine's GET /actors accepts at most 32 actor_ids per request. */
export const ACTORS_PER_QUERY = 32;

/** Sleep calls and sleep queries in flight at once (setup, not measured). */
export const SLEEP_CONCURRENCY = 8;

export const RIVET_PROPERTIES: Omit<AdapterProperties, "wakeIdle" | "openModelRates"> = {
  clock: "the driver's round trip through the Engine gateway (process.hrtime.bigint(), send to full reply)",
  create: "getOrCreate of a new key through the gateway; the first request is the sample",
  sleep: "explicit c.sleep() on each actor, then the Engine's actor API is polled until every one reports sleep_ts",
  plainActor: "an actor class with no database",
  storeSchema: "CREATE TABLE IF NOT EXISTS in the database's onMigrate, when an instance opens its database",
  inActor: "handler interval (actorMs) and SQL interval around db.execute (sqlMs)",
  sideOnlyStages: "warm.getOrCreate (the warm actor called by key instead of id)",
  throughput: "measured: completions / stage wall time",
};

export interface RivetAdapterOptions {
  /** How long slept actors stay idle after the Engine confirms them asleep. */
  wakeIdleMs: number;
  /** Upper bound on waiting for the Engine to report actors asleep. */
  sleepConfirmTimeoutMs: number;
  runtimeLog?: SideAdapter["runtimeLog"];
}

const target = (ref: ActorRef): Target => ("id" in ref ? { kind: "id", actorId: ref.id } : { kind: "key", actor: ref.actor, key: ref.key });

/** Sleeps each actor explicitly, then polls the Engine until every one reports a sleep_ts; long ones report progress. */
export async function sleepAndConfirm(client: GatewayClient, actorIds: string[], timeoutMs: number, progress?: Progress): Promise<void> {
  const many = actorIds.length > 1 ? progress : undefined;
  const sleeping = many?.start("rivet: putting actors to sleep", actorIds.length, "actors");
  let sent = 0;
  await forEachBounded(actorIds.length, SLEEP_CONCURRENCY, async (i) => {
    must(await client.call({ kind: "id", actorId: actorIds[i] }, "sleep"), `sleep of actor ${actorIds[i]}`);
    sleeping?.tick(++sent);
  });
  sleeping?.finish(`rivet: ${actorIds.length} actors told to sleep`);
  const pending = new Set(actorIds);
  const confirming = many?.start("rivet: the Engine confirms them asleep", actorIds.length, "actors");
  const deadline = Date.now() + timeoutMs;
  while (pending.size > 0) {
    const ids = [...pending];
    const batches = Array.from({ length: Math.min(SLEEP_CONCURRENCY, Math.ceil(ids.length / ACTORS_PER_QUERY)) }, (_, b) => ids.slice(b * ACTORS_PER_QUERY, (b + 1) * ACTORS_PER_QUERY));
    for (const records of await Promise.all(batches.map((batch) => client.actors(batch)))) {
      for (const a of records) if (a.sleep_ts !== null && a.destroy_ts === null) pending.delete(a.actor_id);
    }
    confirming?.tick(actorIds.length - pending.size);
    if (pending.size === 0) break;
    if (Date.now() > deadline) {
      confirming?.finish(`rivet: ${pending.size} actors not confirmed asleep`);
      throw new StageSetupError(`${pending.size} actors not reported asleep by the Engine within ${timeoutMs} ms`);
    }
    // A full round of queries found more asleep: ask again at once; otherwise give the Engine a moment.
    if (ids.length - pending.size < batches.length * ACTORS_PER_QUERY) await new Promise((r) => setTimeout(r, 200));
  }
  confirming?.finish(`rivet: ${actorIds.length} actors confirmed asleep`);
}

/** warm.getOrCreate: the warm actor again, addressed by its key (the gateway resolves it on every call). */
async function warmGetOrCreate(ctx: PlanContext): Promise<void> {
  const ref: ActorRef = { key: `${ctx.keyPrefix}-warm`, actor: "plain" };
  await measureStage(ctx, "warm.getOrCreate", () => ctx.adapter.call(ref, "ping"));
}

export function rivetAdapter(client: GatewayClient, o: RivetAdapterOptions): SideAdapter {
  return {
    side: "rivet",
    ...(o.runtimeLog ? { runtimeLog: o.runtimeLog } : {}),
    properties: {
      ...RIVET_PROPERTIES,
      wakeIdle: `${o.wakeIdleMs} ms after the Engine reports every actor asleep`,
      openModelRates: `${OPEN_RATES.rivet.join(", ")} creates per second`,
    },
    wakeIdleMs: o.wakeIdleMs,
    async call(ref: ActorRef, op: Op, arg?: number): Promise<SideOutcome> {
      const r = await client.call(target(ref), op, arg === undefined ? [] : [arg]);
      return r.ok ? { ok: true, ms: r.ms, reply: { cold: r.reply.cold, actorMs: r.reply.actorMs, sqlMs: r.reply.sqlMs }, actorId: r.actorId } : r;
    },
    sleep: (ids, progress) => sleepAndConfirm(client, ids, o.sleepConfirmTimeoutMs, progress),
    sideOnly: { warm: warmGetOrCreate },
  };
}
