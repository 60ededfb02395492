import { idleFor, StageSetupError } from "../measure";
import { waitWithProgress } from "../progress";
import { MAX_PREPARATION_FAILURE_SHARE, PREPARE_CONCURRENCY, prepareActors } from "../prepare";
import { fresh, firstRequestOf, measureStage, stageSize } from "../stageKit";
import type { PlanContext } from "../adapter";
import type { GroupUnit } from "./unit";

/**
 * Wakes: for each set, new actors (the store ones with a row), put to sleep,
 * left idle for the adapter's wakeIdleMs, then woken by their first request.
 * The three sets share one idle wait. An actor whose preparation fails is left
 * out and counted in the stage's notes, on both sides alike.
 */
async function wakeGroup(ctx: PlanContext): Promise<void> {
  const { adapter } = ctx;
  const sets = ["wake.ping", "wake.read", "wake.write"].map((metric) => ({ metric, ids: [] as string[], errors: [] as string[] }));
  for (const s of sets) {
    const actor = firstRequestOf(s.metric).actor;
    Object.assign(
      s,
      await prepareActors(
        ctx,
        s.metric,
        stageSize(ctx, s.metric),
        (i) => fresh(ctx, s.metric, i, actor),
        actor === "store" ? "write" : "ping",
      ),
    );
  }
  const all = sets.flatMap((s) => s.ids);
  // An actor that could not be put to sleep is left out of its set like one that could not be created.
  const slept = await adapter.sleep(all, ctx.progress);
  const asleep = new Set(slept.asleep);
  for (const s of sets) {
    const ids = s.ids;
    s.ids = ids.filter((id) => asleep.has(id));
    for (const id of ids) if (!asleep.has(id)) s.errors.push(slept.failures.find((f) => f.includes(id)) ?? `actor ${id} not asleep`);
    if (s.errors.length > stageSize(ctx, s.metric) * MAX_PREPARATION_FAILURE_SHARE) {
      throw new StageSetupError(
        `${s.metric} preparation: ${s.errors.length} actors could not be created or put to sleep, e.g. ${s.errors[0]}`,
      );
    }
  }
  const asleepAt = Date.now();
  await waitWithProgress(ctx.progress, `${adapter.side} wake: ${all.length} actors asleep, idle`, adapter.wakeIdleMs, (ms) =>
    idleFor(ctx, ms),
  );
  const idleMs = Date.now() - asleepAt;
  for (const s of sets) {
    const f = firstRequestOf(s.metric);
    await measureStage(ctx, s.metric, (i) => adapter.call({ id: s.ids[i] }, f.op, f.arg), {
      n: s.ids.length,
      notes: {
        idleAtLeastMs: adapter.wakeIdleMs,
        asleepAt: new Date(asleepAt).toISOString(),
        idleBeforeFirstWakeMs: idleMs,
        preparationConcurrency: PREPARE_CONCURRENCY,
        ...(slept.alreadyAsleep !== undefined ? { asleepBeforeSleepCall: slept.alreadyAsleep } : {}),
        preparationFailures: s.errors.length,
        ...(s.errors.length > 0 ? { preparationErrors: s.errors.slice(0, 3) } : {}),
      },
    });
  }
}

export const wake: GroupUnit = {
  run: wakeGroup,
  order: "overlapping",
  shape: (_o, n) => ({ prepared: n("wake.ping") + n("wake.read") + n("wake.write") }),
};
