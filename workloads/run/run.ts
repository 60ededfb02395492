import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { RunDir } from "../experiment/runDir";
import { createProgress, prefixed, type Progress } from "../experiment/progress";
import { sideSettingsOf, UsageError, type RunConfig } from "./runConfig";
import type { Group, Side } from "../../analysis/contract/catalog";
import { packageVersion } from "../host/versions";
import { onInterrupt } from "../host/processes";
import { CpuLock } from "../host/cpuLock";
import { runTasks, suiteTasks, taskLabel, type Task } from "../experiment/passPlan";
import { JOINT_GROUPS, OVERLAPPING_GROUPS, runGroup } from "../experiment/stagePlan";
import { censusFor, trackActors } from "../experiment/stageKit";
import type { PlanContext } from "../experiment/adapter";
import { summarizeRun, type SummaryRow, type ThroughputRow } from "../../analysis/stats/summary";
import { rotation } from "../../analysis/stats/repetitions";
import { quietMachine } from "../host/quietMachine";
import { calibrate } from "../host/calibration";
import { loopbackNote } from "../host/loopback";
import { RuntimeLost, type RuntimeLoss } from "../host/runtimeWatch";
import type { OpenSide } from "../sides/side";
import { SIDE_REGISTRY, sideOf, type SideRegistry } from "../sides/registry";
import { captureAvailable } from "../host/capture";
import { loopbackPort, stageCapturer } from "./stageCapture";
import { startOtlpCollector } from "../host/otlpCollector";
import { otlpFileName } from "../../analysis/contract/hops";
import { CAPACITY } from "../../analysis/contract/capacity";

/** The running runtimes a run measures, by side, whoever started them (each side's package says what its target holds). */
export type SideTargets = Partial<Record<Side, unknown>>;

export interface RunOutcome {
  runDir: string;
  rows: SummaryRow[];
  throughput: ThroughputRow[];
  failures: string[];
  /** What the manifest was finished with: complete only when nothing failed. */
  status: "complete" | "failed";
}

/** Each side's stage-plan context over its open session: its own census and key prefix, the run's one lock for idle waits. */
function planContexts(
  cfg: RunConfig,
  run: RunDir,
  progress: Progress,
  sessions: Partial<Record<Side, OpenSide>>,
  sides: ReadonlySet<Side>,
  lock: CpuLock,
): Partial<Record<Side, PlanContext>> {
  const contexts: Partial<Record<Side, PlanContext>> = {};
  for (const side of sides) {
    const session = sessions[side];
    if (!session) throw new Error(`${side}: the run's order names this side but it has no target`);
    const { adapter, cpuPids, runtime } = session;
    const census = censusFor(adapter);
    const port = cfg.capture ? loopbackPort(adapter.origin) : null;
    if (cfg.capture && port === null)
      progress.note(
        `${side}: --capture: its calls do not go over this machine's loopback (${adapter.origin ?? "no origin"}); not captured`,
      );
    contexts[side] = {
      adapter: trackActors(adapter, census, runtime),
      census,
      run,
      progress,
      cpuPids,
      counts: cfg.counts[side],
      scaleLevels: cfg.scaleLevels,
      idleLadder: cfg.idleLadder,
      capacityObjective: { ...CAPACITY.objective, p99Ms: cfg.capacityP99Ms },
      keyPrefix: `${run.manifest.runId}-${randomBytes(3).toString("hex")}`,
      idle: (ms: number) => lock.idle(ms, runtime ? (x) => runtime.sleep(x) : undefined),
      stallMs: cfg.stallMs,
      deadlineMs: cfg.stageDeadlineMs,
      ...(runtime ? { runtime } : {}),
      ...(port !== null ? { capture: stageCapturer(run, side, port) } : {}),
    };
    // Said the moment it happens, whatever the side is doing; the stage in progress stops on its own.
    void runtime?.lost.then((loss) =>
      progress.note(`${side}: ${loss.message}; its stage in progress stops, its remaining groups are not run`),
    );
  }
  return contexts;
}

