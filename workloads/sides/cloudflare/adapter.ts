/** The Durable Object side of the stage plan: one Worker invocation per call, timed by the Worker. */
import type { ActorRef, AdapterProperties, Op, PlanContext, SideAdapter, SideOutcome, SleepOutcome } from "../../experiment/adapter";
import { PREPARE_PACE } from "../../experiment/prepare";
import { measureStage } from "../../experiment/stageKit";
import type { DoTarget, WorkerClient } from "./workerClient";
import { THROUGHPUT_TEXT } from "../../../analysis/contract/catalog";
import { CLOUDFLARE_PROFILE } from "./profile";

const CLOUDFLARE_PROPERTIES: Omit<AdapterProperties, "wakeIdle" | "openModelRates" | "preparationPace" | "idleSleep"> = {
  alarm: "the Alarms API (ctx.storage.setAlarm, the alarm() handler); asleep: storage.sync(), then DurableObjectState.abort()",
  clock: "the Worker's Date.now() around the awaited DO call (the reference's); the driver's own round trip is kept as clientMs",
  create: "one Worker invocation calling a DO by a new name (idFromName); the first call is the sample",
  sleep: "no sleep call exists: the DO is left idle past the runtime's eviction, and its cold flag proves it was evicted",
  settle:
    "the DOs earlier groups left live are dropped at once with DurableObjectState.abort() (the Worker's /reset; the next call to each is a fresh instance, its storage kept); one that does not reset is waited out past the runtime's eviction",
  plainActor: "the one SQLite-backed DO class; ping touches no SQL",
  storeSchema: "CREATE TABLE IF NOT EXISTS on an instance's first SQL call",
  inActor: "none (a Worker's clocks do not advance during CPU work); Cloudflare's analytics give the in-DO wall time on a cloud stack",
  sideOnlyStages: "create.unique (a DO by newUniqueId), baseline.noop (client to Worker, no DO call)",
  throughput: THROUGHPUT_TEXT[CLOUDFLARE_PROFILE.throughputMethod].text,
};

/** The settle of --cf-settle wait, the way of runs before the reset. */
const SETTLE_BY_WAITING =
  "the group waits, holding the CPU lock, until the last call to any DO earlier groups left live is older than the wake idle (past the runtime's eviction)";

/** Resets the DOs (the Worker's /reset): those it dropped, and each one it could not with why. */
async function resetAll(client: WorkerClient, ids: string[]): Promise<SleepOutcome> {
  const out = await Promise.all(ids.map(async (id) => ({ id, r: await client.reset(id) })));
  return { asleep: out.filter((x) => x.r.ok).map((x) => x.id), failures: out.flatMap((x) => (x.r.ok ? [] : [`${x.id}: ${x.r.error}`])) };
}

const target = (ref: ActorRef): DoTarget => ("id" in ref ? { id: ref.id } : { name: ref.key });

async function createUnique(ctx: PlanContext, client: WorkerClient): Promise<void> {
  await measureStage(ctx, "create.unique", () => client.call("ping", { unique: true }), { notes: { by: "unique id" } });
}

async function noopBaseline(ctx: PlanContext, client: WorkerClient): Promise<void> {
  await measureStage(ctx, "baseline.noop", () => client.noop(), { notes: { clock: "client round trip to the Worker, no DO call" } });
}

/** `wakeIdleMs` must exceed the runtime's eviction (local workerd: about 10 s; Cloudflare: minutes). */
export function cloudflareAdapter(
  client: WorkerClient,
  o: {
    wakeIdleMs: number;
    evictionMs: number;
    eviction: string;
    runtimeLog?: SideAdapter["runtimeLog"];
    maxLiveActors?: number;
    /** wait: no release; every settle waits out the eviction. */
    settle?: "reset" | "wait";
  },
): SideAdapter {
  return {
    side: CLOUDFLARE_PROFILE.id,
    profile: CLOUDFLARE_PROFILE,
    ...(o.runtimeLog ? { runtimeLog: o.runtimeLog } : {}),
    ...(o.maxLiveActors !== undefined ? { maxLiveActors: o.maxLiveActors } : {}),
    properties: {
      ...CLOUDFLARE_PROPERTIES,
      preparationPace:
        o.maxLiveActors !== undefined
          ? `${PREPARE_PACE}; then held to at most ${o.maxLiveActors} DOs live at once, what local workerd's open-file limit allows (3 files per live DO)`
          : PREPARE_PACE,
      wakeIdle: `${o.wakeIdleMs} ms after the last call (longer than the runtime's eviction)`,
      openModelRates: `${CLOUDFLARE_PROFILE.openRates.join(", ")} creates per second`,
      idleSleep: `${o.eviction}; a wake after more than ${o.evictionMs} ms idle must prove a fresh instance`,
      ...(o.settle === "wait" ? { settle: SETTLE_BY_WAITING } : {}),
    },
    wakeIdleMs: o.wakeIdleMs,
    idleSleepMs: o.evictionMs,
    origin: client.origin,
    async call(ref: ActorRef, op: Op, arg?: number): Promise<SideOutcome> {
      const r = await client.call(op, target(ref), arg);
      return r.ok
        ? {
            ok: true,
            ms: r.ms,
            clientMs: r.clientMs,
            ...(r.colo ? { colo: r.colo } : {}),
            ...(r.rows ? { rows: r.rows } : {}),
            reply: r.reply,
            actorId: r.id,
          }
        : r;
    },
    sleep: async (ids) => ({ asleep: ids, failures: [] }),
    ...(o.settle === "wait" ? {} : { release: (ids: string[]) => resetAll(client, ids) }),
    sleepsByIdleOnly: CLOUDFLARE_PROFILE.sleepsByIdleOnly,
    sideOnly: { create: (ctx) => createUnique(ctx, client), warm: (ctx) => noopBaseline(ctx, client) },
  };
}
