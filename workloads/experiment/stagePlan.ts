/**
 * The stage plan, written once for both sides against a SideAdapter (as
 * serverless benchmark suites write an experiment once against a platform
 * interface). Both sides get the same preparation, counts and failure rules;
 * what cannot be the same is an adapter property, recorded in the manifest
 * and listed by the report.
 */
import { forEachBounded } from "../host/bounded";
import { ActorCensus, type ActorCount } from "./actorCensus";
import { watchLog } from "../host/logWatch";
import { describeMachineLimit, machineLimitLines, machineLimitOf, type MachineLimitNote } from "../../analysis/contract/machineLimits";
import { waitWithProgress, type Progress } from "./progress";
import { prng } from "../../analysis/stats/prng";
import { idleFor, measure, measureOpen, must, stageDeadline, StageSetupError, type MeasureContext, type Outcome } from "./measure";
import { RuntimeLost, StallClock, type RuntimeWatch } from "../host/runtimeWatch";
import {
  BURST_CONCURRENCY,
  catalogEntry,
  idleEntry,
  metricsOf,
  OPEN_MAX_IN_FLIGHT,
  sampleCount,
  SCALE_BURST_CONCURRENCY,
  sideMeasures,
  WORKLOAD,
  type Group,
  type SampleCounts,
} from "../../analysis/contract/catalog";
import type { SideProfile } from "../../analysis/contract/sideProfile";
import { idleLabel, idleMetric, coldRequired } from "../../analysis/contract/idleLadder";
import { runLadder } from "./idleLadder";
import {
  CAPACITY,
  CAPACITY_OPS,
  capacityMetric,
  maxSteps,
  nextRate,
  searchBounds,
  stepVerdict,
  stepWatch,
  type CapacityObjective,
  type CapacityOp,
} from "../../analysis/contract/capacity";

import type { ActorClass, Op } from "../../analysis/contract/operations";
export type { ActorClass, Op };
/** An actor to call: a new (or known) one by key, or a running one by the id a reply gave. */
export type ActorRef = { key: string; actor: ActorClass } | { id: string };

/** One timed call's outcome, with the id of the actor that answered. */
export type SideOutcome = (Outcome & { ok: false }) | (Outcome & { ok: true; actorId: string });

/** The differences between the sides that cannot be avoided, stated once per side (same keys on both). */
export interface AdapterProperties {
  /** Which clock a sample's `ms` is. */
  clock: string;
  /** How a new actor is created by its first request. */
  create: string;
  /** How an actor is put to sleep before a wake. */
  sleep: string;
  /** What the actor without storage is. */
  plainActor: string;
  /** When the store actor's table is created. */
  storeSchema: string;
  /** What the actor itself reports besides the cold flag. */
  inActor: string;
  /** Stages only this side has. */
  sideOnlyStages: string;
  /** How preparations (actors made for a later measurement, never samples) are paced. */
  preparationPace: string;
  /** How the report computes this side's closed-loop throughput. */
  throughput: string;
  /** How long actors stay idle before a wake, and from when. */
  wakeIdle: string;
  /** The arrival rates of the side's open-model stages (the catalog's). */
  openModelRates: string;
  /** After how much idle the runtime itself sleeps or evicts an actor no one calls (the idle ladder's threshold). */
  idleSleep: string;
}

/** Which actors are asleep after a sleep (the rest failed to, each failure said); how many were asleep before it. */
export interface SleepOutcome {
  asleep: string[];
  failures: string[];
  alreadyAsleep?: number;
}

