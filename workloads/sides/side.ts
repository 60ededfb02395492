/**
 * One descriptor per side: everything that differs between Rivet, the
 * Durable Objects and the floor lives behind this interface, so the run
 * opens, launches and records every side the same way (workloads/run/run.ts).
 * The stage plan's own per-side differences are the adapter's properties.
 */
import type { Side } from "../../analysis/contract/catalog";
import type { EngineSettings } from "../../cluster/engineConfig";
import type { SideAdapter } from "../experiment/stagePlan";
import { RuntimeWatch, type WatchedProcess } from "../host/runtimeWatch";
import type { Managed } from "../host/processes";

/** The run settings a side reads; a RunConfig has every one. */
export interface SideRunSettings {
  requestTimeoutMs: number;
  wakeIdleMs: number;
  cfWakeIdleMs: number;
  sleepConfirmTimeoutMs: number;
  actorSleepTimeoutMs: number;
  engine: EngineSettings;
  engineTopology: "single" | "cluster";
  workerdOpenFiles?: number;
  /** A planted delay per side, microseconds (--plant-delay-us); each side reads its own. */
  plantDelayUs: Partial<Record<Side, number>>;
  /** The Engine release to run (--engine-version); absent: the installed one. */
  engineVersion?: string;
}

/** A side opened over a running target: what the stage plan drives, and what the manifest records about it. */
export interface OpenSide {
  adapter: SideAdapter;
  /** The processes whose CPU each stage records, by name. */
  cpuPids: () => Record<string, number | undefined>;
  /** A watch on the runtime's processes, when this run started them. */
  runtime?: RuntimeWatch;
  /** Package and runtime versions for the manifest. */
  versions: Record<string, string>;
  /** The side's settings for the manifest (the run adds the loopback and the adapter's properties); `client` names the timed calls' client, as the client describes itself. */
  settings: Record<string, unknown> & { client: string; startedBy: string };
  /** Lets go of the client; `abort` cuts the calls still in flight (their runtime is gone). */
  close(abort?: boolean): Promise<void>;
}

/** A runtime this run started on this machine, as a target, and how to stop it. */
export interface Launched<T> {
  target: T;
  stop(): Promise<void>;
}

export interface SideDescriptor<T> {
  side: Side;
  /** The driver's client and the side's adapter over a running target, whoever started it. */
  open(cfg: SideRunSettings, target: T): OpenSide;
  /** Starts the side's runtime on this machine for one run (`npm start`), its files under `workDir`. */
  launch(cfg: SideRunSettings, workDir: string): Promise<Launched<T>>;
}

/** A process started by this run, as the runtime watch sees it. */
export const watched = (m: Managed): WatchedProcess => ({ name: m.name, pid: m.child.pid, exited: m.exited });

/** The watch on a target's processes, or none when this run did not start them. */
export const watchOf = (processes: WatchedProcess[] | undefined): { runtime?: RuntimeWatch } => (processes ? { runtime: new RuntimeWatch(processes) } : {});
