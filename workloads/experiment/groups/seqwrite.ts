import { measureStage, wokenOnce } from "../stageKit";
import type { PlanContext } from "../adapter";
import type { GroupUnit } from "./unit";

/** Sequential durable writes on one store actor that has slept and woken once. */
async function seqwriteGroup(ctx: PlanContext): Promise<void> {
  const ref = await wokenOnce(ctx, "store", "seqwrite", 0);
  await measureStage(ctx, "seqwrite", () => ctx.adapter.call(ref, "write"), { notes: { wokenOnce: true } });
}

export const seqwrite: GroupUnit = { run: seqwriteGroup, order: "overlapping" };
