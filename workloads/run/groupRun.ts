import { spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseRunArgs, type Side } from "./runConfig";
import { createProgress } from "../experiment/progress";
import { blobDigest } from "../experiment/runDir";
import { withPdeathsig } from "../host/processes";
import { logTail } from "../host/waitFor";
import { NETNS_ENV } from "../host/netns";
import { measuredRun, measureRuntimes, type SideTargets } from "./run";
import { suiteTasks, type Task } from "../experiment/passPlan";
import { GROUPS, type Group } from "../../analysis/contract/catalog";
import { runtimeIds, SIDE_REGISTRY } from "../sides/registry";
import type { SummaryRow, ThroughputRow } from "../../analysis/stats/summary";
import { reachArgv, type DaemonHandle } from "./daemons";

/** One BenchmarkRun: a side's selected groups against a running target, into a run directory of its own. */
export interface GroupRunRequest {
  side: Side;
  /**
   * The run's order when it takes groups of several runtimes (a cloud pass's
   * overlapped run): each task's side needs its target; `side` and
   * `--groups` are then ignored. Absent: `side`'s selected groups.
   */
  tasks?: Task[];
  /** `npm start` flags (preset, groups, timeouts...): the same rules as a laptop run. */
  runArgs: string[];
  stack: string;
  /** The run directory is made at <blobRoot>/<stack>/<runId>/. */
  blobRoot: string;
  /** Each measured side's running target, by side (its package says what one holds). */
  targets: SideTargets;
}

interface GroupRunResult {
  runId: string;
  runDir: string;
  /** sha256 of the finished manifest.json, which pins every raw file's own sha256. */
  sha256: string;
  status: "complete" | "failed";
  failures: string[];
  summary: { rows: SummaryRow[]; throughput: ThroughputRow[] };
}

export { blobDigest };

/** The tasks a request asks for, checked: each a runtime with its target and a known group, none twice. */
export function requestTasks(req: GroupRunRequest, groups: readonly Group[]): Task[] {
  const runtimes = runtimeIds(SIDE_REGISTRY);
  if (req.tasks === undefined) {
    if (!runtimes.includes(req.side))
      throw new Error(`${req.side}: a group run measures a runtime (${runtimes.join(", ")}); a control side runs with \`npm start\` only`);
    return suiteTasks([req.side], groups);
  }
  if (!Array.isArray(req.tasks) || req.tasks.length === 0) throw new Error("request.tasks: a list of { side, group }, or leave it out");
  const seen = new Set<string>();
  for (const t of req.tasks) {
    const label = `${String(t?.side)} ${String(t?.group)}`;
    if (!runtimes.includes(t?.side) || !(GROUPS as readonly string[]).includes(t?.group))
      throw new Error(`request.tasks: ${label} is not a runtime (${runtimes.join(", ")}) and a group (${GROUPS.join(", ")})`);
    if (seen.has(label)) throw new Error(`request.tasks: ${label} is listed twice`);
    seen.add(label);
  }
  return req.tasks.map(({ side, group }) => ({ side, group }));
}

/** Runs the request in this process; `onOpen` learns the run directory as soon as it exists (before anything is measured). */
export async function runGroupRequest(
  req: GroupRunRequest,
  logTo: NodeJS.WriteStream = process.stderr,
  onOpen?: (runDir: string) => void,
): Promise<GroupRunResult> {
  const parsed = parseRunArgs(req.runArgs);
  const tasks = requestTasks(req, parsed.groups);
  // A stack's group run is one repetition of one group (repetitions are npm start's; a stack would repeat whole passes).
  const cfg = {
    ...parsed,
    repeat: 1,
    stack: req.stack,
    sides: [...new Set(tasks.map((t) => t.side))],
    groups: GROUPS.filter((g) => tasks.some((t) => t.group === g)),
  };
  for (const side of cfg.sides) {
    if (!req.targets?.[side]) throw new Error(`${side}: a ${side} group run needs request.targets.${side}, its running target`);
  }
  const progress = createProgress(logTo, cfg.quiet);
  const targets = Object.fromEntries(cfg.sides.map((side) => [side, req.targets[side]]));
  const out = await measuredRun(req.blobRoot, cfg, (run, failures) => {
    onOpen?.(run.dir);
    return measureRuntimes(cfg, run, progress, failures, targets, tasks);
  });
  return {
    runId: out.run.manifest.runId,
    runDir: out.runDir,
    sha256: blobDigest(out.runDir),
    status: out.status,
    failures: out.failures,
    summary: { rows: out.rows, throughput: out.throughput },
  };
}

/**
 * Runs the request in a child process (`groupRun.js`) where the target's
 * endpoints are reachable: inside the daemon's network namespace when it has
 * one. The request (with the targets' tokens) goes over stdin; the child's
 * progress goes to `logFile`. The child dies with the caller.
 */
export async function runGroupInChild(
  req: GroupRunRequest,
  target: Pick<DaemonHandle, "pid" | "netns">,
  logFile: string,
): Promise<GroupRunResult> {
  const entry = join(__dirname, "groupRun.js");
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first.`);
  mkdirSync(req.blobRoot, { recursive: true });
  const resultFile = join(req.blobRoot, `result-${process.pid}-${Date.now()}.json`);
  const argv = reachArgv(target, withPdeathsig([process.execPath, entry, resultFile]));
  const fd = openSync(logFile, "a");
  const env = { ...process.env, ...(target.netns ? { [NETNS_ENV]: "1" } : {}) };
  const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", fd, fd], env });
  closeSync(fd);
  child.stdin!.end(JSON.stringify(req));
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (c, s) => resolve({ code: c, signal: s }));
    child.once("error", () => resolve({ code: -1, signal: null }));
  });
  if (code !== 0 || !existsSync(resultFile)) {
    throw new Error(`the ${req.side} group run failed (exit code ${code}, signal ${signal}); ${logFile}:\n${logTail(logFile, 20)}`);
  }
  const result = JSON.parse(readFileSync(resultFile, "utf8")) as GroupRunResult;
  rmSync(resultFile, { force: true });
  return result;
}

if (require.main === module) {
  const resultFile = process.argv[2];
  const req = JSON.parse(readFileSync(0, "utf8")) as GroupRunRequest;
  runGroupRequest(req).then(
    (result) => {
      writeFileSync(`${resultFile}.tmp`, JSON.stringify(result));
      renameSync(`${resultFile}.tmp`, resultFile);
      process.exit(0);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? (err.stack ?? err.message) : err);
      process.exit(1);
    },
  );
}
