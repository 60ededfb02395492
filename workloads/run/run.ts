import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { RunDir } from "../experiment/runDir";
import { createProgress, prefixed, type Progress } from "../experiment/progress";
import type { RunConfig } from "./runConfig";
import type { Side } from "../../analysis/contract/catalog";
import { packageVersion } from "../host/versions";
import { onInterrupt } from "../host/processes";
import { CpuLock } from "../host/cpuLock";
import { PLACEMENT_NOTE } from "../../cluster/engineConfig";
import { NETNS_ENV } from "../host/netns";
import { startEngineTopology } from "../sides/rivet/localCluster";
import { GatewayClient } from "../sides/rivet/gateway";
import { rivetAdapter } from "../sides/rivet/adapter";
import { loopbackSettings } from "../sides/rivet/network";
import { COMPATIBILITY_DATE } from "../sides/cloudflare/compatibility";
import { WorkerClient } from "../sides/cloudflare/workerClient";
import { cloudflareAdapter } from "../sides/cloudflare/adapter";
import { floorAdapter, FLOOR_SETTINGS } from "../sides/floor/adapter";
import { startLocalFloor } from "../sides/floor/localFloor";
import { runTasks, suiteTasks, taskLabel, type Task } from "../experiment/passPlan";
import { censusFor, OVERLAPPING_GROUPS, runGroup, trackActors, type PlanContext, type SideAdapter } from "../experiment/stagePlan";
import { summarizeRun, type SummaryRow, type ThroughputRow } from "../../analysis/stats/summary";
import { rotation } from "../../analysis/stats/repetitions";
import { quietMachine } from "../host/quietMachine";
import { RuntimeLost, RuntimeWatch, type RuntimeLoss, type WatchedProcess } from "../host/runtimeWatch";
import type { Managed } from "../host/processes";

export interface RunOutcome {
  runDir: string;
  rows: SummaryRow[];
  throughput: ThroughputRow[];
  failures: string[];
  /** What the manifest was finished with: complete only when nothing failed. */
  status: "complete" | "failed";
}

/** A side ready to measure: its adapter, the processes whose CPU each stage records, and the watch on its runtime's processes. */
interface SideSession {
  adapter: SideAdapter;
  cpuPids: PlanContext["cpuPids"];
  runtime?: RuntimeWatch;
}

/** A process started by this run, as the runtime watch sees it. */
export const watched = (m: Managed): WatchedProcess => ({ name: m.name, pid: m.child.pid, exited: m.exited });

/**
 * Runs the tasks in order through the stage plan under one CpuLock, one
 * measurement at a time (runTasks: the next tasks, of either side, measure
 * during a wake's idle wait; a last group waits for its side's groups before
 * it). Each side keeps its own census
 * and context. A group whose setup fails is recorded and the rest go on.
 * Each adapter's properties (what differs between the sides) go into the manifest.
 */
async function measureTasks(cfg: RunConfig, run: RunDir, progress: Progress, failures: string[], sessions: Partial<Record<Side, SideSession>>, tasks: readonly Task[]): Promise<void> {
  const lock = new CpuLock();
  const contexts: Partial<Record<Side, PlanContext>> = {};
  const sides = new Set(tasks.map((t) => t.side));
  for (const side of sides) {
    const session = sessions[side];
    if (!session) throw new Error(`${side}: the run's order names this side but it has no target`);
    const { adapter, cpuPids, runtime } = session;
    run.manifest.settings[side] = { ...(run.manifest.settings[side] as object), adapter: adapter.properties };
    const census = censusFor(adapter);
    contexts[side] = {
      adapter: trackActors(adapter, census, runtime), census, run, progress, cpuPids,
      counts: cfg.counts[side],
      scaleLevels: cfg.scaleLevels,
      keyPrefix: `${run.manifest.runId}-${randomBytes(3).toString("hex")}`,
      idle: (ms: number) => lock.idle(ms, runtime ? (x) => runtime.sleep(x) : undefined),
      stallMs: cfg.stallMs,
      ...(runtime ? { runtime } : {}),
    };
    // Said the moment it happens, whatever the side is doing; the stage in progress stops on its own.
    void runtime?.lost.then((loss) => progress.note(`${side}: ${loss.message}; its stage in progress stops, its remaining groups are not run`));
  }
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
      progress.note(`${label}: group took ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1)} s${OVERLAPPING_GROUPS.has(group) ? " (its idle wait overlapped the next groups)" : ""}`);
    },
    lock,
  );
  for (const [side, l] of Object.entries(lost) as Array<[Side, { during: string; skipped: string[]; loss: RuntimeLoss }]>) {
    failures.push(`${side}: runtime lost: ${l.loss.message} at ${l.loss.at}, during the ${l.during} group; not run after it: ${l.skipped.join(", ") || "no other group"}`);
  }
  if (run.diskFull) failures.push(`${DISK_FULL}${diskFullDuring ? `, during ${diskFullDuring}` : ""} (${run.diskFull}); not run after it: ${diskSkipped.join(", ") || "no other group"}`);
}

