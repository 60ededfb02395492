import { prng } from "../prng";
import { idleFor, measure as measureShared, measureOpen, must, StageSetupError, type MeasureContext, type MeasureOpts } from "../measure";
import { BURST_CONCURRENCY, OPEN_MAX_IN_FLIGHT, OPEN_RATES, type Group, type SampleCounts } from "../presets";
import type { GatewayClient, Target } from "./gateway";
import { SCAN_ROWS } from "./actors";

export interface RivetStageContext extends MeasureContext {
  client: GatewayClient;
  counts: SampleCounts;
  /** Unique per run, so actor keys never collide with an earlier run on the same engine. */
  keyPrefix: string;
  /** How long a slept actor must be confirmed asleep before it is woken. */
  wakeIdleMs: number;
  /** Upper bound on waiting for the Engine to report actors asleep. */
  sleepConfirmTimeoutMs: number;
}

const SIDE = "rivet";

/** Rivet's measure: the shared one with side "rivet". */
function measure(o: Omit<MeasureOpts, "side" | "ctx"> & { ctx: RivetStageContext }) {
  return measureShared({ ...o, side: SIDE });
}

const key = (ctx: RivetStageContext, metric: string, i: number): Target => ({
  kind: "key",
  actor: metric.endsWith(".ping") || metric.startsWith("burst") || metric.startsWith("open") ? "plain" : "store",
  key: `${ctx.keyPrefix}-${metric}-${i}`,
});

/** Creates: getOrCreate of a new key whose first request is ping, read or write. */
export async function createStages(ctx: RivetStageContext): Promise<void> {
  const rows: Array<[string, number, string, unknown[]]> = [
    ["create.ping", ctx.counts.createPing, "ping", []],
    ["create.read", ctx.counts.createRead, "read", [1]],
    ["create.write", ctx.counts.createWrite, "write", []],
  ];
  for (const [metric, n, action, args] of rows) {
    await measure({ ctx, metric, n, concurrency: 1, coldMetric: true, call: (i) => ctx.client.call(key(ctx, metric, i), action, args) });
  }
}

/** The Engine's GET /actors accepts at most 32 actor_ids per request. */
export const ACTORS_PER_QUERY = 32;

