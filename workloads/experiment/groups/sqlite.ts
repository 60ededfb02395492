import { WORKLOAD } from "../../../analysis/contract/catalog";
import { prng } from "../../../analysis/stats/prng";
import { measureStage, wokenOnce } from "../stageKit";
import type { PlanContext } from "../adapter";
import type { GroupUnit } from "./unit";

/** Point reads, writes and scans on one seeded store actor that has slept and woken once. */
async function sqliteGroup(ctx: PlanContext): Promise<void> {
  const ref = await wokenOnce(ctx, "store", "sqlite", WORKLOAD.scanRows);
  const rnd = prng(WORKLOAD.readSeed);
  const notes = { seededRows: WORKLOAD.scanRows, wokenOnce: true };
  await measureStage(ctx, "sqlite.read", () => ctx.adapter.call(ref, "read", 1 + Math.floor(rnd() * WORKLOAD.scanRows)), { notes });
  await measureStage(ctx, "sqlite.write", () => ctx.adapter.call(ref, "write"), { notes });
  await measureStage(ctx, "sqlite.scan", () => ctx.adapter.call(ref, "scan"), { notes });
}

export const sqlite: GroupUnit = { run: sqliteGroup, order: "overlapping" };
