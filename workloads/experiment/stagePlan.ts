/**
 * The stage plan, written once for every side against a SideAdapter
 * (adapter.ts), as serverless benchmark suites write an experiment once
 * against a platform interface. Each group is one unit in groups/ (its run,
 * order and shape declared together); this file lists them and runs one.
 * Every side gets the same preparation, counts and failure rules; what cannot
 * be the same is an adapter property, recorded in the manifest and listed by
 * the report.
 */
import { catalogEntry, GROUPS, metricsOf, sampleCount, type Group } from "../../analysis/contract/catalog";
import type { PlanContext } from "./adapter";
import { settleBeforeGroup } from "./stageKit";
import type { GroupShape, GroupUnit, ShapeInput } from "./groups/unit";
import { burst } from "./groups/burst";
import { capacity, ceiling } from "./groups/capacity";
import { create } from "./groups/create";
import { idle } from "./groups/idle";
import { payload } from "./groups/payload";
import { alarms } from "./groups/alarms";
import { scale } from "./groups/scale";
import { seqwrite } from "./groups/seqwrite";
import { sqlite } from "./groups/sqlite";
import { wake } from "./groups/wake";
import { warm } from "./groups/warm";

/** Every group's one declaration. */
const GROUP_UNITS: Readonly<Record<Group, GroupUnit>> = {
  create,
  wake,
  warm,
  sqlite,
  seqwrite,
  payload,
  alarms,
  idle,
  burst,
  ceiling,
  capacity,
  scale,
};

/** Runs one group on the context's side: the shared stages, then the side's own. */
export async function runGroup(group: Group, ctx: PlanContext): Promise<void> {
  ctx.runtime?.check();
  // The group's own context: groups overlap (a wake group idles while others run), each keeps its start.
  const own: PlanContext = { ...ctx, groupStart: await settleBeforeGroup(ctx, group) };
  await GROUP_UNITS[group].run(own);
  await ctx.adapter.sideOnly?.[group]?.(own);
}

const groupsWhere = (test: (u: GroupUnit) => boolean): ReadonlySet<Group> => new Set(GROUPS.filter((g) => test(GROUP_UNITS[g])));
/** Groups whose idle wait (before a wake) lets later groups measure meanwhile. */
export const OVERLAPPING_GROUPS = groupsWhere((u) => u.order === "overlapping");
/** Groups that run last and alone. */
export const LAST_GROUPS = groupsWhere((u) => u.order === "last");
/** Groups a local repetition runs once with every side's runtime up (GroupUnit.joint). */
export const JOINT_GROUPS = groupsWhere((u) => u.joint === true);

/** A group's shape on a side (GroupShape), from its unit. */
export function groupShape(group: Group, o: ShapeInput): GroupShape {
  const unit = GROUP_UNITS[group];
  const entries = unit.entries?.(o) ?? metricsOf(o.profile, group).map((metric) => catalogEntry(metric));
  const stages = entries
    .filter((e) => !e.scale || o.scaleLevels.includes(e.scale.level))
    .map((e) => ({ metric: e.id, n: sampleCount(e, o.counts) }));
  const n = (metric: string) => stages.find((s) => s.metric === metric)?.n ?? 0;
  return {
    prepared: 0,
    sharedIdleMs: unit.order === "overlapping" ? o.wakeIdleMs : 0,
    heldIdleMs: 0,
    timedMs: 0,
    ...unit.shape?.(o, n, stages),
    stages,
  };
}

export type { GroupShape };