/**
 * Runs the tasks in order through the stage plan under one CpuLock, one
 * measurement at a time (runTasks: the next tasks, of either side, measure
 * during a wake's idle wait; a last group waits for its side's groups before
 * it). Each side keeps its own census
 * and context. A group whose setup fails is recorded and the rest go on.
 * Each adapter's properties (what differs between the sides) go into the manifest.
 */
async function measureTasks(
  cfg: RunConfig,
  run: RunDir,
  progress: Progress,
  failures: string[],
  sessions: Partial<Record<Side, OpenSide>>,
  tasks: readonly Task[],
): Promise<void> {
  const lock = new CpuLock();
  const sides = new Set(tasks.map((t) => t.side));
  const contexts = planContexts(cfg, run, progress, sessions, sides, lock);
  const lost: Partial<Record<Side, { during: string; skipped: string[]; loss: RuntimeLoss }>> = {};
  let diskFullDuring: string | undefined;
  const diskSkipped: string[] = [];
  if (sides.size > 1) run.manifest.settings.order = { tasks: tasks.map(taskLabel), lock: ORDER_NOTE };
  run.save();
  await runTasks(
    tasks,
    async ({ side, group }) => {
      const label = taskLabel({ side, group });
      const runtime = sessions[side]!.runtime;
      if (lost[side] || run.diskFull) {
        if (lost[side]) lost[side]!.skipped.push(group);
        else diskSkipped.push(label);
        return;
      }
      const t0 = process.hrtime.bigint();
      try {
        await runGroup(group, contexts[side]!);
        run.manifest.tasksDone = [...(run.manifest.tasksDone ?? []), label];
        run.save();
      } catch (err) {
        // Once the runtime is gone, whatever failed after it failed because of it: one failure for the side, below.
        if (err instanceof RuntimeLost || runtime?.dead) {
          lost[side] ??= { during: group, skipped: [], loss: runtime?.dead ?? (err as RuntimeLost).loss };
          return;
        }
        if (run.diskFull) {
          diskFullDuring ??= label;
          return;
        }
        failures.push(`${label}: ${(err as Error).message}`);
        progress.note(`${label} FAILED: ${(err as Error).message}`);
      }
      progress.note(
        `${label}: group took ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1)} s${OVERLAPPING_GROUPS.has(group) ? " (its idle wait overlapped the next groups)" : ""}`,
      );
    },
    lock,
  );
  for (const [side, l] of Object.entries(lost) as Array<[Side, { during: string; skipped: string[]; loss: RuntimeLoss }]>) {
    failures.push(
      `${side}: runtime lost: ${l.loss.message} at ${l.loss.at}, during the ${l.during} group; not run after it: ${l.skipped.join(", ") || "no other group"}`,
    );
  }
  if (run.diskFull)
    failures.push(
      `${DISK_FULL}${diskFullDuring ? `, during ${diskFullDuring}` : ""} (${run.diskFull}); not run after it: ${diskSkipped.join(", ") || "no other group"}`,
    );
}

/** The start of a run's failure when its results disk filled: nothing more is measured. */
const DISK_FULL = "the results disk ran out of space";

/** What the manifest says about a run whose order mixes the sides. */
const ORDER_NOTE =
  "one lock for both sides: one group measures at a time; only an idle wait before a wake lets the next groups (of either side) run, so no two stages ever overlap";

/**
 * Measures the tasks, in their order, against running targets, into `run`:
 * one side's groups (a laptop run, a stack's group run) or both sides'
 * interleaved under one lock (a cloud pass's overlapped run). Every side is
 * opened through its descriptor, which gives its versions and settings for
 * the manifest; the loopback it is called over and the adapter's properties
 * (what differs in the stage plan) are recorded beside them.
 */
