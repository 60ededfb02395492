import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { verifyRunDir } from "../analysis/verify";
import { RUN_ID, RunDirError } from "../analysis/runDirContract";
import type { RunConfig } from "./runConfig";
import { callCostsOf, estimateTask, planPass, renderSchedule, simulatePass, taskLabel, type CallCosts, type PassSchedule } from "./passPlan";

/** Where a schedule's per-request costs come from: a verified run directory. */
export interface CostSource {
  costs: CallCosts;
  runDir: string;
}

/** The per-request costs of one run directory, verified first (a tampered run estimates nothing). */
export function costsFromRun(runDir: string): CostSource {
  const m = verifyRunDir(runDir);
  return { costs: callCostsOf(m.stages), runDir };
}

/**
 * The newest run under results/<stack>/ that verifies, else the newest under
 * results/local/ (this machine's), else none: the schedule then shows the idle
 * waits alone.
 */
export function newestCosts(resultsRoot: string, stack: string): CostSource | undefined {
  for (const s of [...new Set([stack, "local"])]) {
    const dir = join(resultsRoot, s);
    if (!existsSync(dir)) continue;
    const runs = readdirSync(dir).filter((n) => RUN_ID.test(n)).sort().reverse();
    for (const run of runs) {
      try {
        return costsFromRun(join(dir, run));
      } catch (err) {
        if (!(err instanceof RunDirError)) throw err;
      }
    }
  }
  return undefined;
}

/** A cloud pass's planned schedule for a run config, with its rendering. */
export async function passSchedule(cfg: RunConfig, overlap: boolean, source: CostSource | undefined, projectDir: string): Promise<{ schedule: PassSchedule; text: string }> {
  const runs = planPass(cfg.sides, cfg.groups, overlap);
  const inputs = { counts: cfg.counts, scaleLevels: cfg.scaleLevels, idleMs: { rivet: cfg.wakeIdleMs, cloudflare: cfg.cfWakeIdleMs, floor: cfg.wakeIdleMs } };
  const costs = source?.costs ?? new Map<string, number>();
  const unknown = new Set<string>();
  const schedule = await simulatePass(runs, (t) => {
    const e = estimateTask(t, inputs, costs);
    for (const m of e.unknown) unknown.add(`${taskLabel(t).split(" ")[0]} ${m}`);
    return e;
  });
  const from = source
    ? `per-request wall times of ${relative(projectDir, source.runDir) || source.runDir} (verified; its machine's costs, not the cloud's)`
    : "no verified run under results/, so only the idle waits are counted";
  return { schedule, text: renderSchedule(schedule, from, source ? [...unknown] : []) };
}