/** The start of a run's failure when its results disk filled: nothing more is measured. */
export const DISK_FULL = "the results disk ran out of space";

/** What the manifest says about a run whose order mixes the sides. */
export const ORDER_NOTE =
  "one lock for both sides: one group measures at a time; only an idle wait before a wake lets the next groups (of either side) run, so no two stages ever overlap";

/** The client every timed call goes through, on every side: named once, for the manifest. */
export const DRIVER_CLIENT = "the driver's own HTTP/1.1 client (workloads/driver/http1), keep-alive, one request at a time per connection, JSON bodies; the Engine API and health checks on undici";

/** A running Engine + app the Rivet stages measure against, however it was started. */
export interface RivetTarget {
  gatewayUrl: string;
  /** The Engine's admin token, where its API requires one; never written. */
  adminToken?: string;
  engineVersion: string;
  engineConfig: unknown;
  enginePid?: number;
  appPid?: number;
  /** How the processes were started, for the manifest. */
  startedBy: string;
  /** A local Engine's log, read after each stage for failures from a machine limit. */
  logFile?: string;
  /** The processes the runtime is made of, when this run started them: watched for an exit it did not ask for. */
  processes?: WatchedProcess[];
}

/** A running Worker + DO the Cloudflare stages measure against. */
export interface CloudflareTarget {
  url: string;
  token: string;
  versions: Record<string, string>;
  startedBy: string;
  /** What the Worker runs on, when not local workerd: replaces the local runtime, clock and eviction notes in the manifest. */
  runtime?: { runtime: string; workerClock: string; eviction: string };
  /** Local workerd's own output, read after each stage for failures from a machine limit. */
  logFile?: string;
  /** The limits local workerd runs under, for the manifest; liveDos paces the preparations. */
  limits?: { openFiles: number; liveDos: number };
  /** workerd, when this run started it: watched for an exit it did not ask for. */
  processes?: WatchedProcess[];
}

/** A side's client and adapter over a running target, its settings written into the manifest; close() lets go of the client. */
type OpenSession = SideSession & { close(abort?: boolean): Promise<void> };

function openRivet(cfg: RunConfig, run: RunDir, target: RivetTarget): OpenSession {
  run.manifest.versions.engine = target.engineVersion;
  run.manifest.settings.rivet = {
    startedBy: target.startedBy,
    engineConfig: { ...(target.engineConfig as object), file_system: "(run temp dir)" },
    engineEnv: {
      RUST_BACKTRACE: cfg.engine.keepRustBacktrace ? (process.env.RUST_BACKTRACE ?? null) : "removed",
      RUST_LIB_BACKTRACE: cfg.engine.keepRustBacktrace ? (process.env.RUST_LIB_BACKTRACE ?? null) : "0",
      RUST_LOG: cfg.engine.rustLog ?? null,
    },
    guardTcpNodelay: cfg.engine.tcpNodelay,
    loadShedding: cfg.engine.loadShedding
      ? "the Engine's default (workflow pulls cut past 70% machine CPU)"
      : "off (runtime.worker_load_shedding_curve): on one machine the Engine would shed on the driver's, the app's and workerd's CPU; see docs/engine-latency.md",
    placement: PLACEMENT_NOTE,
    guardGatewayV3: false,
    appTcpNodelay: "not settable (RivetKit native module)",
    actorSleepTimeoutMs: cfg.actorSleepTimeoutMs,
    loopback: { ...loopbackSettings(), privateNetns: process.env[NETNS_ENV] === "1" },
    client: DRIVER_CLIENT,
    engineAuth: target.adminToken
      ? "admin token required by the Engine's API and for runner registration (random per run or a stack secret; never written); actor calls through the gateway are public, as the Engine has them"
      : "none (one Engine on loopback)",
  };
  const client = new GatewayClient(target.gatewayUrl, cfg.requestTimeoutMs, undefined, target.adminToken);
  return {
    adapter: rivetAdapter(client, { wakeIdleMs: cfg.wakeIdleMs, sleepConfirmTimeoutMs: cfg.sleepConfirmTimeoutMs, ...(target.logFile ? { runtimeLog: { name: "Engine", file: target.logFile } } : {}) }),
    cpuPids: () => ({ engine: target.enginePid, app: target.appPid, driver: process.pid }),
    ...(target.processes ? { runtime: new RuntimeWatch(target.processes) } : {}),
    close: (abort) => client.close(abort),
  };
}