export async function measureRuntimes(
  cfg: RunConfig,
  run: RunDir,
  progress: Progress,
  failures: string[],
  targets: SideTargets,
  tasks: readonly Task[],
  registry: SideRegistry = SIDE_REGISTRY,
): Promise<void> {
  const sessions: Partial<Record<Side, OpenSide>> = {};
  // The loopback every side is called over: the same for all of them, read once.
  const loopback = loopbackNote();
  run.manifest.sideProfiles = registry.map((d) => d.profile);
  try {
    for (const d of registry) {
      const side = d.profile.id;
      const target = targets[side];
      if (!target) continue;
      const open = d.open(sideSettingsOf(cfg, side), target);
      sessions[side] = open;
      run.manifest.versions = { ...run.manifest.versions, ...open.versions };
      run.manifest.settings[side] = { ...open.settings, loopback, adapter: open.adapter.properties };
    }
    await measureTasks(cfg, run, progress, failures, sessions, tasks);
  } finally {
    const open = Object.values(sessions).filter((s): s is OpenSide => s !== undefined);
    for (const s of open) s.runtime?.disarm();
    // After a loss the calls still in flight are cut, not waited for (they would wait out their timeout).
    await Promise.all(open.map((s) => s.close(s.runtime?.dead !== undefined)));
  }
}

/**
 * Work directories (a runtime's data) to remove once the whole run is over,
 * not between its sides: deleting thousands of files makes the disk work
 * (ext4 with online discard here) while the next side measures its fsyncs.
 */
export type Leftovers = string[];

/**
 * Starts the sides' runtimes on this machine (each its package's launch, over
 * a new temp dir), measures the tasks against them and stops them. A temp
 * dir, with the runtime's logs, is kept and named when the run failed meanwhile,
 * else removed after the run.
 */
async function runLocalSides(
  sides: readonly Side[],
  groups: readonly Group[],
  cfg: RunConfig,
  run: RunDir,
  progress: Progress,
  failures: string[],
  leftovers: Leftovers,
  registry: SideRegistry,
): Promise<void> {
  const launched: Array<{ side: Side; workDir: string; stop: () => Promise<void> }> = [];
  const targets: SideTargets = {};
  const before = failures.length;
  try {
    for (const side of sides) {
      const workDir = mkdtempSync(join(tmpdir(), `actor-bench-${side}-`));
      const otel = cfg.otel ? await startOtlpCollector(join(run.dir, otlpFileName(side, run.repetition))) : undefined;
      const settings = { ...sideSettingsOf(cfg, side), ...(otel ? { otelEndpoint: otel.endpoint } : {}) };
      const l = await sideOf(registry, side)
        .launch(settings, workDir)
        .catch(async (err: unknown) => {
          await otel?.stop();
          throw err;
        });
      launched.push({
        side,
        workDir,
        stop: async () => {
          await l.stop();
          if (!otel) return;
          await otel.stop();
          run.noteRepetition(`otel.${side}`, otel.counts());
        },
      });
      targets[side] = l.target;
    }
    await measureRuntimes(cfg, run, progress, failures, targets, suiteTasks(sides, groups), registry);
  } finally {
    for (const l of launched) await l.stop();
    for (const l of launched) {
      if (failures.length === before) leftovers.push(l.workDir);
      else progress.note(`${l.side}: the runtime's files and logs are kept in ${l.workDir}`);
    }
  }
}

/** The versions every run records, whichever side it measures: the driver's; each side adds its own. */
function driverVersions(): Record<string, string> {
  return { undici: packageVersion("undici") };
}

/** A new run directory with the effective config, the driver's versions, the code's commit and the machine's calibration. */
export async function openRun(resultsRoot: string, cfg: RunConfig): Promise<RunDir> {
  if (cfg.capture) {
    const can = captureAvailable();
    if (!can.ok) throw new UsageError(`--capture: ${can.reason}`);
  }
  const run = new RunDir(resultsRoot, cfg.stack, cfg.preset, { ...cfg, resultsDir: undefined, quiet: undefined });
  run.manifest.versions = { ...run.manifest.versions, ...driverVersions() };
  run.manifest.calibration = await calibrate();
  run.save();
  return run;
}

/** Finishes a run's manifest, complete only when nothing failed, and summarises it. */
export function closeRun(run: RunDir, failures: string[]): RunOutcome & { run: RunDir } {
  const status = failures.length === 0 ? "complete" : "failed";
  run.finish(status, failures.join("\n") || undefined);
  return { run, runDir: run.dir, failures, status, ...summarizeRun(run.dir, run.manifest) };
}

