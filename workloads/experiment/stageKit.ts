/**
 * What every group's stages share: the census of a side's actors, settling
 * them asleep before a group, setup calls, stage sizes, machine-limit watches,
 * the measured stage itself, and the actor a series runs on. Side-neutral:
 * it speaks to a side only through its adapter.
 */
import { ActorCensus } from "./actorCensus";
import { watchLog } from "../host/logWatch";
import { describeMachineLimit, machineLimitLines, machineLimitOf, type MachineLimitNote } from "../../analysis/contract/machineLimits";
import { waitWithProgress } from "./progress";
import { idleFor, measure, must, StageSetupError, type Outcome } from "./measure";
import { RuntimeLost, type RuntimeWatch } from "../host/runtimeWatch";
import { catalogEntry, sampleCount, sideMeasures, type Group } from "../../analysis/contract/catalog";
import type { ActorClass, ActorRef, GroupStart, Op, PlanContext, SideAdapter, SideOutcome } from "./adapter";
import { isHopMetric } from "../../analysis/contract/hops";

/** The adapter with every call and confirmed sleep noted in the census; a sleep ends at once if the runtime is lost. */
export function trackActors(adapter: SideAdapter, census: ActorCensus, runtime?: RuntimeWatch): SideAdapter {
  return {
    ...adapter,
    async call(ref, op, arg) {
      const r = await adapter.call(ref, op, arg);
      if (r.ok) census.called(r.actorId);
      return r;
    },
    async sleep(ids, progress, deadlineMs) {
      const asked = adapter.sleep(ids, progress, deadlineMs);
      const out = runtime ? await Promise.race([asked, runtime.lost.then((loss) => Promise.reject(new RuntimeLost(loss)))]) : await asked;
      // A runtime that sleeps by idle alone confirms nothing: its census counts idle time instead, and never releases these.
      if (adapter.sleepsByIdleOnly) census.leftIdle(out.asleep);
      else {
        census.confirmedAsleep(out.asleep);
        // One the runtime did not confirm stays awake in the count, and is not waited for again.
        const asleep = new Set(out.asleep);
        census.notConfirmed(ids.filter((id) => !asleep.has(id)));
      }
      return out;
    },
  };
}

/** A wait that keeps the CPU lock: the context's (a test's), else the runtime's sleep (which ends if the runtime is lost), else a timer. */
export const holdOf = (ctx: PlanContext) =>
  ctx.hold ?? ((ms: number) => (ctx.runtime ? ctx.runtime.sleep(ms) : new Promise<void>((r) => setTimeout(r, ms))));

/** A census for the adapter's side: idle eviction counted where the runtime has nothing else. */
export function censusFor(adapter: SideAdapter, now: () => number = Date.now): ActorCensus {
  return new ActorCensus(adapter.sleepsByIdleOnly ? adapter.wakeIdleMs : null, now);
}

/**
 * Brings the side to the start state before a group: awake actors are told to
 * sleep and confirmed, or, where the runtime sleeps by idle alone, dropped at
 * once where its adapter can (release), the rest waited out until the last
 * call to any of them is wakeIdleMs old. A wait keeps the CPU lock: no other
 * group may wake actors meanwhile.
 */
export async function settleBeforeGroup(ctx: PlanContext, group: Group): Promise<GroupStart | undefined> {
  const settled = await settleAll(ctx, group);
  return settled && { group, ...settled };
}

/**
 * Puts every awake actor of the run on this side to sleep (see settleBeforeGroup); `what` names the step. `byIdle`:
 * a side that sleeps by idle alone waits it out instead of releasing them, where the settle is the idle before a wake.
 */