/** Sleeps each actor explicitly, then polls the Engine until every one reports a sleep_ts. */
export async function sleepAndConfirm(ctx: RivetStageContext, actorIds: string[]): Promise<void> {
  for (const id of actorIds) must(await ctx.client.call({ kind: "id", actorId: id }, "sleep"), `sleep of actor ${id}`);
  const pending = new Set(actorIds);
  const deadline = Date.now() + ctx.sleepConfirmTimeoutMs;
  while (pending.size > 0) {
    const batch = [...pending].slice(0, ACTORS_PER_QUERY);
    for (const a of await ctx.client.actors(batch)) {
      if (a.sleep_ts !== null && a.destroy_ts === null) pending.delete(a.actor_id);
    }
    if (pending.size === 0) break;
    if (Date.now() > deadline) {
      throw new StageSetupError(`${pending.size} actors not reported asleep by the Engine within ${ctx.sleepConfirmTimeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Wakes: for each metric, actors are created (the store ones get a row), put
 * to sleep with c.sleep(), confirmed asleep through the Engine API, left idle
 * for at least wakeIdleMs, then woken by their first request. The three sets
 * share one idle wait.
 */
export async function wakeStages(ctx: RivetStageContext): Promise<void> {
  const sets: Array<{ metric: string; action: string; args: unknown[]; ids: string[] }> = [
    { metric: "wake.ping", action: "ping", args: [], ids: [] },
    { metric: "wake.read", action: "read", args: [1], ids: [] },
    { metric: "wake.write", action: "write", args: [], ids: [] },
  ];
  ctx.progress.note(`rivet wake: preparing ${sets.length} x ${ctx.counts.wake} actors`);
  // A create that fails here (the Engine's 15 s route timeout, say) leaves one
  // actor fewer to wake: it is recorded in the stage's notes and not retried.
  // Only when most fail is the group's setup a failure.
  const prepFailures = new Map<string, string[]>();
  for (const s of sets) {
    const errors: string[] = [];
    for (let i = 0; i < ctx.counts.wake; i++) {
      const r = await ctx.client.call(key(ctx, s.metric, i), s.metric === "wake.ping" ? "ping" : "write");
      if (r.ok) s.ids.push(r.actorId);
      else errors.push(r.error);
    }
    if (errors.length * 2 > ctx.counts.wake) throw new StageSetupError(`${s.metric} preparation: ${errors.length} of ${ctx.counts.wake} creates failed, e.g. ${errors[0]}`);
    prepFailures.set(s.metric, errors);
  }
  const all = sets.flatMap((s) => s.ids);
  await sleepAndConfirm(ctx, all);
  const confirmedAt = Date.now();
  ctx.progress.note(`rivet wake: ${all.length} actors confirmed asleep; idle ${ctx.wakeIdleMs} ms`);
  await idleFor(ctx, ctx.wakeIdleMs);
  const idleMs = Date.now() - confirmedAt;
  for (const s of sets) {
    await measure({
      ctx,
      metric: s.metric,
      n: s.ids.length,
      concurrency: 1,
      coldMetric: true,
      call: (i) => ctx.client.call({ kind: "id", actorId: s.ids[i] }, s.action, s.args),
      notes: {
        idleAtLeastMs: ctx.wakeIdleMs,
        confirmedAsleepAt: new Date(confirmedAt).toISOString(),
        idleBeforeFirstWakeMs: idleMs,
        preparationFailures: prepFailures.get(s.metric)!.length,
        ...(prepFailures.get(s.metric)!.length > 0 ? { preparationErrors: prepFailures.get(s.metric)!.slice(0, 3) } : {}),
      },
    });
  }
}

/** An actor that has been created, (for the store) seeded, slept and woken once. */
async function sleptAndWoken(ctx: RivetStageContext, actor: "plain" | "store", name: string, seedRows: number): Promise<Target> {
  const first = must(await ctx.client.call({ kind: "key", actor, key: `${ctx.keyPrefix}-${name}` }, "ping"), `${name} create`);
  const target: Target = { kind: "id", actorId: first.actorId };
  if (seedRows > 0) must(await ctx.client.call(target, "seed", [seedRows]), `${name} seed`);
  await sleepAndConfirm(ctx, [first.actorId]);
  const woke = must(await ctx.client.call(target, "ping"), `${name} wake`);
  if (!woke.reply.cold) throw new StageSetupError(`${name}: the wake before the series was not a fresh instance`);
  return target;
}

const WARMUP_CALLS = 5;

export async function warmStages(ctx: RivetStageContext): Promise<void> {
  const k: Target = { kind: "key", actor: "plain", key: `${ctx.keyPrefix}-warm` };
  const first = must(await ctx.client.call(k, "ping"), "warm actor create");
  const byId: Target = { kind: "id", actorId: first.actorId };
  for (let i = 0; i < WARMUP_CALLS; i++) must(await ctx.client.call(byId, "ping"), "warm-up");
  const notes = { warmupCalls: WARMUP_CALLS };
  await measure({ ctx, metric: "warm.ping", n: ctx.counts.warm, concurrency: 1, coldMetric: false, notes, call: () => ctx.client.call(byId, "ping") });
  await measure({ ctx, metric: "warm.getOrCreate", n: ctx.counts.warm, concurrency: 1, coldMetric: false, notes, call: () => ctx.client.call(k, "ping") });
}

export async function sqliteStages(ctx: RivetStageContext): Promise<void> {
  const t = await sleptAndWoken(ctx, "store", "sqlite", SCAN_ROWS);
  const rnd = prng(42);
  const notes = { seededRows: SCAN_ROWS, sleptAndWokenOnce: true };
  await measure({ ctx, metric: "sqlite.read", n: ctx.counts.sqliteRead, concurrency: 1, coldMetric: false, notes,
    call: () => ctx.client.call(t, "read", [1 + Math.floor(rnd() * SCAN_ROWS)]) });
  await measure({ ctx, metric: "sqlite.write", n: ctx.counts.sqliteWrite, concurrency: 1, coldMetric: false, notes,
    call: () => ctx.client.call(t, "write") });
  await measure({ ctx, metric: "sqlite.scan", n: ctx.counts.sqliteScan, concurrency: 1, coldMetric: false, notes,
    call: () => ctx.client.call(t, "scan") });
}

/**
 * Burst creates: `attempts` new keys per concurrency level, closed loop (the
 * reference's; rate = completions / wall time); then the same creates in an
 * open model at each of OPEN_RATES.rivet.
 */
export async function burstStages(ctx: RivetStageContext): Promise<void> {
  for (const c of BURST_CONCURRENCY) {
    const metric = `burst.c${c}`;
    await measure({ ctx, metric, n: ctx.counts.burstAttempts, concurrency: c, coldMetric: true,
      call: (i) => ctx.client.call(key(ctx, metric, i), "ping") });
  }
  for (const rate of OPEN_RATES.rivet) {
    const metric = `open.r${rate}`;
    await measureOpen({ ctx, side: SIDE, metric, ratePerSecond: rate, n: rate * ctx.counts.openSeconds, maxInFlight: OPEN_MAX_IN_FLIGHT, coldMetric: true,
      call: (i) => ctx.client.call(key(ctx, metric, i), "ping") });
  }
}

export async function seqWriteStage(ctx: RivetStageContext): Promise<void> {
  const t = await sleptAndWoken(ctx, "store", "seqwrite", 0);
  await measure({ ctx, metric: "seqwrite", n: ctx.counts.seqWrite, concurrency: 1, coldMetric: false,
    notes: { sleptAndWokenOnce: true }, call: () => ctx.client.call(t, "write") });
}

export const RIVET_GROUP_RUNNERS: Record<Group, (ctx: RivetStageContext) => Promise<void>> = {
  create: createStages,
  wake: wakeStages,
  warm: warmStages,
  sqlite: sqliteStages,
  burst: burstStages,
  seqwrite: seqWriteStage,
};
export { measure };