/**
 * The lifecycle every run shares, `npm start` and a stack's group run alike:
 * a new run directory (openRun); `body` measures into it; an interrupt or a
 * thrown error is recorded as the run's failure; the manifest is finished
 * either way.
 */
export async function measuredRun(
  resultsRoot: string,
  cfg: RunConfig,
  body: (run: RunDir, failures: string[]) => Promise<void>,
): Promise<RunOutcome & { run: RunDir }> {
  const run = await openRun(resultsRoot, cfg);
  const failures: string[] = [];
  const removeHook = onInterrupt((sig) => run.finish("failed", `interrupted by ${sig}`));
  try {
    await body(run, failures);
  } catch (err) {
    failures.push((err as Error).message);
  } finally {
    removeHook();
  }
  return closeRun(run, failures);
}

/**
 * Runs every selected side and group on this machine into one run directory,
 * `cfg.repeat` times: each repetition starts every side's runtime afresh
 * over a new data directory, runs the sides one after the other, each after the machine is
 * brought to rest (quietMachine), and rotates their order from one
 * repetition to the next, so slow drift of the machine falls on each side
 * alike.
 */
export function runLocalSuite(
  cfg: RunConfig,
  progress: Progress = createProgress(process.stdout, cfg.quiet),
  registry: SideRegistry = SIDE_REGISTRY,
): Promise<RunOutcome> {
  return measuredRun(resolve(cfg.resultsDir), cfg, async (run, failures) => {
    const leftovers: Leftovers = [];
    try {
      for (let rep = 0; rep < cfg.repeat && !run.diskFull; rep++)
        await runRepetition(cfg, run, rep, progress, failures, leftovers, registry);
    } finally {
      removeLeftovers(leftovers);
    }
  });
}

/** Removes the runtimes' work directories once nothing more is measured. */
export function removeLeftovers(leftovers: Leftovers): void {
  for (const dir of leftovers.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Repetition `rep` of the plan into `run` (see runLocalSuite): every side on a fresh runtime, each after the machine is brought to rest. */
export async function runRepetition(
  cfg: RunConfig,
  run: RunDir,
  rep: number,
  progress: Progress,
  failures: string[],
  leftovers: Leftovers,
  registry: SideRegistry = SIDE_REGISTRY,
): Promise<void> {
  const order = rotation(cfg.sides, rep);
  const repProgress = cfg.repeat > 1 ? prefixed(progress, `[repetition ${rep + 1}/${cfg.repeat}] `) : progress;
  repProgress.note(`sides in this order: ${order.join(", ")}; each runtime started afresh`);
  run.beginRepetition(rep, order);
  const own = cfg.groups.filter((g) => !JOINT_GROUPS.has(g));
  const joint = cfg.groups.filter((g) => JOINT_GROUPS.has(g));
  const quietBefore = async (who: string) => {
    const quiet = await quietMachine();
    run.noteRepetition(`quietBefore.${who}`, quiet);
    if (!quiet.quiet)
      repProgress.note(
        `${who}: the machine did not come to rest before it (idle ${quiet.idleShare === null ? "unknown" : `${Math.round(quiet.idleShare * 100)}%`} after ${(quiet.waitedMs / 1000).toFixed(1)} s); measuring anyway, noted in the manifest`,
      );
  };
  for (const side of own.length > 0 ? order : []) {
    if (run.diskFull) break;
    await quietBefore(side);
    await runLocalSides([side], own, cfg, run, repProgress, failures, leftovers, registry);
  }
  if (joint.length > 0 && !run.diskFull) {
    await quietBefore(joint.join("+"));
    repProgress.note(
      `${joint.join(", ")}: every side's runtime started afresh and up at once (${order.join(", ")}), one measurement at a time`,
    );
    await runLocalSides(order, joint, cfg, run, repProgress, failures, leftovers, registry);
  }
  run.endRepetition();
}
