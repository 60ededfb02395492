/**
 * Preparations: actors made for a later measurement (never samples), a few at
 * a time, paced under a machine's limit of live actors, bounded by a stage's
 * deadline, their failures counted and named.
 */
import { forEachBounded } from "../host/bounded";
import type { ActorCensus } from "./actorCensus";
import { describeMachineLimit } from "../../analysis/contract/machineLimits";
import { stageDeadline, StageSetupError } from "./measure";
import { RuntimeLost, StallClock } from "../host/runtimeWatch";
import type { ActorRef, Op, PlanContext } from "./adapter";
import { clockOf, limitWatch } from "./stageKit";

/** More than this share of failed preparations fails the group; fewer leave those actors out, noted. */
export const MAX_PREPARATION_FAILURE_SHARE = 0.5;

/**
 * Wake sets are prepared (created, the store ones written) this many at a
 * time: nothing of it is measured, and the wakes themselves still go one at a
 * time after the whole set has slept.
 */
export const PREPARE_CONCURRENCY = 8;

/** How often a paced preparation counts the awake actors again (the census walks every actor of the run). */
const PACE_RECOUNT_MS = 250;

/**
 * Admits calls that bring actors to life while fewer than `max` are awake:
 * the census's count (taken at most every PACE_RECOUNT_MS), plus the calls
 * admitted and not yet answered, plus those answered since the count. Where
 * the runtime evicts by idle alone, an actor counts as awake for the whole
 * wake idle after its last call, longer than the runtime keeps it.
 */
function livePacer(
  census: ActorCensus,
  limit: number,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
) {
  // At least one at a time, whatever the limit: a preparation must still progress.
  const max = Math.max(1, limit);
  let counted = 0;
  let countedAt = -Infinity;
  let pending = 0;
  let answered = 0;
  // Wall time during which at least one call waited (the calls wait side by side).
  let waiting = 0;
  let waitingSince = 0;
  let waitedMs = 0;
  return {
    async admit(): Promise<void> {
      let waited = false;
      for (;;) {
        const now = census.clock();
        if (now - countedAt >= PACE_RECOUNT_MS) {
          counted = census.count(now).awake;
          countedAt = now;
          answered = 0;
        }
        if (counted + pending + answered < max) {
          pending++;
          if (waited && --waiting === 0) waitedMs += census.clock() - waitingSince;
          return;
        }
        if (!waited) {
          waited = true;
          if (waiting++ === 0) waitingSince = census.clock();
        }
        await wait(PACE_RECOUNT_MS);
      }
    },
    /** The admitted call was answered (and, if it succeeded, the census has it). */
    answered(): void {
      pending--;
      answered++;
    },
    get waitedMs() {
      return waitedMs;
    },
  };
}

/** Actors a preparation made (their ids, and when each answered, on clockOf), its failures, and how it ended where it did not make them all. */
export interface Prepared {
  ids: string[];
  answeredAt: number[];
  errors: string[];
  /** "deadline: 340 of 1000 creates done in 600 s", or "collapsed: ..." (more than MAX_PREPARATION_FAILURE_SHARE failed, where the caller tolerates it). */
  ended?: string;
}

/**
 * New actors made for a later measurement (not samples), `concurrency` at a
 * time, with progress, paced under the adapter's maxLiveActors, and no
 * longer than a stage's deadline (ctx.deadlineMs): past it no more are
 * asked for, and the next stage's notes say so (it measures the actors
 * made). Those that fail are left out and
 * counted; more than MAX_PREPARATION_FAILURE_SHARE failing fails the group,
 * unless `tolerate` (the scaling group, whose curve ends there). Failures
 * from a machine limit are named as a stage's are (limitWatch), in the error
 * and in the next stage's notes.
 */
export async function prepareActors(
  ctx: PlanContext,
  what: string,
  n: number,
  ref: (i: number) => ActorRef,
  op: Op,
  concurrency = PREPARE_CONCURRENCY,
  o: { tolerate?: boolean } = {},
): Promise<Prepared> {
  const { adapter } = ctx;
  const deadline = stageDeadline(ctx.deadlineMs, "creates");
  const step = ctx.progress.start(`${adapter.side} ${what}: preparing`, n, "actors");
  const ids: Array<string | undefined> = new Array(n);
  const at: number[] = new Array(n);
  const errors: string[] = [];
  const limits = limitWatch(ctx, `${what} preparation`);
  const pacer = adapter.maxLiveActors !== undefined && ctx.census ? livePacer(ctx.census, adapter.maxLiveActors, ctx.hold) : undefined;
  const stall = new StallClock(ctx.runtime, `${adapter.side} ${what} preparation`, ctx.stallMs);
  let stalled: RuntimeLost | undefined;
  let done = 0;
  await forEachBounded(n, concurrency, async (i) => {
    if (deadline.passed()) return;
    await pacer?.admit();
    ctx.runtime?.check();
    if (stalled) throw stalled;
    const r = await adapter.call(ref(i), op);
    pacer?.answered();
    const loss = stall.saw(r.ok, r.ok ? undefined : r.error);
    if (loss) stalled ??= new RuntimeLost(loss);
    if (r.ok) {
      ids[i] = r.actorId;
      at[i] = clockOf(ctx)();
    } else {
      errors.push(r.error);
      limits.onFailure(r.error);
    }
    step.tick(++done, errors.length);
  });
  ctx.runtime?.check();
  const kept = [...ids.keys()].filter((i) => ids[i] !== undefined);
  const made = kept.map((i) => ids[i]!);
  const paced =
    pacer && pacer.waitedMs > 0
      ? `, paced (${(pacer.waitedMs / 1000).toFixed(1)} s spent waiting to keep under ${adapter.maxLiveActors} awake actors)`
      : "";
  const byDeadline = deadline.outcome(made.length, n);
  step.finish(
    `${adapter.side} ${what}: ${made.length} of ${n} actors prepared, ${concurrency} at a time${paced}${byDeadline ? `; ${byDeadline}` : ""}`,
  );
  const limit = limits.endNotes()?.machineLimit;
  const named = limit
    ? `; from a limit of this machine, not the runtime's behaviour: ${describeMachineLimit(limit, adapter.runtimeLog?.name ?? "runtime")}`
    : "";
  const collapsed =
    errors.length > n * MAX_PREPARATION_FAILURE_SHARE ? `${errors.length} of ${n} creates failed, e.g. ${errors[0]}${named}` : undefined;
  const ended = byDeadline ?? (collapsed && `collapsed: ${collapsed}`);
  if (limit || paced || ended) {
    (ctx.preparationNotes ??= []).push({
      what,
      n,
      failures: errors.length,
      ...(pacer ? { maxLiveActors: adapter.maxLiveActors, pacedWaitMs: pacer.waitedMs } : {}),
      ...(limit ? { machineLimit: limit } : {}),
      ...(ended ? { ended } : {}),
    });
  }
  if (collapsed && !o.tolerate) throw new StageSetupError(`${what} preparation: ${collapsed}`);
  return { ids: made, answeredAt: kept.map((i) => at[i]), errors, ...(ended ? { ended } : {}) };
}

/** Filler actors for the scaling group are made this many at a time (setup, not measured). */
export const SCALE_FILL_CONCURRENCY = 16;

/** How every side's preparations go, unless a machine limit paces them further (SideAdapter.maxLiveActors). */
export const PREPARE_PACE = `wake sets ${PREPARE_CONCURRENCY} at a time, scaling fillers ${SCALE_FILL_CONCURRENCY} at a time, as fast as the runtime answers`;
