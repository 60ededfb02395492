/**
 * The adapter contract: what the stage plan asks of a side (SideAdapter), the
 * differences between the sides it must state (AdapterProperties), and the
 * context a group runs in. The plan is written once against it (stagePlan.ts
 * and groups/); each side implements it in its own package.
 */
import type { ActorCensus, ActorCount } from "./actorCensus";
import type { Progress } from "./progress";
import type { MeasureContext, Outcome } from "./measure";
import type { Group, SampleCounts } from "../../analysis/contract/catalog";
import type { SideProfile } from "../../analysis/contract/sideProfile";
import type { CapacityObjective } from "../../analysis/contract/capacity";
import type { ActorClass, Op } from "../../analysis/contract/operations";
import type { CaptureNote } from "../../analysis/contract/hops";
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
  /** How a group reaches its start state: how the awake actors of earlier groups are let go before it. */
  settle: string;
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
  /** The runtime's own alarm the alarms group sets, and how an actor lets its instance go right after setting one. */
  alarm: string;
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
  /** Where the timed calls go (their client's origin): a packet capture finds them on the loopback by its port. */
  readonly origin?: string;
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
  /**
   * Drops the actors' instances at once where the runtime has a call for it (the next call to each is a fresh
   * instance, its storage kept). A side that sleeps by idle alone lets earlier groups' actors go this way before a
   * group instead of waiting out its eviction; a wake never uses it: it still waits the runtime's own way.
   */
  release?(actorIds: string[]): Promise<SleepOutcome>;
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
  /** Starts a packet capture of a stage (the run's --capture); measureStage calls it for the hop stages. */
  capture?: (metric: string) => Promise<StageCapture>;
}

/** A stage's capture once started: its note as the stage begins, and the full note once it is stopped. */
export interface StageCapture {
  note: CaptureNote;
  stop(): Promise<CaptureNote>;
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
