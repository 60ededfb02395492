/**
 * One descriptor per side: everything about a side lives in its package
 * (workloads/sides/<side>/) behind this interface, and the registry
 * (registry.ts) lists them. The run opens, launches and records every side
 * the same way (workloads/run/run.ts); its options, its counts and its
 * checks come from here; the stage plan's own per-side differences are the
 * adapter's properties; every view reads the side's profile from the run's
 * manifest.
 */
import type { Group, PresetName, SampleCounts } from "../../analysis/contract/catalog";
import type { Plant } from "./plantSpec";
import type { SideProfile } from "../../analysis/contract/sideProfile";
import type { SideAdapter } from "../experiment/adapter";
import { RuntimeWatch, type WatchedProcess } from "../host/runtimeWatch";
import type { Managed } from "../host/processes";
import type { Loopback } from "../host/netns";
import type { OptionSpec } from "./options";

/** What a side is given of a run: the run's settings every side reads, its own share, and its own settings (S). */
export interface SideRunSettings<S = unknown> {
  requestTimeoutMs: number;
  /** How long slept actors stay idle before a wake, where the side confirms sleep (--wake-idle-ms). */
  wakeIdleMs: number;
  /** The actors' idle sleep timeout (--actor-sleep-timeout-ms). */
  actorSleepTimeoutMs: number;
  /** quickack: the run is in a private network namespace whose loopback has delayed ACKs off; host: the machine's loopback. */
  loopback: Loopback;
  /** Its planted delay, microseconds by operation (--plant-delay-us); empty: none. */
  plant: Plant;
  /** Its sample counts, the groups and the scaling levels of the run. */
  counts: SampleCounts;
  groups: readonly Group[];
  scaleLevels: readonly number[];
  /** Its own settings: its options over its defaults. */
  own: S;
  /** Where its runtime sends its OpenTelemetry traces (a run made with --otel), if it can export them. */
  otelEndpoint?: string;
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
  /**
   * The side's settings for the manifest (the run adds the loopback and the adapter's properties); `client` names the
   * timed calls' client, as the client describes itself; `caveats`, what the report must say of its figures in this run.
   */
  settings: Record<string, unknown> & { client: string; startedBy: string; caveats: string[] };
  /** Lets go of the client; `abort` cuts the calls still in flight (their runtime is gone). */
  close(abort?: boolean): Promise<void>;
}

/** A runtime started on this machine, as a target, the processes it is made of (watched for an exit no one asked for), and how to stop it. */
interface Launched<T> {
  target: T;
  processes: WatchedProcess[];
  stop(): Promise<void>;
}

export interface SideDescriptor<T, S = unknown> {
  /** Its words, clocks, rates and optional metrics: recorded in every run's manifest. */
  profile: SideProfile;
  /** Sample counts of a preset that differ from the preset's shared ones. */
  presetCounts?: Partial<Record<PresetName, SampleCounts>>;
  /** Its own options (flags and stack keys), each setting a field of its settings. */
  options: readonly OptionSpec<Partial<S>>[];
  /** Its settings where no option sets them. */
  defaults: S;
  /** How long its slept actors stay idle before a wake: what its adapter waits and the pass's estimate counts. */
  wakeIdleMs(s: SideRunSettings<S>): number;
  /** Why its settings cannot run with the run's (one line, naming the flags), or null: checked when the config is read. */
  check?(s: SideRunSettings<S>): string | null;
  /** Why this machine cannot run its share (one line, naming the flag to change), or null: checked before anything starts. */
  preflight?(s: SideRunSettings<S>): string | null;
  /** The driver's client and the side's adapter over a running target, whoever started it. */
  open(s: SideRunSettings<S>, target: T): OpenSide;
  /**
   * Starts the side's runtime on this machine, its files under `workDir`: for one run (`npm start`) or for a
   * local stack's daemon (workloads/run/daemon.ts), which passes the secrets the stack holds for it.
   */
  launch(s: SideRunSettings<S>, workDir: string, secrets?: Record<string, string>): Promise<Launched<T>>;
  /**
   * What a local stack's daemon keeps of a launched target: the part it writes to ready.json, the secrets it keeps in
   * private files, the URL callers use and one that answers while the runtime is up. A side without it cannot run in a stack.
   */
  daemonTarget?(target: T): DaemonTarget;
  /** Secrets a stack makes for the side's daemon (random, by name), handed to launch and to each run's target under that name. */
  stackSecrets?: readonly string[];
}

/** What a local stack's daemon records of a runtime it launched. */
interface DaemonTarget {
  target: Record<string, unknown>;
  secrets: Record<string, string>;
  endpoint: string;
  health: string;
}

/** Any side's descriptor, as the registry holds them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
// biome-ignore lint/suspicious/noExplicitAny: a registry holds descriptors of every settings type; each side reads its own through its descriptor.
export type AnySide = SideDescriptor<any, any>;

/** A process started by this run, as the runtime watch sees it. */
export const watched = (m: Managed): WatchedProcess => ({ name: m.name, pid: m.child.pid, exited: m.exited });

/** The watch on a target's processes, or none when this run did not start them. */
export const watchOf = (processes: WatchedProcess[] | undefined): { runtime?: RuntimeWatch } =>
  processes ? { runtime: new RuntimeWatch(processes) } : {};