export interface SideAdapter {
  readonly side: string;
  /** The side's profile (its package's): which optional metrics and open-model rates it measures. */
  readonly profile: SideProfile;
  readonly properties: AdapterProperties;
  /** How long slept actors stay idle before their wake (after the runtime confirms them asleep, or past its eviction). */
  readonly wakeIdleMs: number;
  /**
   * The idle after which the runtime itself has surely slept or evicted an
   * actor no one called: an idle ladder step longer than it must prove a
   * fresh instance on every wake; at or below it the cold flag is reported.
   */
  readonly idleSleepMs: number;
  /** One timed call. Never throws, never retries. */
  call(ref: ActorRef, op: Op, arg?: number): Promise<SideOutcome>;
  /** The runtime's own log on this machine, read after each stage for failures that come from a machine limit. */
  runtimeLog?: { name: string; file: string };
  /**
   * The most actors this machine lets the runtime keep awake at once (local
   * runtime: its open-file limit over the files a live actor holds). Preparations
   * wait to stay under it; measured stages are never paced (the run refuses
   * up front when one could exceed it).
   */
  readonly maxLiveActors?: number;
  /**
   * Puts the actors to sleep; resolves when the runtime confirms it, or at once
   * where the runtime evicts by idle alone. Past `deadlineMs` it tells no more
   * actors to sleep: those left count as failures, said so.
   */
  sleep(actorIds: string[], progress?: Progress, deadlineMs?: number): Promise<SleepOutcome>;
  /** True where nothing puts an actor to sleep but idle time (wakeIdleMs of it): the profile's sleepsByIdleOnly. */
  readonly sleepsByIdleOnly?: boolean;
  /** Stages only this side has, run after the group's shared stages. */
  readonly sideOnly?: Partial<Record<Group, (ctx: PlanContext) => Promise<void>>>;
}

export interface PlanContext extends MeasureContext {
  adapter: SideAdapter;
  counts: SampleCounts;
  /** Unique per run, so actor keys never collide with an earlier run on the same runtime. */
  keyPrefix: string;
  /** Setup calls tried a second time since the last stage was recorded (they go into its notes). */
  setupRetries?: string[];
  /** What preparations since the last stage met: machine limits named, waits to stay under maxLiveActors (into the next stage's notes). */
  preparationNotes?: Record<string, unknown>[];
  /** The run's actors on this side (trackActors); without it no start state is kept. */
  census?: ActorCensus;
  /** What the group this context runs started from (set by runGroup on the group's own copy). */
  groupStart?: GroupStart;
  /** The scaling group's levels (the preset's). */
  scaleLevels?: readonly number[];
  /** What a capacity step must keep (CAPACITY.objective unless the run sets its p99). */
  capacityObjective?: CapacityObjective;
  /** A wait that keeps the CPU lock (a plain timer unless a test replaces it). */
  hold?: (ms: number) => Promise<void>;
  /** The idle ladder's lengths, ms, ascending (the run's --idle-ladder). */
  idleLadder?: readonly number[];
}

/**
 * The state a group starts from, the same protocol on every side: every actor
 * the run made before it is asleep (the runtime confirms it, or on a runtime
 * that sleeps by idle alone, the last call to any of them is wakeIdleMs old).
 */
