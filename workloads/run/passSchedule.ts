import { relative } from "node:path";
import { verifyRunDir } from "../../analysis/contract/verify";
import { RunDirError, runDirsUnder } from "../../analysis/contract/runDirContract";
import { sideSettingsOf, type RunConfig } from "./runConfig";
import { SIDE_REGISTRY, sideOf, type SideRegistry } from "../sides/registry";
import {
  callCostsOf,
  estimateTask,
  passRunName,
  planPass,
  renderSchedule,
  simulatePass,
  type CallCosts,
  type PassSchedule,
} from "../experiment/passPlan";

/** Where a schedule's per-request costs come from: verified run directories. */
interface CostSource {
  costs: CallCosts;
  runDirs: string[];
}

/** The per-request costs of one run directory, verified first (a tampered run estimates nothing). */
export function costsFromRun(runDir: string): CostSource {
  const m = verifyRunDir(runDir);
  return { costs: callCostsOf(m.stages), runDirs: [runDir] };
}

/**
 * Each stage's cost from the newest run that verifies and measured it: the
 * runs under results/<stack>/ first, then results/local/ (this machine's), so
 * a run of one group (the scaling group alone, say) adds its stages and the
 * others come from an older full run. None: the schedule shows the idle waits alone.
 */
export function newestCosts(resultsRoot: string, stack: string): CostSource | undefined {
  const costs = new Map<string, number>();
  const runDirs: string[] = [];
  const all = runDirsUnder(resultsRoot);
  for (const s of [...new Set([stack, "local"])]) {
    for (const { dir } of all.filter((r) => r.stack === s).reverse()) {
      let one: CostSource;
      try {
        one = costsFromRun(dir);
      } catch (err) {
        if (!(err instanceof RunDirError)) throw err;
        continue;
      }
      const added = [...one.costs].filter(([k]) => !costs.has(k));
      for (const [k, v] of added) costs.set(k, v);
      if (added.length > 0) runDirs.push(one.runDirs[0]);
    }
  }
  return runDirs.length ? { costs, runDirs } : undefined;
}

/** A cloud pass's planned schedule for a run config, with its rendering. */
export async function passSchedule(
  cfg: RunConfig,
  overlap: boolean,
  source: CostSource | undefined,
  projectDir: string,
  registry: SideRegistry = SIDE_REGISTRY,
): Promise<{ schedule: PassSchedule; text: string }> {
  const sides = cfg.sides.map((side) => sideOf(registry, side));
  const runs = planPass(
    sides.map((d) => d.profile),
    cfg.groups,
    overlap,
  );
  const inputs = {
    counts: cfg.counts,
    scaleLevels: cfg.scaleLevels,
    idleLadder: cfg.idleLadder,
    idleMs: Object.fromEntries(sides.map((d) => [d.profile.id, d.wakeIdleMs(sideSettingsOf(cfg, d.profile.id))])),
    profiles: Object.fromEntries(sides.map((d) => [d.profile.id, d.profile])),
  };
  const costs = source?.costs ?? new Map<string, number>();
  const unknown = new Set<string>();
  const schedule = await simulatePass(runs, (t) => {
    const e = estimateTask(t, inputs, costs);
    for (const m of e.unknown) unknown.add(`${t.side} ${m}`);
    return e;
  });
  const from = source
    ? `per-request wall times of each stage in the newest of ${source.runDirs.map((d) => relative(projectDir, d) || d).join(", ")} that measured it (verified; their machine's costs, not the cloud's)`
    : "no verified run under results/, so only the idle waits are counted";
  return { schedule, text: renderSchedule(schedule, from, source ? [...unknown] : []) };
}

/**
 * The one line that refuses a pass whose planned run would outlast the
 * runner's time limit (config actor-bench:runTimeLimitMinutes): the first such
 * run, its planned minutes and the limit. None when every run fits.
 */
export function overLimit(schedule: PassSchedule, limitMinutes: number): string | undefined {
  const long = schedule.runs.find((r) => r.endMs - r.startMs > limitMinutes * 60_000);
  if (!long) return undefined;
  const minutes = Math.ceil((long.endMs - long.startMs) / 60_000);
  return `config actor-bench:runTimeLimitMinutes: ${limitMinutes} is shorter than the planned run ${passRunName(long.run)} (about ${minutes} min); raise it to at least ${minutes + 10}, or run fewer groups (actor-bench:groups)`;
}
