import type { WatchedProcess } from "../../host/runtimeWatch";
import { packageVersion } from "../../host/versions";
import { watchOf, type SideDescriptor } from "../side";
import { cloudflareAdapter } from "./adapter";
import { COMPATIBILITY_DATE } from "./compatibility";
import { WorkerClient } from "./workerClient";
import { plantNote } from "../plant";
import { hasPlant, type Plant } from "../plantSpec";
import { CLOUDFLARE_PROFILE } from "./profile";
import { CLOUDFLARE_DEFAULTS, CLOUDFLARE_OPTIONS, cloudflarePreflight, type CloudflareSettings } from "./settings";

/** A running Worker + DO the Cloudflare stages measure against. */
interface CloudflareTarget {
  url: string;
  token: string;
  versions: Record<string, string>;
  startedBy: string;
  /** What the Worker runs on, when not local workerd: replaces the local runtime, clock and eviction notes in the manifest. */
  runtime?: { runtime: string; workerClock: string; eviction: string; evictionMs: number };
  /** Local workerd's own output, read after each stage for failures from a machine limit. */
  logFile?: string;
  /** The limits local workerd runs under, for the manifest; liveDos paces the preparations. */
  limits?: { openFiles: number; liveDos: number };
  /** workerd, when this run started it: watched for an exit it did not ask for. */
  processes?: WatchedProcess[];
  /** workerd's pid where it runs on this machine (a run's or a local stack's): its CPU is recorded with each stage. */
  workerdPid?: number;
  /** A planted delay asked for, microseconds by operation (--plant-delay-us); the DO waits durableObjectPlantMs of it. */
  plant?: Plant;
}

/**
 * The idle past which a deployed DO is surely out of memory: Cloudflare
 * documents that an idle DO that can hibernate does so after 10 s, and one
 * that cannot is evicted after 70 to 140 s. Idle ladder steps between the two
 * report what they find.
 */
export const CLOUD_DO_EVICTION_MS = 140_000;

/** Local workerd, as the manifest describes it when the target does not say what it runs on. */
const LOCAL_WORKERD = {
  runtime: "local workerd through Miniflare 4, SQLite-backed DO (useSQLite)",
  workerClock: "Date.now() around the awaited DO call; local workerd does not freeze timers and steps in whole ms",
  eviction: "local workerd evicts an idle DO after about 10 s",
  evictionMs: 10_000,
};

/** What the report must say of the Durable Object figures of this run. */
function cloudflareCaveats(target: CloudflareTarget): string[] {
  const out: string[] = [];
  if (!target.runtime) {
    out.push("No replication: the DO's SQLite is a local file; it waits for no other zone.");
    out.push(
      "The Durable Object side ran on local workerd, which does not freeze timers and whose Date.now() steps in whole milliseconds: DO figures are integers and sub-millisecond calls read 0 or 1. They are not Cloudflare's figures.",
    );
    out.push(
      "No in-DO wall times: they come from Cloudflare's analytics on a cloud stack; local workerd has none. The DO side's in-system figure is the Worker-timed call, with the driver's own round trip (third clock) beside it.",
    );
  } else {
    out.push(
      "On Cloudflare a Worker's Date.now() advances only across I/O, so the Worker-timed figure is the awaited DO round trip at whole-millisecond resolution; the Worker's own CPU time is not in it.",
    );
    out.push(
      "In-DO wall times come from Cloudflare's analytics, stored beside the run by the stack after it; a report without the in-DO table has none stored.",
    );
  }
  out.push(
    "Durable Object rates use Little's law on the Worker-timed mean, as the reference does; the driver's measured rate is shown beside them.",
  );
  return out;
}