export interface GroupStart {
  group: Group;
  /** Actors of this run on this side, and how many were awake, when the group was reached. */
  before: ActorCount;
  /** The same after putting them to sleep: what the group's first stage starts from. */
  atStart: ActorCount;
  /** Time spent putting them to sleep (or waiting out their idle eviction). */
  settleMs: number;
  /** Sleep calls that failed (those actors stay counted as awake). */
  sleepFailures: number;
}

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
      // A runtime that sleeps by idle alone confirms nothing: its census counts idle time instead.
      if (!adapter.sleepsByIdleOnly) {
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
const holdOf = (ctx: PlanContext) =>
  ctx.hold ?? ((ms: number) => (ctx.runtime ? ctx.runtime.sleep(ms) : new Promise<void>((r) => setTimeout(r, ms))));

/** A census for the adapter's side: idle eviction counted where the runtime has nothing else. */
export function censusFor(adapter: SideAdapter, now: () => number = Date.now): ActorCensus {
  return new ActorCensus(adapter.sleepsByIdleOnly ? adapter.wakeIdleMs : null, now);
}

/**
 * Brings the side to the start state before a group: awake actors are told to
 * sleep and confirmed, or, where the runtime sleeps by idle alone, the group
 * waits until the last call to any of them is wakeIdleMs old. The wait keeps
 * the CPU lock: no other group may wake actors meanwhile.
 */
export async function settleBeforeGroup(ctx: PlanContext, group: Group): Promise<GroupStart | undefined> {
  const settled = await settleAll(ctx, group);
  return settled && { group, ...settled };
}

/** Puts every awake actor of the run on this side to sleep (see settleBeforeGroup); `what` names the step. */
export async function settleAll(ctx: PlanContext, what: string): Promise<Omit<GroupStart, "group"> | undefined> {
  const census = ctx.census;
  if (!census) return undefined;
  const { adapter } = ctx;
  const before = census.count();
  const t0 = census.clock();
  let sleepFailures = 0;
  const awake = census.awake();
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
function startState(ctx: PlanContext): Record<string, unknown> {
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

/** Measures a catalog metric on the context's side: n, coldness and side from the catalog. */
export function measureStage(
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
  return measure({
    ctx,
    side: ctx.adapter.side,
    metric,
    n: o.n ?? stageSize(ctx, metric),
    concurrency: o.concurrency ?? 1,
    call,
    notes,
    onFailure: limits.onFailure,
    endNotes,
  });
}

const fresh = (ctx: PlanContext, metric: string, i: number, actor: ActorClass): ActorRef => ({
  key: `${ctx.keyPrefix}-${metric}-${i}`,
  actor,
});

/** The op a metric's first request makes, and the actor class it needs. */
const FIRST_REQUEST: Record<"ping" | "read" | "write", { op: Op; arg?: number; actor: ActorClass }> = {
  ping: { op: "ping", actor: "plain" },
  read: { op: "read", arg: 1, actor: "store" },
  write: { op: "write", actor: "store" },
};
const firstRequestOf = (metric: string) => {
  const first = catalogEntry(metric).firstRequest;
  if (!first) throw new Error(`${metric} has no first request in the catalog (analysis/contract/catalog.ts)`);
  return FIRST_REQUEST[first];
};

/** Creates: a new actor per sample, whose first request is a ping, a point read or a write. */
async function createGroup(ctx: PlanContext): Promise<void> {
  for (const metric of ["create.ping", "create.read", "create.write"]) {
    const f = firstRequestOf(metric);
    await measureStage(ctx, metric, (i) => ctx.adapter.call(fresh(ctx, metric, i, f.actor), f.op, f.arg));
  }
}

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
export function livePacer(
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

/** The plan's wall clock, ms: the census's (a test's fake one), else Date.now. */
const clockOf = (ctx: PlanContext): (() => number) => ctx.census?.clock ?? Date.now;

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

/** Warm round trips: one running actor, warmed up, then pinged by id. */
async function warmGroup(ctx: PlanContext): Promise<void> {
  const first = await setup(ctx, "warm actor create", () => ctx.adapter.call({ key: `${ctx.keyPrefix}-warm`, actor: "plain" }, "ping"));
  const ref: ActorRef = { id: first.actorId };
  for (let i = 0; i < WORKLOAD.warmupCalls; i++) await setup(ctx, "warm-up", () => ctx.adapter.call(ref, "ping"));
  await measureStage(ctx, "warm.ping", () => ctx.adapter.call(ref, "ping"), { notes: { warmupCalls: WORKLOAD.warmupCalls } });
}

/** Point reads, writes and scans on one seeded store actor that has slept and woken once. */
async function sqliteGroup(ctx: PlanContext): Promise<void> {
  const ref = await wokenOnce(ctx, "store", "sqlite", WORKLOAD.scanRows);
  const rnd = prng(WORKLOAD.readSeed);
  const notes = { seededRows: WORKLOAD.scanRows, wokenOnce: true };
  await measureStage(ctx, "sqlite.read", () => ctx.adapter.call(ref, "read", 1 + Math.floor(rnd() * WORKLOAD.scanRows)), { notes });
  await measureStage(ctx, "sqlite.write", () => ctx.adapter.call(ref, "write"), { notes });
  await measureStage(ctx, "sqlite.scan", () => ctx.adapter.call(ref, "scan"), { notes });
}

/** Sequential durable writes on one store actor that has slept and woken once. */
async function seqwriteGroup(ctx: PlanContext): Promise<void> {
  const ref = await wokenOnce(ctx, "store", "seqwrite", 0);
  await measureStage(ctx, "seqwrite", () => ctx.adapter.call(ref, "write"), { notes: { wokenOnce: true } });
}

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
        sets.set(idleMs, await prepareActors(ctx, metric, stageSize(ctx, metric), (i) => fresh(ctx, metric, i, "plain"), "ping"));
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

/** Filler actors for the scaling group are made this many at a time (setup, not measured). */
export const SCALE_FILL_CONCURRENCY = 16;

/** How every side's preparations go, unless a machine limit paces them further (SideAdapter.maxLiveActors). */
export const PREPARE_PACE = `wake sets ${PREPARE_CONCURRENCY} at a time, scaling fillers ${SCALE_FILL_CONCURRENCY} at a time, as fast as the runtime answers`;

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
    const settled = await settleAll(ctx, `scale e${level}`);
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

/** Running actors for a capacity search of warm calls (plain actors) or writes (store actors), each warmed up. */
async function capacityPool(ctx: PlanContext, op: Exclude<CapacityOp, "create">): Promise<string[]> {
  const actor: ActorClass = op === "warm" ? "plain" : "store";
  const ids: string[] = [];
  for (let k = 0; k < CAPACITY.pool; k++) {
    const first = await setup(ctx, `capacity ${op} pool actor ${k}`, () =>
      ctx.adapter.call({ key: `${ctx.keyPrefix}-capacity-${op}-${k}`, actor }, "ping"),
    );
    ids.push(first.actorId);
  }
  for (let c = 0; c < CAPACITY.warmupCalls; c++)
    for (const id of ids) await setup(ctx, `capacity ${op} warm-up`, () => ctx.adapter.call({ id }, "ping"));
  return ids;
}

/**
 * Capacity: for warm calls, creates and one-row writes, the highest open-model
 * rate the side holds under the objective, found by nextRate's search; every
 * step is a stage of its own (its samples, its CPU), stopped as soon as it has
 * missed. Where a machine limit caps the actors live at once, a create step
 * first lets earlier actors go (settleAll) and never brings more to life than
 * the limit: its arrivals are capped, said in its notes.
 */
async function capacityGroup(ctx: PlanContext): Promise<void> {
  const { adapter } = ctx;
  const objective = ctx.capacityObjective ?? CAPACITY.objective;
  for (const op of CAPACITY_OPS) {
    const pool = op === "create" ? [] : await capacityPool(ctx, op);
    const bounds = searchBounds(op);
    const steps: Array<{ rate: number; held: boolean }> = [];
    for (let rate = nextRate(steps, bounds); rate !== null; rate = nextRate(steps, bounds)) {
      const metric = capacityMetric(op, rate);
      let planned = stageSize(ctx, metric);
      let cappedBy: string | undefined;
      if (op === "create" && adapter.maxLiveActors !== undefined && ctx.census) {
        if (ctx.census.count().awake + planned > adapter.maxLiveActors) await settleAll(ctx, `capacity ${metric}`);
        if (planned > adapter.maxLiveActors) {
          planned = adapter.maxLiveActors;
          cappedBy = `at most ${adapter.maxLiveActors} actors live at once on this machine`;
        }
      }
      const written: Array<{ ok: boolean; ms: number; cold?: boolean | null }> = [];
      const watch = stepWatch(planned, objective, op === "create");
      const limits = limitWatch(ctx, metric);
      await measureOpen({
        ctx,
        side: adapter.side,
        metric,
        ratePerSecond: rate,
        n: planned,
        maxInFlight: OPEN_MAX_IN_FLIGHT,
        notes: { ...startState(ctx), capacity: { op, planned, objective, ...(cappedBy ? { cappedBy } : {}), pool: pool.length } },
        call: (i) =>
          op === "create"
            ? adapter.call(fresh(ctx, metric, i, "plain"), "ping")
            : adapter.call({ id: pool[i % pool.length] }, op === "warm" ? "ping" : "write"),
        stopWhen: (x) => (written.push(x), watch(x)),
        ...limits,
      });
      const verdict = stepVerdict(planned, written, objective, op === "create");
      steps.push({ rate, held: verdict.held });
      ctx.progress.note(`${adapter.side} ${metric}: ${verdict.held ? "held" : `missed (${verdict.why})`}`);
      await holdOf(ctx)(CAPACITY.restMs);
    }
  }
}

/** The most time a capacity search takes on one side, its steps at full length (a plan's estimate; most searches end sooner). */
export function capacityBoundMs(counts: SampleCounts): number {
  return CAPACITY_OPS.reduce((t, op) => t + maxSteps(searchBounds(op)) * (counts.capacitySeconds * 1000 + CAPACITY.restMs), 0);
}

const SHARED: Record<Group, (ctx: PlanContext) => Promise<void>> = {
  create: createGroup,
  wake: wakeGroup,
  warm: warmGroup,
  sqlite: sqliteGroup,
  seqwrite: seqwriteGroup,
  burst: burstGroup,
  idle: idleGroup,
  capacity: capacityGroup,
  scale: scaleGroup,
};

/** Runs one group on the context's side: the shared stages, then the side's own. */
export async function runGroup(group: Group, ctx: PlanContext): Promise<void> {
  ctx.runtime?.check();
  // The group's own context: groups overlap (a wake group idles while others run), each keeps its start.
  const own: PlanContext = { ...ctx, groupStart: await settleBeforeGroup(ctx, group) };
  await SHARED[group](own);
  await ctx.adapter.sideOnly?.[group]?.(own);
}

/** Groups whose idle wait (before a wake) lets later groups measure meanwhile, and groups that still run last and alone. */
export const OVERLAPPING_GROUPS: ReadonlySet<Group> = new Set(["wake", "sqlite", "seqwrite", "idle"]);

/**
 * What a group does on a side, as data: the actors it prepares a few at a
 * time before it measures (never samples), the idle it waits while other groups may measure
 * (before its wakes), the idle it waits holding the lock (the scaling group,
 * one a level), and the stages it measures with their sample counts. The
 * group functions above do exactly this (workloads/experiment/stagePlan.test.ts
 * runs them and holds them to it), and a cloud pass's estimate is computed
 * from it (passPlan.ts), so plan and estimate cannot drift.
 */
export interface GroupShape {
  prepared: number;
  sharedIdleMs: number;
  heldIdleMs: number;
  stages: Array<{ metric: string; n: number }>;
  /** Time set by the clock, not by the calls (the capacity search's steps, at most), holding the lock. */
  timedMs: number;
}

export function groupShape(
  group: Group,
  o: {
    profile: Pick<SideProfile, "optionalMetrics" | "openRates">;
    counts: SampleCounts;
    scaleLevels: readonly number[];
    wakeIdleMs: number;
    idleLadder: readonly number[];
  },
): GroupShape {
  const entries = group === "idle" ? o.idleLadder.map(idleEntry) : metricsOf(o.profile, group).map((metric) => catalogEntry(metric));
  const stages = entries
    .filter((e) => !e.scale || o.scaleLevels.includes(e.scale.level))
    .map((e) => ({ metric: e.id, n: sampleCount(e, o.counts) }));
  const n = (metric: string) => stages.find((s) => s.metric === metric)?.n ?? 0;
  const levels = [...o.scaleLevels];
  const prepared =
    group === "wake"
      ? n("wake.ping") + n("wake.read") + n("wake.write")
      : group === "idle"
        ? stages.reduce((t, x) => t + x.n, 0)
        : group === "scale"
          ? Math.max(0, ...levels) + levels.reduce((t, level) => t + n(`scale.wake.e${level}`), 0)
          : 0;
  return {
    prepared,
    sharedIdleMs: group === "idle" ? Math.max(0, ...o.idleLadder) : OVERLAPPING_GROUPS.has(group) ? o.wakeIdleMs : 0,
    heldIdleMs: group === "scale" ? levels.length * o.wakeIdleMs : 0,
    stages,
    timedMs: group === "capacity" ? capacityBoundMs(o.counts) : 0,
  };
}
export const LAST_GROUPS: ReadonlySet<Group> = new Set(["burst", "capacity", "scale"]);
