import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { HelpRequested, parseRunArgs, UsageError } from "./runConfig";
import { runLocalSuite } from "./run";
import { headlineTable } from "../../analysis/stats/summary";
import { generateReport } from "../../analysis/report/report";
import { enterNetns, runEntry } from "./entry";
import { failureLine } from "../../analysis/contract/cliError";
import { sideSettingsOf, type RunConfig } from "./runConfig";
import { SIDE_REGISTRY, sideOf } from "../sides/registry";

/** Why run directories cannot be written under `dir` (made if absent), or null. */
function resultsDirProblem(dir: string): string | null {
  try {
    if (existsSync(dir) && !statSync(dir).isDirectory()) return `${dir} exists and is not a folder; give a folder for the run directories`;
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return null;
  } catch (err) {
    return `${dir} cannot be written here (${failureLine(err)}); give a folder this user can write`;
  }
}

async function main(): Promise<number> {
  let cfg: RunConfig;
  try {
    cfg = parseRunArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof HelpRequested) {
      console.log(err.message);
      return 0;
    }
    if (err instanceof UsageError) {
      // A refusal is its one line.
      console.error(err.message.startsWith("usage:") ? err.message : `${failureLine(err)} (npm start -- --help lists the flags)`);
      return 2;
    }
    throw err;
  }
  const results = resultsDirProblem(cfg.resultsDir);
  if (results) {
    console.error(`--results-dir: ${results}`);
    return 2;
  }
  for (const side of cfg.sides) {
    const problem = sideOf(SIDE_REGISTRY, side).preflight?.(sideSettingsOf(cfg, side));
    if (problem) {
      console.error(problem);
      return 2;
    }
  }
  const inNetns = enterNetns([cfg]);
  if (inNetns) return inNetns;
  const out = await runLocalSuite(cfg);
  await generateReport(out.runDir);
  console.log(`\nrun directory: ${out.runDir}\nreport: ${out.runDir}/report/results.md (charts, summary.json beside it)\n`);
  console.log(headlineTable(out.rows));
  if (out.throughput.length > 0) {
    console.log("\nthroughput (measured: completions / wall time; littles-law: concurrency x 1000 / mean own-clock ms)");
    for (const t of out.throughput) {
      console.log(
        `  ${t.side.padEnd(10)} ${t.metric.padEnd(10)} ${t.perSecond.toFixed(1).padStart(8)}/s  ${t.method.padEnd(11)} (${t.errors} errors of ${t.attempts})`,
      );
    }
  }
  if (out.failures.length > 0) {
    console.error(`\n${out.failures.length} group(s) failed:\n  ${out.failures.join("\n  ")}`);
    return 1;
  }
  return 0;
}

runEntry("npm start", main);