function openCloudflare(cfg: RunConfig, run: RunDir, target: CloudflareTarget): OpenSession {
  run.manifest.versions = { ...run.manifest.versions, ...target.versions, ...(target.runtime ? {} : { wrangler: packageVersion("wrangler") }) };
  run.manifest.settings.cloudflare = {
    startedBy: target.startedBy,
    ...(target.runtime ?? {
      runtime: "local workerd through Miniflare 4, SQLite-backed DO (useSQLite)",
      workerClock: "Date.now() around the awaited DO call; local workerd does not freeze timers and steps in whole ms",
      eviction: "local workerd evicts an idle DO after about 10 s",
    }),
    compatibilityDate: COMPATIBILITY_DATE,
    token: "random per Worker, a secret binding; never written",
    loopback: { ...loopbackSettings(), privateNetns: process.env[NETNS_ENV] === "1" },
    client: DRIVER_CLIENT,
    ...(target.limits ? { limits: target.limits } : {}),
  };
  // A colo is kept only from a deployed Worker: local workerd answers with Miniflare's placeholder cf object.
  const client = new WorkerClient(target.url, target.token, cfg.requestTimeoutMs, undefined, target.runtime !== undefined);
  return {
    adapter: cloudflareAdapter(client, {
      wakeIdleMs: cfg.cfWakeIdleMs,
      ...(target.logFile ? { runtimeLog: { name: "workerd", file: target.logFile } } : {}),
      ...(target.limits ? { maxLiveActors: target.limits.liveDos } : {}),
    }),
    cpuPids: () => ({ driver: process.pid }),
    ...(target.processes ? { runtime: new RuntimeWatch(target.processes) } : {}),
    close: (abort) => client.close(abort),
  };
}

/** Measures the selected groups against a running Engine + app, into `run`. */
export const measureRivet = (cfg: RunConfig, run: RunDir, progress: Progress, failures: string[], target: RivetTarget) =>
  measureRuntimes(cfg, run, progress, failures, { rivet: target }, suiteTasks(["rivet"], cfg.groups));

/** Measures the selected groups against a running Worker, into `run`. */
export const measureCloudflare = (cfg: RunConfig, run: RunDir, progress: Progress, failures: string[], target: CloudflareTarget) =>
  measureRuntimes(cfg, run, progress, failures, { cloudflare: target }, suiteTasks(["cloudflare"], cfg.groups));

/** The running runtimes a run measures, whoever started them. */
export interface RuntimeTargets {
  rivet?: RivetTarget;
  cloudflare?: CloudflareTarget;
}

/**
 * Measures the tasks, in their order, against running targets, into `run`:
 * one side's groups (a laptop run, a stack's group run) or both sides'
 * interleaved under one lock (a cloud pass's overlapped run).
 */
