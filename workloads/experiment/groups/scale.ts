import { SCALE_BURST_CONCURRENCY } from "../../../analysis/contract/catalog";
import { idleFor } from "../measure";
import { waitWithProgress } from "../progress";
import { PREPARE_CONCURRENCY, prepareActors, SCALE_FILL_CONCURRENCY } from "../prepare";
import { fresh, measureStage, settleAll, stageSize } from "../stageKit";
import type { PlanContext } from "../adapter";
import type { GroupUnit } from "./unit";

/**
 * Cost as the work grows: at each of the preset's levels, that many filler
 * actors (plain, created then asleep) exist besides the ones measured; then
 * a wake set is woken, new actors are created one at a time, and a burst of
 * creates runs at SCALE_BURST_CONCURRENCY. Each level's wakes start with
 * every actor of the run asleep (settleAll) and idle for the side's wake
 * idle, as in the wake group. The curve goes up the levels until a side stops
 * keeping up: the first level where a preparation or a stage ended by its
 * deadline, or most of a preparation's creates failed, is measured as far as
 * it got and is the last (curveEnd in its stages' notes), not a failure.
 */
async function scaleGroup(ctx: PlanContext): Promise<void> {
  const { adapter } = ctx;
  const levels = [...(ctx.scaleLevels ?? [])].sort((a, b) => a - b);
  let asked = 0;
  let fillers = 0;
  let fillFailures = 0;
  for (const level of levels) {
    let ended: string | undefined;
    if (level > asked) {
      const from = asked;
      const made = await prepareActors(
        ctx,
        `scale fillers ${from} to ${level}`,
        level - from,
        (i) => ({ key: `${ctx.keyPrefix}-scale-fill-${from + i}`, actor: "plain" }),
        "ping",
        SCALE_FILL_CONCURRENCY,
        { tolerate: true },
      );
      asked = level;
      fillers += made.ids.length;
      fillFailures += made.errors.length;
      ended = made.ended && `fillers ${from} to ${level}: ${made.ended}`;
    }
    const notes = (settled: unknown) => ({ level, fillers, fillFailures, settled, ...(ended ? { curveEnd: ended } : {}) });
    const wake = `scale.wake.e${level}`;
    const set = await prepareActors(ctx, wake, stageSize(ctx, wake), (i) => fresh(ctx, wake, i, "plain"), "ping", PREPARE_CONCURRENCY, {
      tolerate: true,
    });
    ended ??= set.ended && `wake set: ${set.ended}`;
    // byIdle: on a side that sleeps by idle alone this settle is the wake's idle, so it is waited out, never released.
    const settled = await settleAll(ctx, `scale e${level}`, { byIdle: true });
    // Where sleep is only idle time, settling was the idle (wakeIdleMs since the last call); elsewhere the wake idle follows the confirmed sleep.
    if (!adapter.sleepsByIdleOnly)
      await waitWithProgress(ctx.progress, `${adapter.side} scale e${level}: every actor asleep, idle`, adapter.wakeIdleMs, (ms) =>
        idleFor(ctx, ms),
      );
    const woke = await measureStage(ctx, wake, (i) => adapter.call({ id: set.ids[i] }, "ping"), {
      n: set.ids.length,
      notes: { ...notes(settled), preparationFailures: set.errors.length },
    });
    ended ??= woke.deadline && `${wake}: ${woke.deadline}`;
    // The creates and the burst follow at once (the woken set still awake, as each stage's atStage count says): a settle
    // before each would cost a side that sleeps by idle alone its whole eviction time again.
    const create = `scale.create.e${level}`;
    const created = await measureStage(ctx, create, (i) => adapter.call(fresh(ctx, create, i, "plain"), "ping"), { notes: notes(settled) });
    ended ??= created.deadline && `${create}: ${created.deadline}`;
    const burst = `scale.burst.e${level}`;
    const burstOut = await measureStage(ctx, burst, (i) => adapter.call(fresh(ctx, burst, i, "plain"), "ping"), {
      concurrency: SCALE_BURST_CONCURRENCY,
      notes: notes(settled),
    });
    ended ??= burstOut.deadline && `${burst}: ${burstOut.deadline}`;
    if (ended) {
      const skipped = levels.filter((l) => l > level);
      ctx.progress.note(
        `${adapter.side} scale: the curve ends at e${level} (${ended})${skipped.length ? `; levels not reached: ${skipped.map((l) => `e${l}`).join(", ")}` : ""}`,
      );
      return;
    }
  }
}

export const scale: GroupUnit = {
  run: scaleGroup,
  order: "last",
  shape: (o, n) => ({
    prepared: Math.max(0, ...o.scaleLevels) + o.scaleLevels.reduce((t, level) => t + n(`scale.wake.e${level}`), 0),
    heldIdleMs: o.scaleLevels.length * o.wakeIdleMs,
  }),
};
