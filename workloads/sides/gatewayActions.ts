/**
 * The gateway's action routes as stage-plan calls: one timed call, and the
 * `sleep` action sent to many actors. Rivet's adapter drives the Engine's
 * gateway with them, and the floor's drives its server, which answers the
 * same routes.
 */
import type { ActorRef, Op, SideOutcome } from "../experiment/stagePlan";
import type { GatewayClient, Target } from "./rivet/gateway";
import { forEachBounded } from "../host/bounded";
import type { Progress } from "../experiment/progress";

/** Sleep calls and sleep queries in flight at once (setup, not measured). */
export const SLEEP_CONCURRENCY = 8;

const target = (ref: ActorRef): Target => ("id" in ref ? { kind: "id", actorId: ref.id } : { kind: "key", actor: ref.actor, key: ref.key });

/** One call through the gateway's action routes, as a stage-plan outcome. */
export async function gatewayCall(client: GatewayClient, ref: ActorRef, op: Op, arg?: number): Promise<SideOutcome> {
  const r = await client.call(target(ref), op, arg === undefined ? [] : [arg]);
  return r.ok ? { ok: true, ms: r.ms, reply: { cold: r.reply.cold, actorMs: r.reply.actorMs, sqlMs: r.reply.sqlMs }, actorId: r.actorId } : r;
}

/**
 * Sends the `sleep` action to each actor, SLEEP_CONCURRENCY at a time (setup,
 * not measured), as a progress step: which answered, what each said, and the
 * failures with their text. Rivet's sleep and the floor's close both use it.
 */
export async function sendSleepCalls(
  client: GatewayClient,
  ids: readonly string[],
  progress: Progress | undefined,
  stage: string,
  summary: (t: { told: Set<string>; failures: string[]; values: Map<string, unknown> }) => string,
): Promise<{ told: Set<string>; failures: string[]; values: Map<string, unknown> }> {
  const t = { told: new Set<string>(), failures: [] as string[], values: new Map<string, unknown>() };
  const step = progress?.start(stage, ids.length, "actors");
  try {
    await forEachBounded(ids.length, SLEEP_CONCURRENCY, async (i) => {
      const r = await client.call({ kind: "id", actorId: ids[i] }, "sleep");
      if (r.ok) {
        t.told.add(ids[i]);
        t.values.set(ids[i], r.reply.value);
      } else t.failures.push(`sleep of actor ${ids[i]}: ${r.error}`);
      step?.tick(t.told.size + t.failures.length, t.failures.length);
    });
  } finally {
    step?.finish(summary(t));
  }
  return t;
}