export const cloudflareSide: SideDescriptor<CloudflareTarget, CloudflareSettings> = {
  profile: CLOUDFLARE_PROFILE,
  // The reference's n for Durable Objects in `full` (200 to 2,000 per row); the other presets give every side the same n.
  presetCounts: {
    full: {
      createPing: 200,
      createRead: 200,
      createWrite: 200,
      wake: 200,
      warm: 300,
      sqliteRead: 300,
      sqliteWrite: 300,
      sqliteScan: 300,
      burstAttempts: 500,
      seqWrite: 2000,
      openSeconds: 10,
      scaleCreate: 200,
      scaleWake: 200,
      scaleBurst: 256,
      capacitySeconds: 5,
      idleWake: 100,
      payload: 100,
      alarms: 50,
    },
  },
  options: CLOUDFLARE_OPTIONS,
  defaults: CLOUDFLARE_DEFAULTS,
  preflight: cloudflarePreflight,
  wakeIdleMs: (s) => s.own.cfWakeIdleMs,
  open(cfg, target) {
    // A colo is kept only from a deployed Worker: local workerd answers with Miniflare's placeholder cf object.
    const client = new WorkerClient(target.url, target.token, cfg.requestTimeoutMs, undefined, target.runtime !== undefined);
    return {
      adapter: cloudflareAdapter(client, {
        wakeIdleMs: cloudflareSide.wakeIdleMs(cfg),
        evictionMs: target.runtime ? (target.runtime.evictionMs ?? CLOUD_DO_EVICTION_MS) : LOCAL_WORKERD.evictionMs,
        eviction: (target.runtime ?? LOCAL_WORKERD).eviction,
        ...(target.logFile ? { runtimeLog: { name: "workerd", file: target.logFile } } : {}),
        ...(target.limits ? { maxLiveActors: target.limits.liveDos } : {}),
        settle: cfg.own.settle,
      }),
      cpuPids: () => ({ ...(target.workerdPid !== undefined ? { workerd: target.workerdPid } : {}), driver: process.pid }),
      ...watchOf(target.processes),
      versions: { ...target.versions, ...(target.runtime ? {} : { wrangler: packageVersion("wrangler") }) },
      settings: {
        startedBy: target.startedBy,
        ...(target.runtime ?? LOCAL_WORKERD),
        compatibilityDate: COMPATIBILITY_DATE,
        token: "random per Worker, a secret binding; never written",
        client: client.calls.description,
        ...(target.limits ? { limits: target.limits } : {}),
        ...(hasPlant(target.plant)
          ? {
              plantedDelay: plantNote(
                target.plant,
                "a timer in the DO before it replies, in whole ms rounded up (the step of its clock and its timers)",
              ),
            }
          : {}),
        caveats: cloudflareCaveats(target),
      },
      close: (abort) => client.close(abort),
    };
  },
  async launch(cfg, workDir, secrets) {
    // Loaded here: miniflare and workerd are dev dependencies, absent on the runner VM, which measures deployed targets only.
    const { startLocalWorker } = require("./localWorker") as typeof import("./localWorker");
    const plant = cfg.plant;
    const worker = await startLocalWorker({
      workDir,
      ...(secrets?.token ? { token: secrets.token } : {}),
      ...(cfg.own.workerdOpenFiles ? { openFileLimit: cfg.own.workerdOpenFiles } : {}),
      ...(hasPlant(plant) ? { plant } : {}),
    });
    return {
      target: {
        url: worker.url,
        token: worker.token,
        versions: worker.versions,
        startedBy: "npm start: workerd started for this run, DO SQLite in its temp dir, stopped after it",
        logFile: worker.logFile,
        limits: worker.limits,
        processes: [worker.process],
        ...(worker.process.pid !== undefined ? { workerdPid: worker.process.pid } : {}),
        ...(hasPlant(plant) ? { plant } : {}),
      },
      processes: [worker.process],
      stop: () => worker.stop(),
    };
  },
  daemonTarget(target) {
    // The token is the stack's own secret (it gave it), so the daemon keeps nothing of it.
    const { token: _t, processes: _p, ...rest } = target;
    return { target: rest as Record<string, unknown>, secrets: {}, endpoint: target.url, health: `${target.url}/noop` };
  },
  stackSecrets: ["token"],
};
