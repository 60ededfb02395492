import { metricEntry, payloadMetric, WORKLOAD } from "../../../analysis/contract/catalog";
import { prng } from "../../../analysis/stats/prng";
import type { ActorRef, PlanContext } from "../adapter";
import { measureStage, setup } from "../stageKit";
import { metricsOf } from "../../../analysis/contract/catalog";
import type { GroupUnit } from "./unit";

/**
 * Writes and reads by value size: for each size the side measures, one store
 * actor of its own, created and warmed up, takes one-row writes of values of
 * that size (made inside the actor, so the request and reply stay small),
 * then point reads of the rows those writes made. A size the side refuses
 * fails each write with the runtime's error (a counted failure); its reads are
 * then of no row, so they are not taken, and the progress says so.
 */
async function payloadGroup(ctx: PlanContext): Promise<void> {
  const writes = metricsOf(ctx.adapter.profile, "payload").filter((m) => metricEntry(m)?.payload?.op === "write");
  const rnd = prng(WORKLOAD.readSeed);
  for (const metric of writes) {
    const bytes = metricEntry(metric)!.payload!.bytes;
    const first = await setup(ctx, `payload ${bytes} B actor create`, () =>
      ctx.adapter.call({ key: `${ctx.keyPrefix}-payload-${bytes}`, actor: "store" }, "ping"),
    );
    const ref: ActorRef = { id: first.actorId };
    for (let i = 0; i < WORKLOAD.warmupCalls; i++) await setup(ctx, "payload warm-up", () => ctx.adapter.call(ref, "ping"));
    let written = 0;
    await measureStage(
      ctx,
      metric,
      async () => {
        const r = await ctx.adapter.call(ref, "write", bytes);
        if (r.ok) written += 1;
        return r;
      },
      { notes: { valueBytes: bytes, madeInActor: true } },
    );
    const read = payloadMetric("read", bytes);
    if (written === 0) {
      ctx.progress.note(`${ctx.adapter.side} ${read}: not taken, no write of ${bytes} B succeeded (see ${metric}'s errors)`);
      continue;
    }
    // Rows are numbered from 1 in the actor's fresh table; each successful write added one.
    await measureStage(ctx, read, () => ctx.adapter.call(ref, "read", 1 + Math.floor(rnd() * written)), {
      notes: { valueBytes: bytes, rows: written },
    });
  }
}

export const payload: GroupUnit = { run: payloadGroup, order: "inline" };
