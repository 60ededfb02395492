import { BURST_CONCURRENCY, OPEN_MAX_IN_FLIGHT } from "../../../analysis/contract/catalog";
import { measureOpen } from "../measure";
import { fresh, limitWatch, measureStage, stageSize, startState } from "../stageKit";
import type { PlanContext } from "../adapter";
import type { GroupUnit } from "./unit";

/**
 * Burst creates of new plain actors, closed loop at each concurrency; then the
 * same creates in an open model at each of the side's arrival rates.
 */
async function burstGroup(ctx: PlanContext): Promise<void> {
  const { side } = ctx.adapter;
  for (const c of BURST_CONCURRENCY) {
    const metric = `burst.c${c}`;
    await measureStage(ctx, metric, (i) => ctx.adapter.call(fresh(ctx, metric, i, "plain"), "ping"), { concurrency: c });
  }
  for (const rate of ctx.adapter.profile.openRates) {
    const metric = `open.r${rate}`;
    const limits = limitWatch(ctx, metric);
    await measureOpen({
      ctx,
      side,
      metric,
      ratePerSecond: rate,
      n: stageSize(ctx, metric),
      maxInFlight: OPEN_MAX_IN_FLIGHT,
      notes: startState(ctx),
      call: (i) => ctx.adapter.call(fresh(ctx, metric, i, "plain"), "ping"),
      ...limits,
    });
  }
}

export const burst: GroupUnit = { run: burstGroup, order: "last" };