export async function measureRuntimes(cfg: RunConfig, run: RunDir, progress: Progress, failures: string[], targets: RuntimeTargets, tasks: readonly Task[]): Promise<void> {
  const sessions: Partial<Record<Side, OpenSession>> = {};
  try {
    if (targets.rivet) sessions.rivet = openRivet(cfg, run, targets.rivet);
    if (targets.cloudflare) sessions.cloudflare = openCloudflare(cfg, run, targets.cloudflare);
    await measureTasks(cfg, run, progress, failures, sessions, tasks);
  } finally {
    for (const s of Object.values(sessions)) s.runtime?.disarm();
    // After a loss the calls still in flight are cut, not waited for (they would wait out their timeout).
    await Promise.all(Object.values(sessions).map((s) => s.close(s.runtime?.dead !== undefined)));
  }
}

/**
 * Work directories (a runtime's data) to remove once the whole run is over,
 * not between its sides: deleting thousands of files makes the disk work
 * (ext4 with online discard here) while the next side measures its fsyncs.
 */
type Leftovers = string[];

async function runRivet(cfg: RunConfig, run: RunDir, progress: Progress, failures: string[], leftovers: Leftovers): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), "actor-bench-rivet-"));
  const rivet = await startEngineTopology(cfg.engineTopology, { workDir, settings: cfg.engine, actorSleepTimeoutMs: cfg.actorSleepTimeoutMs });
  const before = failures.length;
  try {
    await measureRivet(cfg, run, progress, failures, {
      gatewayUrl: rivet.gatewayUrl,
      adminToken: rivet.adminToken,
      engineVersion: rivet.engineVersion,
      engineConfig: rivet.engineConfig,
      enginePid: rivet.engine.child.pid,
      appPid: rivet.app.child.pid,
      logFile: rivet.engineLog,
      processes: rivet.processes().map(watched),
      startedBy: `npm start: ${cfg.engineTopology === "cluster" ? "three Engines (Postgres + NATS, haproxy in front)" : "Engine"} and app started for this run, stopped after it`,
    });
  } finally {
    await rivet.stop();
    if (failures.length === before) leftovers.push(workDir);
    else progress.note(`engine and app logs kept in ${workDir}`);
  }
}

async function runCloudflare(cfg: RunConfig, run: RunDir, progress: Progress, failures: string[], leftovers: Leftovers): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), "actor-bench-cf-"));
  // Loaded here: miniflare and workerd are dev dependencies, absent on the runner VM, which measures deployed targets only.
  const { startLocalWorker } = require("../sides/cloudflare/localWorker") as typeof import("../sides/cloudflare/localWorker");
  const worker = await startLocalWorker({ workDir, ...(cfg.workerdOpenFiles ? { openFileLimit: cfg.workerdOpenFiles } : {}) });
  try {
    await measureCloudflare(cfg, run, progress, failures, {
      url: worker.url,
      token: worker.token,
      versions: worker.versions,
      startedBy: "npm start: workerd started for this run, DO SQLite in its temp dir, stopped after it",
      logFile: worker.logFile,
      limits: worker.limits,
      processes: [worker.process],
    });
  } finally {
    await worker.stop();
    leftovers.push(workDir);
  }
}

/**
 * The floor: the same stage plan against a plain Node server over SQLite
 * files, started for this run with the Rivet app's idle sleep timeout. Only
 * the server's own process loads better-sqlite3 (a dev dependency).
 */
async function runFloor(cfg: RunConfig, run: RunDir, progress: Progress, failures: string[], leftovers: Leftovers): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), "actor-bench-floor-"));
  const floor = await startLocalFloor({ workDir, idleCloseMs: cfg.actorSleepTimeoutMs, delayMs: cfg.floorDelayMs });
  run.manifest.versions = { ...run.manifest.versions, "better-sqlite3": packageVersion("better-sqlite3") };
  run.manifest.settings.floor = {
    ...FLOOR_SETTINGS, idleCloseMs: cfg.actorSleepTimeoutMs, client: DRIVER_CLIENT,
    startedBy: "npm start: the floor server started for this run, its files in a temp dir, removed after it",
    ...(cfg.floorDelayMs > 0 ? { calibrationDelayMs: `${cfg.floorDelayMs} ms added to every action reply (--floor-delay-ms): a planted slowdown, not the floor's own cost` } : {}),
  };
  const client = new GatewayClient(floor.url, cfg.requestTimeoutMs);
  let runtime: RuntimeWatch | undefined;
  try {
    const adapter = floorAdapter(client, { wakeIdleMs: cfg.wakeIdleMs });
    runtime = new RuntimeWatch([watched(floor.server)]);
    try {
      await measureTasks(cfg, run, progress, failures, { floor: { adapter, cpuPids: () => ({ server: floor.server.child.pid, driver: process.pid }), runtime } }, suiteTasks(["floor"], cfg.groups));
    } finally {
      runtime.disarm();
    }
  } finally {
    await client.close(runtime?.dead !== undefined);
    await floor.stop();
    leftovers.push(workDir);
  }
}

