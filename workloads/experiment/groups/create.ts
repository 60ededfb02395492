import { fresh, firstRequestOf, measureStage } from "../stageKit";
import type { PlanContext } from "../adapter";
import type { GroupUnit } from "./unit";

/** Creates: a new actor per sample, whose first request is a ping, a point read or a write. */
async function createGroup(ctx: PlanContext): Promise<void> {
  for (const metric of ["create.ping", "create.read", "create.write"]) {
    const f = firstRequestOf(metric);
    await measureStage(ctx, metric, (i) => ctx.adapter.call(fresh(ctx, metric, i, f.actor), f.op, f.arg));
  }
}

export const create: GroupUnit = { run: createGroup, order: "inline" };
