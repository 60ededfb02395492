import { WORKLOAD } from "../../../analysis/contract/catalog";
import type { ActorRef } from "../adapter";
import { measureStage, setup } from "../stageKit";
import type { PlanContext } from "../adapter";
import type { GroupUnit } from "./unit";

/** Warm round trips: one running actor, warmed up, then pinged by id. */
async function warmGroup(ctx: PlanContext): Promise<void> {
  const first = await setup(ctx, "warm actor create", () => ctx.adapter.call({ key: `${ctx.keyPrefix}-warm`, actor: "plain" }, "ping"));
  const ref: ActorRef = { id: first.actorId };
  for (let i = 0; i < WORKLOAD.warmupCalls; i++) await setup(ctx, "warm-up", () => ctx.adapter.call(ref, "ping"));
  await measureStage(ctx, "warm.ping", () => ctx.adapter.call(ref, "ping"), { notes: { warmupCalls: WORKLOAD.warmupCalls } });
}

export const warm: GroupUnit = { run: warmGroup, order: "inline" };
