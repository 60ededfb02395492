import { OPEN_MAX_IN_FLIGHT, type SampleCounts } from "../../../analysis/contract/catalog";
import {
  CAPACITY,
  CAPACITY_OPS,
  CEILING_OPS,
  capacityMetric,
  maxSteps,
  nextRate,
  opGroup,
  searchBounds,
  stepVerdict,
  stepWatch,
  type CapacityOp,
} from "../../../analysis/contract/capacity";
import { measureOpen } from "../measure";
import type { ActorClass } from "../adapter";
import { fresh, holdOf, limitWatch, settleAll, setup, stageSize, startState } from "../stageKit";
import type { PlanContext } from "../adapter";
import type { GroupUnit } from "./unit";

/** Running actors for a search of warm calls (plain actors) or writes (store actors), each warmed up: the pool, or one for the ceiling. */
async function capacityPool(ctx: PlanContext, op: Exclude<CapacityOp, "create">): Promise<string[]> {
  const actor: ActorClass = op === "warm" || op === "warm1" ? "plain" : "store";
  const size = opGroup(op) === "ceiling" ? 1 : CAPACITY.pool;
  const ids: string[] = [];
  for (let k = 0; k < size; k++) {
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
 * A search per operation: the highest open-model rate the side holds under
 * the objective, found by nextRate's search; every step is a stage of its
 * own (its samples, its CPU), stopped as soon as it has missed. Capacity
 * searches warm calls, creates and one-row writes over a pool of actors; the
 * ceiling, warm calls and writes to one actor. Where a machine limit caps the
 * actors live at once, a create step first lets earlier actors go (settleAll)
 * and never brings more to life than the limit: its arrivals are capped, said
 * in its notes.
 */
async function searchGroup(ctx: PlanContext, ops: readonly CapacityOp[]): Promise<void> {
  const { adapter } = ctx;
  const objective = ctx.capacityObjective ?? CAPACITY.objective;
  for (const op of ops) {
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
            : adapter.call({ id: pool[i % pool.length] }, op === "warm" || op === "warm1" ? "ping" : "write"),
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

/** The most time a group's searches take on one side, their steps at full length (a plan's estimate; most searches end sooner). */
function searchBoundMs(ops: readonly CapacityOp[], counts: SampleCounts): number {
  return ops.reduce((t, op) => t + maxSteps(searchBounds(op)) * (counts.capacitySeconds * 1000 + CAPACITY.restMs), 0);
}

const searchUnit = (ops: readonly CapacityOp[]): GroupUnit => ({
  run: (ctx) => searchGroup(ctx, ops),
  order: "last",
  shape: (o) => ({ timedMs: searchBoundMs(ops, o.counts) }),
});
export const capacity = searchUnit(CAPACITY_OPS);
/** One object's ceiling: the same search, every call to one actor. */
export const ceiling = searchUnit(CEILING_OPS);
