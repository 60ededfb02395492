import type { Group, MetricEntry, SampleCounts } from "../../../analysis/contract/catalog";
import type { SideProfile } from "../../../analysis/contract/sideProfile";
import type { PlanContext } from "../adapter";

/** What a group's shape is computed from: the side's profile and the run's counts, levels and idles. */
export interface ShapeInput {
  profile: Pick<SideProfile, "optionalMetrics" | "openRates">;
  counts: SampleCounts;
  scaleLevels: readonly number[];
  wakeIdleMs: number;
  idleLadder: readonly number[];
}

/**
 * What a group does on a side, as data: the actors it prepares a few at a
 * time before it measures (never samples), the idle it waits while other groups may measure
 * (before its wakes), the idle it waits holding the lock (the scaling group,
 * one a level), and the stages it measures with their sample counts. A group's
 * run does exactly this (workloads/experiment/stagePlan.test.ts runs each and
 * holds it to it), and a cloud pass's estimate is computed from it
 * (passPlan.ts), so plan and estimate cannot drift.
 */
export interface GroupShape {
  prepared: number;
  sharedIdleMs: number;
  heldIdleMs: number;
  stages: Array<{ metric: string; n: number }>;
  /** Time set by the clock, not by the calls (the capacity search's steps, at most), holding the lock. */
  timedMs: number;
}

/**
 * One group, declared once: how it measures, where it goes in a pass, and its
 * shape. Planning (passPlan.ts, the local run's order) and running read this
 * one declaration.
 */
export interface GroupUnit {
  /** Measures the group's shared stages on the context's side (the side's own stages follow, from its adapter). */
  run(ctx: PlanContext): Promise<void>;
  /**
   * Where it goes in a pass: "overlapping", its idle wait (before its wakes)
   * lets later groups measure meanwhile; "last", after every other group, alone;
   * "inline", in order.
   */
  order: "overlapping" | "last" | "inline";
  /**
   * Run once with every side's runtime up together, after the sides' own runs,
   * rather than side by side: the idle ladder, whose long waits measure nothing,
   * so the sides' waits overlap while each wake is still measured alone under
   * the one lock.
   */
  joint?: boolean;
  /** Its stages' catalog entries where they are not the catalog's for the group (the idle ladder's steps). */
  entries?: (o: ShapeInput) => MetricEntry[];
  /**
   * What its shape has besides its stages, where not nothing: actors prepared,
   * idle held, time set by the clock; the idle it shares is the wake idle when
   * it overlaps, unless it says otherwise.
   */
  shape?: (o: ShapeInput, n: (metric: string) => number, stages: GroupShape["stages"]) => Partial<Omit<GroupShape, "stages">>;
}

export type { Group };