export async function settleAll(
  ctx: PlanContext,
  what: string,
  o: { byIdle?: boolean } = {},
): Promise<Omit<GroupStart, "group"> | undefined> {
  const census = ctx.census;
  if (!census) return undefined;
  const { adapter } = ctx;
  const before = census.count();
  const t0 = census.clock();
  let sleepFailures = 0;
  let awake = census.awake();
  const releasable = adapter.sleepsByIdleOnly && adapter.release && !o.byIdle ? census.toRelease() : [];
  if (releasable.length > 0) {
    const out = await adapter.release!(releasable);
    census.confirmedAsleep(out.asleep);
    sleepFailures = out.failures.length;
    if (out.failures.length > 0)
      ctx.progress.note(
        `${adapter.side} ${what}: ${out.failures.length} earlier actors did not reset (${out.failures[0]}); waited out instead`,
      );
    awake = census.awake();
  }
  if (awake.ids.length > 0) {
    if (adapter.sleepsByIdleOnly) {
      const ms = Math.max(0, awake.lastCall + adapter.wakeIdleMs - census.clock());
      await waitWithProgress(
        ctx.progress,
        `${adapter.side} ${what}: ${awake.ids.length} earlier actors left idle past eviction first`,
        ms,
        holdOf(ctx),
      );
      ctx.runtime?.check();
    } else {
      // One the runtime never confirmed asleep is not waited for again (each wait is the full confirmation time).
      const ids = census.toSettle();
      sleepFailures = ids.length ? (await adapter.sleep(ids, ctx.progress, ctx.deadlineMs)).failures.length : 0;
    }
  }
  const start = { before, atStart: census.count(), settleMs: census.clock() - t0, sleepFailures };
  if (before.awake > 0)
    ctx.progress.note(
      `${adapter.side} ${what}: starts with ${start.atStart.existing} actors of this run, ${start.atStart.awake} awake (${before.awake} were awake; ${(start.settleMs / 1000).toFixed(1)} s to settle)`,
    );
  return start;
}

/** A stage's start state for its notes: its group's, and the census as the stage starts. */
export function startState(ctx: PlanContext): Record<string, unknown> {
  return ctx.census && ctx.groupStart ? { startState: { ...ctx.groupStart, atStage: ctx.census.count() } } : {};
}

/**
 * A setup call (an actor to measure on, its seed, its wake): not a sample, so
 * one that fails with a gateway error (a runtime's route timeout, say) is
 * tried once more, and the retry is written into the next stage's notes; a
 * second failure fails the group.
 */
export async function setup(ctx: PlanContext, what: string, call: () => Promise<SideOutcome>): Promise<Extract<SideOutcome, { ok: true }>> {
  ctx.runtime?.check();
  let r = await call();
  if (!r.ok) ctx.runtime?.check();
  if (!r.ok && /^HTTP 50[234]\b/.test(r.error)) {
    const why = `${what}: ${r.error.slice(0, 160)}`;
    ctx.progress.note(`${ctx.adapter.side} ${why}; trying this setup call once more (setup, not a sample)`);
    (ctx.setupRetries ??= []).push(why);
    r = await call();
  }
  return must(r, what);
}

/** The number of samples a stage takes: the catalog's count for this side. */
export function stageSize(ctx: PlanContext, metric: string): number {
  const e = catalogEntry(metric);
  if (!sideMeasures(ctx.adapter.profile, metric))
    throw new Error(`${metric} is not measured on the ${ctx.adapter.side} side (analysis/contract/catalog.ts and the side's profile)`);
  return sampleCount(e, ctx.counts);
}

/**
 * Watches a stage for failures from a machine limit: failed samples whose
 * error names one, and lines naming one that the runtime's log gained while
 * the stage ran. Any found are said at once and kept in the stage's record.
 */
export function limitWatch(ctx: PlanContext, metric: string) {
  const samples: MachineLimitNote["samples"] = {};
  const log = ctx.adapter.runtimeLog;
  const gained = log ? watchLog(log.file) : () => "";
  return {
    onFailure: (error: string) => {
      const kind = machineLimitOf(error);
      if (kind) samples[kind] = (samples[kind] ?? 0) + 1;
    },
    endNotes: () => {
      const note: MachineLimitNote = { samples, runtimeLog: machineLimitLines(gained()) };
      if (Object.keys(note.samples).length === 0 && Object.keys(note.runtimeLog).length === 0) return undefined;
      ctx.progress.note(
        `${ctx.adapter.side} ${metric}: failures from a limit of this machine, not the runtime's behaviour: ${describeMachineLimit(note, log?.name ?? "runtime")}`,
      );
      return { machineLimit: note };
    },
  };
}

