import { idleEntry } from "../../../analysis/contract/catalog";
import { coldRequired, idleLabel, idleMetric } from "../../../analysis/contract/idleLadder";
import { runLadder } from "../idleLadder";
import { idleFor } from "../measure";
import { waitWithProgress } from "../progress";
import { PREPARE_CONCURRENCY, prepareActors, type Prepared } from "../prepare";
import { clockOf, fresh, measureStage, stageSize } from "../stageKit";
import type { PlanContext } from "../adapter";
import type { GroupUnit } from "./unit";

/**
 * Wake against idle length: for each length of the run's ladder, new plain
 * actors are called once and then left untouched that long (no sleep call:
 * what is measured is the runtime's own idle sleep or eviction), then each
 * is called once more, the sample. The steps nest (runLadder), so the ladder
 * costs about its longest step, and every wait lets other groups measure.
 * A step longer than the adapter's idleSleepMs must prove a fresh instance
 * on each wake; at or below it the cold flag is reported as found.
 */
async function idleGroup(ctx: PlanContext): Promise<void> {
  const { adapter } = ctx;
  const sets = new Map<number, Prepared>();
  const now = clockOf(ctx);
  await runLadder(
    ctx.idleLadder ?? [],
    {
      now,
      prepare: async (idleMs) => {
        const metric = idleMetric(idleMs);
        const set = await prepareActors(ctx, metric, stageSize(ctx, metric), (i) => fresh(ctx, metric, i, "plain"), "ping");
        // Their idle is what is measured: a settle meanwhile never releases them.
        ctx.census?.leftIdle(set.ids);
        sets.set(idleMs, set);
      },
      waitUntil: (at, idleMs) =>
        waitWithProgress(
          ctx.progress,
          `${adapter.side} ${idleMetric(idleMs)}: ${sets.get(idleMs)!.ids.length} actors left idle`,
          Math.max(0, at - now()),
          (ms) => idleFor(ctx, ms),
        ),
      wake: async (idleMs) => {
        const set = sets.get(idleMs)!;
        // Each actor's idle: from the answer to its one call to the send of its wake.
        const idle: number[] = [];
        await measureStage(
          ctx,
          idleMetric(idleMs),
          (i) => {
            idle.push(now() - set.answeredAt[i]);
            return adapter.call({ id: set.ids[i] }, "ping");
          },
          {
            n: set.ids.length,
            notes: {
              idle: { ms: idleMs, idleSleepMs: adapter.idleSleepMs, coldRequired: coldRequired(idleMs, adapter.idleSleepMs) },
              preparationConcurrency: PREPARE_CONCURRENCY,
              preparationFailures: set.errors.length,
              ...(set.errors.length > 0 ? { preparationErrors: set.errors.slice(0, 3) } : {}),
            },
            endNotes: () =>
              idle.length ? { idleActualMs: { min: Math.round(Math.min(...idle)), max: Math.round(Math.max(...idle)) } } : {},
          },
        );
      },
    },
    idleLabel,
  );
}

export const idle: GroupUnit = {
  run: idleGroup,
  order: "overlapping",
  joint: true,
  entries: (o) => o.idleLadder.map(idleEntry),
  shape: (o, _n, stages) => ({ prepared: stages.reduce((t, x) => t + x.n, 0), sharedIdleMs: Math.max(0, ...o.idleLadder) }),
};
