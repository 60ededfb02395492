import type { WatchedProcess } from "../../host/runtimeWatch";
import { packageVersion } from "../../host/versions";
import { watchOf, type SideDescriptor } from "../side";
import { cloudflareAdapter } from "./adapter";
import { COMPATIBILITY_DATE } from "./compatibility";
import { WorkerClient } from "./workerClient";
import { durableObjectPlantMs, plantNote } from "../plant";

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
  /** A planted delay asked for, microseconds (--plant-delay-us); the DO waits durableObjectPlantMs of it. */
  plantDelayUs?: number;
}

/** Local workerd, as the manifest describes it when the target does not say what it runs on. */
const LOCAL_WORKERD = {
  runtime: "local workerd through Miniflare 4, SQLite-backed DO (useSQLite)",
  workerClock: "Date.now() around the awaited DO call; local workerd does not freeze timers and steps in whole ms",
  eviction: "local workerd evicts an idle DO after about 10 s",
};

export const cloudflareSide: SideDescriptor<CloudflareTarget> = {
  side: "cloudflare",
  open(cfg, target) {
    // A colo is kept only from a deployed Worker: local workerd answers with Miniflare's placeholder cf object.
    const client = new WorkerClient(target.url, target.token, cfg.requestTimeoutMs, undefined, target.runtime !== undefined);
    return {
      adapter: cloudflareAdapter(client, {
        wakeIdleMs: cfg.cfWakeIdleMs,
        ...(target.logFile ? { runtimeLog: { name: "workerd", file: target.logFile } } : {}),
        ...(target.limits ? { maxLiveActors: target.limits.liveDos } : {}),
      }),
      cpuPids: () => ({ driver: process.pid }),
      ...watchOf(target.processes),
      versions: { ...target.versions, ...(target.runtime ? {} : { wrangler: packageVersion("wrangler") }) },
      settings: {
        startedBy: target.startedBy,
        ...(target.runtime ?? LOCAL_WORKERD),
        compatibilityDate: COMPATIBILITY_DATE,
        token: "random per Worker, a secret binding; never written",
        client: client.calls.description,
        ...(target.limits ? { limits: target.limits } : {}),
        ...(target.plantDelayUs ? { plantedDelay: plantNote(target.plantDelayUs, `a ${durableObjectPlantMs(target.plantDelayUs)} ms timer in the DO before it replies (rounded up to whole ms, the step of its clock and its timers)`) } : {}),
      },
      close: (abort) => client.close(abort),
    };
  },
  async launch(cfg, workDir) {
    // Loaded here: miniflare and workerd are dev dependencies, absent on the runner VM, which measures deployed targets only.
    const { startLocalWorker } = require("./localWorker") as typeof import("./localWorker");
    const plantDelayUs = cfg.plantDelayUs.cloudflare;
    const worker = await startLocalWorker({ workDir, ...(cfg.workerdOpenFiles ? { openFileLimit: cfg.workerdOpenFiles } : {}), ...(plantDelayUs ? { plantDelayMs: durableObjectPlantMs(plantDelayUs) } : {}) });
    return {
      target: {
        url: worker.url,
        token: worker.token,
        versions: worker.versions,
        startedBy: "npm start: workerd started for this run, DO SQLite in its temp dir, stopped after it",
        logFile: worker.logFile,
        limits: worker.limits,
        processes: [worker.process],
        ...(plantDelayUs ? { plantDelayUs } : {}),
      },
      stop: () => worker.stop(),
    };
  },
};
