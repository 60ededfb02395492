import { idleFor, measure as measureShared, measureOpen, must, type MeasureContext, type MeasureOpts } from "../measure";
import { prng } from "../prng";
import { BURST_CONCURRENCY, OPEN_MAX_IN_FLIGHT, OPEN_RATES, type Group, type SampleCounts } from "../presets";
import type { DoOp, DoTarget, WorkerClient } from "./workerClient";

export interface CloudflareStageContext extends MeasureContext {
  client: WorkerClient;
  counts: SampleCounts;
  keyPrefix: string;
  /** How long the DOs to wake stay idle: longer than the runtime's eviction (locally ~10 s; Cloudflare: minutes). */
  wakeIdleMs: number;
}

const SIDE = "cloudflare";
const SCAN_ROWS = 1000;

function measure(o: Omit<MeasureOpts, "side" | "ctx"> & { ctx: CloudflareStageContext }) {
  return measureShared({ ...o, side: SIDE });
}

const named = (ctx: CloudflareStageContext, metric: string, i: number): DoTarget => ({ name: `${ctx.keyPrefix}-${metric}-${i}` });

/** Creates: one Worker invocation that calls a brand-new DO, by name or by unique id. */
export async function createStages(ctx: CloudflareStageContext): Promise<void> {
  const rows: Array<[string, number, DoOp, number | undefined]> = [
    ["create.ping", ctx.counts.createPing, "ping", undefined],
    ["create.read", ctx.counts.createRead, "read", 1],
    ["create.write", ctx.counts.createWrite, "write", undefined],
  ];
  for (const [metric, n, op, arg] of rows) {
    await measure({ ctx, metric, n, concurrency: 1, coldMetric: true, notes: { by: "name" }, call: (i) => ctx.client.call(op, named(ctx, metric, i), arg) });
  }
  await measure({ ctx, metric: "create.unique", n: ctx.counts.createPing, concurrency: 1, coldMetric: true, notes: { by: "unique id" },
    call: () => ctx.client.call("ping", { unique: true }) });
}

/**
 * Wakes: DOs are created (the SQLite sets with a row), left idle for
 * wakeIdleMs so the runtime evicts them, then woken by one call each. The
 * DO's cold flag proves the eviction; a DO that was not evicted is counted as
 * notCold, never hidden.
 */
export async function wakeStages(ctx: CloudflareStageContext): Promise<void> {
  const sets: Array<{ metric: string; op: DoOp; arg?: number; ids: string[] }> = [
    { metric: "wake.ping", op: "ping", ids: [] },
    { metric: "wake.read", op: "read", arg: 1, ids: [] },
    { metric: "wake.write", op: "write", ids: [] },
  ];
  ctx.progress.note(`cloudflare wake: preparing ${sets.length} x ${ctx.counts.wake} DOs`);
  for (const s of sets) {
    for (let i = 0; i < ctx.counts.wake; i++) {
      const prep: DoOp = s.metric === "wake.ping" ? "ping" : "write";
      s.ids.push(must(await ctx.client.call(prep, named(ctx, s.metric, i)), `${s.metric} preparation`).id);
    }
  }
  const idleSince = Date.now();
  ctx.progress.note(`cloudflare wake: DOs idle for ${ctx.wakeIdleMs} ms`);
  await idleFor(ctx, ctx.wakeIdleMs);
  const idleMs = Date.now() - idleSince;
  for (const s of sets) {
    await measure({ ctx, metric: s.metric, n: s.ids.length, concurrency: 1, coldMetric: true,
      notes: { idleAtLeastMs: ctx.wakeIdleMs, idleSince: new Date(idleSince).toISOString(), idleBeforeFirstWakeMs: idleMs },
      call: (i) => ctx.client.call(s.op, { id: s.ids[i] }, s.arg) });
  }
}

const WARMUP_CALLS = 5;

export async function warmStages(ctx: CloudflareStageContext): Promise<void> {
  const t: DoTarget = { name: `${ctx.keyPrefix}-warm` };
  for (let i = 0; i < WARMUP_CALLS; i++) must(await ctx.client.call("ping", t), "warm-up");
  await measure({ ctx, metric: "warm.ping", n: ctx.counts.warm, concurrency: 1, coldMetric: false, notes: { warmupCalls: WARMUP_CALLS },
    call: () => ctx.client.call("ping", t) });
  await measure({ ctx, metric: "baseline.noop", n: ctx.counts.warm, concurrency: 1, coldMetric: false, notes: { clock: "client round trip to the Worker, no DO call" },
    call: () => ctx.client.noop() });
}

export async function sqliteStages(ctx: CloudflareStageContext): Promise<void> {
  const t: DoTarget = { name: `${ctx.keyPrefix}-sqlite` };
  must(await ctx.client.call("seed", t, SCAN_ROWS), "seed");
  const rnd = prng(42);
  const notes = { seededRows: SCAN_ROWS };
  await measure({ ctx, metric: "sqlite.read", n: ctx.counts.sqliteRead, concurrency: 1, coldMetric: false, notes,
    call: () => ctx.client.call("read", t, 1 + Math.floor(rnd() * SCAN_ROWS)) });
  await measure({ ctx, metric: "sqlite.write", n: ctx.counts.sqliteWrite, concurrency: 1, coldMetric: false, notes,
    call: () => ctx.client.call("write", t) });
  await measure({ ctx, metric: "sqlite.scan", n: ctx.counts.sqliteScan, concurrency: 1, coldMetric: false, notes,
    call: () => ctx.client.call("scan", t) });
}

/**
 * Burst creates of new named DOs at each concurrency, closed loop (the report's
 * rate is Little's law on Worker ms, as the reference's); then the same creates
 * in an open model at each of OPEN_RATES.cloudflare, timed on the client.
 */
export async function burstStages(ctx: CloudflareStageContext): Promise<void> {
  for (const c of BURST_CONCURRENCY) {
    const metric = `burst.c${c}`;
    await measure({ ctx, metric, n: ctx.counts.burstAttempts, concurrency: c, coldMetric: true,
      call: (i) => ctx.client.call("ping", named(ctx, metric, i)) });
  }
  for (const rate of OPEN_RATES.cloudflare) {
    const metric = `open.r${rate}`;
    await measureOpen({ ctx, side: SIDE, metric, ratePerSecond: rate, n: rate * ctx.counts.openSeconds, maxInFlight: OPEN_MAX_IN_FLIGHT, coldMetric: true,
      call: (i) => ctx.client.call("ping", named(ctx, metric, i)) });
  }
}

export async function seqWriteStage(ctx: CloudflareStageContext): Promise<void> {
  const t: DoTarget = { name: `${ctx.keyPrefix}-seqwrite` };
  must(await ctx.client.call("ping", t), "seqwrite DO create");
  await measure({ ctx, metric: "seqwrite", n: ctx.counts.seqWrite, concurrency: 1, coldMetric: false, call: () => ctx.client.call("write", t) });
}

export const CLOUDFLARE_GROUP_RUNNERS: Record<Group, (ctx: CloudflareStageContext) => Promise<void>> = {
  create: createStages,
  wake: wakeStages,
  warm: warmStages,
  sqlite: sqliteStages,
  burst: burstStages,
  seqwrite: seqWriteStage,
};