const LOCAL_RUNNERS: Record<Side, typeof runRivet> = { rivet: runRivet, cloudflare: runCloudflare, floor: runFloor };

/** The versions every run records, whichever side it measures. */
export function driverVersions(): Record<string, string> {
  return {
    rivetkit: packageVersion("rivetkit"),
    "@rivetkit/engine-cli": packageVersion("@rivetkit/engine-cli"),
    undici: packageVersion("undici"),
  };
}

/**
 * The lifecycle every run shares, `npm start` and a stack's group run alike: a
 * new run directory with the effective config, the driver's versions and the
 * code's commit; `body` measures into it; an interrupt or a thrown error is
 * recorded as the run's failure; the manifest is finished either way.
 */
export async function measuredRun(resultsRoot: string, cfg: RunConfig, body: (run: RunDir, failures: string[]) => Promise<void>): Promise<RunOutcome & { run: RunDir }> {
  const run = new RunDir(resultsRoot, cfg.stack, cfg.preset, { ...cfg, resultsDir: undefined, quiet: undefined });
  const failures: string[] = [];
  run.manifest.versions = { ...run.manifest.versions, ...driverVersions() };
  run.save();
  const removeHook = onInterrupt((sig) => run.finish("failed", `interrupted by ${sig}`));
  try {
    await body(run, failures);
  } catch (err) {
    failures.push((err as Error).message);
  } finally {
    removeHook();
  }
  const status = failures.length === 0 ? "complete" : "failed";
  run.finish(status, failures.join("\n") || undefined);
  return { run, runDir: run.dir, failures, status, ...summarizeRun(run.dir, run.manifest) };
}

/**
 * Runs every selected side and group on this machine into one run directory,
 * `cfg.repeat` times: each repetition starts every side's runtime afresh (a
 * new Engine and app with a new data directory, a new workerd, a new floor
 * server), runs the sides one after the other, each after the machine is
 * brought to rest (quietMachine), and rotates their order from one
 * repetition to the next, so slow drift of the machine falls on each side
 * alike.
 */
export function runLocalSuite(cfg: RunConfig, progress: Progress = createProgress(process.stdout, cfg.quiet)): Promise<RunOutcome> {
  return measuredRun(resolve(cfg.resultsDir), cfg, async (run, failures) => {
    const leftovers: Leftovers = [];
    try {
      await repetitions(cfg, run, progress, failures, leftovers);
    } finally {
      for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** The repetitions of the plan (see runLocalSuite), each side after the machine is brought to rest. */
async function repetitions(cfg: RunConfig, run: RunDir, progress: Progress, failures: string[], leftovers: Leftovers): Promise<void> {
  for (let rep = 0; rep < cfg.repeat && !run.diskFull; rep++) {
    const order = rotation(cfg.sides, rep);
    const repProgress = cfg.repeat > 1 ? prefixed(progress, `[repetition ${rep + 1}/${cfg.repeat}] `) : progress;
    repProgress.note(`sides in this order: ${order.join(", ")}; each runtime started afresh`);
    run.beginRepetition(rep, order);
    for (const side of order) {
      if (run.diskFull) break;
      const quiet = await quietMachine();
      run.noteRepetition(`quietBefore.${side}`, quiet);
      if (!quiet.quiet) repProgress.note(`${side}: the machine did not come to rest before it (idle ${quiet.idleShare === null ? "unknown" : `${Math.round(quiet.idleShare * 100)}%`} after ${(quiet.waitedMs / 1000).toFixed(1)} s); measuring anyway, noted in the manifest`);
      await LOCAL_RUNNERS[side](cfg, run, repProgress, failures, leftovers);
    }
    run.endRepetition();
  }
}