/** Measures a catalog metric on the context's side: n, coldness and side from the catalog; a hop stage under the run's capture, captured. */
export async function measureStage(
  ctx: PlanContext,
  metric: string,
  call: (i: number) => Promise<Outcome>,
  o: { concurrency?: number; notes?: Record<string, unknown>; n?: number; endNotes?: () => Record<string, unknown> } = {},
) {
  const retries = ctx.setupRetries?.splice(0) ?? [];
  const preparations = ctx.preparationNotes?.splice(0) ?? [];
  const notes = {
    ...o.notes,
    ...(retries.length ? { setupRetries: retries } : {}),
    ...(preparations.length ? { preparations } : {}),
    ...startState(ctx),
  };
  const limits = limitWatch(ctx, metric);
  const endNotes = () => ({ ...o.endNotes?.(), ...limits.endNotes() });
  const concurrency = o.concurrency ?? 1;
  // One call at a time only: then the n-th request on the wire is the n-th sample.
  const cap = ctx.capture && concurrency === 1 && isHopMetric(metric) ? await ctx.capture(metric) : undefined;
  return measure({
    ctx,
    side: ctx.adapter.side,
    metric,
    n: o.n ?? stageSize(ctx, metric),
    concurrency,
    call,
    notes: cap ? { ...notes, capture: cap.note } : notes,
    onFailure: limits.onFailure,
    endNotes,
    ...(cap ? { beforeRecord: async () => ({ capture: await cap.stop() }) } : {}),
  });
}

export const fresh = (ctx: PlanContext, metric: string, i: number, actor: ActorClass): ActorRef => ({
  key: `${ctx.keyPrefix}-${metric}-${i}`,
  actor,
});

/** The op a metric's first request makes, and the actor class it needs. */
const FIRST_REQUEST: Record<"ping" | "read" | "write", { op: Op; arg?: number; actor: ActorClass }> = {
  ping: { op: "ping", actor: "plain" },
  read: { op: "read", arg: 1, actor: "store" },
  write: { op: "write", actor: "store" },
};
export const firstRequestOf = (metric: string) => {
  const first = catalogEntry(metric).firstRequest;
  if (!first) throw new Error(`${metric} has no first request in the catalog (analysis/contract/catalog.ts)`);
  return FIRST_REQUEST[first];
};

/** The plan's wall clock, ms: the census's (a test's fake one), else Date.now. */
export const clockOf = (ctx: PlanContext): (() => number) => ctx.census?.clock ?? Date.now;

/**
 * An actor that has been created, (for the store) seeded, put to sleep, left
 * idle and woken once: the reference's series run on such an actor. The wake
 * must prove a fresh instance.
 */
export async function wokenOnce(ctx: PlanContext, actor: ActorClass, name: string, seedRows: number): Promise<ActorRef> {
  const { adapter } = ctx;
  const first = await setup(ctx, `${name} create`, () => adapter.call({ key: `${ctx.keyPrefix}-${name}`, actor }, "ping"));
  const ref: ActorRef = { id: first.actorId };
  if (seedRows > 0) await setup(ctx, `${name} seed`, () => adapter.call(ref, "seed", seedRows));
  const slept = await adapter.sleep([first.actorId]);
  if (!slept.asleep.includes(first.actorId))
    throw new StageSetupError(`${name}: could not put the actor to sleep: ${slept.failures[0] ?? "not asleep"}`);
  await waitWithProgress(ctx.progress, `${adapter.side} ${name}: actor asleep, idle`, adapter.wakeIdleMs, (ms) => idleFor(ctx, ms));
  const woke = await setup(ctx, `${name} wake`, () => adapter.call(ref, "ping"));
  if (!woke.reply.cold) throw new StageSetupError(`${name}: the wake before the series was not a fresh instance (the actor never slept)`);
  return ref;
}
