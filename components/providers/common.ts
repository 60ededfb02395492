import type { SideRunSettings } from "../../workloads/sides/side";
import type { Loopback } from "../../workloads/host/netns";
import { RUN_DEFAULTS } from "../../workloads/run/runConfig";
import { PRESETS } from "../../analysis/contract/catalog";
import { readdirSync, rmdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { daemonAnswers, stopDaemon, type DaemonHandle } from "../../workloads/run/daemons";

/** Shapes shared by the dynamic providers' implementations (plain code: no Pulumi import). */
export interface CheckFailure {
  property: string;
  reason: string;
}

export type Props = Record<string, unknown>;

/**
 * What a preview passes for an input not known yet (another resource's output): the Pulumi SDK's
 * rpc.unknownValue (sdk/nodejs/runtime/rpc.ts). A check lets it through; the real value is checked on `up`.
 */
export const UNKNOWN_INPUT = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The input keys whose values differ between two property bags (deep, by JSON). */
function changedKeys(olds: Props, news: Props, keys: readonly string[]): string[] {
  return keys.filter((k) => JSON.stringify(olds[k] ?? null) !== JSON.stringify(news[k] ?? null));
}

/** A replace-on-any-change diff over `keys`, as every provider here wants. */
export function replaceDiff(olds: Props, news: Props, keys: readonly string[], deleteBeforeReplace = false) {
  const replaces = changedKeys(olds, news, keys);
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: replaces.length > 0 && deleteBeforeReplace };
}

export function requireString(news: Props, key: string, failures: CheckFailure[], pattern?: RegExp): void {
  const v = news[key];
  if (typeof v !== "string" || v.length === 0 || (pattern && !pattern.test(v))) {
    failures.push({ property: key, reason: `${key} must be a string${pattern ? ` matching ${pattern}` : ""}, got ${JSON.stringify(v)}` });
  }
}

/** Refresh of a daemon-backed resource: it exists while its daemon is the same process and `url` answers. */
export function readDaemon(id: string, props: Props, url: string) {
  const h = props.daemon as DaemonHandle | undefined;
  if (!h || !daemonAnswers(h, url)) return { id: "", props: {} };
  return { id, props };
}

/** Delete of a daemon-backed resource: stop the daemon (its children die with it), remove its state. */
export async function removeDaemon(props: Props): Promise<void> {
  const h = props.daemon as DaemonHandle | undefined;
  if (h) await stopDaemon(h);
  rmSync(props.stateDir as string, { recursive: true, force: true });
  removeEmptyParents(dirname(props.stateDir as string), 1);
}

/** Removes `dir` and then its parents, `levels` folders in all, each only while it is empty. */
function removeEmptyParents(dir: string, levels: number): void {
  for (let i = 0; i < levels; i++, dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}

/**
 * After a run's delete: once `runs` (the folder its run directories are made
 * in) holds none, its blob `root` goes, logs and all, and then the stack's
 * blob folders it leaves empty, so a destroyed stack leaves no file behind.
 */
export function pruneEmpty(runs: string, root: unknown): void {
  if (typeof root !== "string" || !runs.startsWith(`${root}/`)) return;
  let left: string[] = [];
  try {
    left = readdirSync(runs);
  } catch {
    // no run folder at all
  }
  if (left.length > 0) return;
  rmSync(root, { recursive: true, force: true });
  removeEmptyParents(dirname(root), 2);
}

/**
 * The run settings a stack's daemon launches a side with: the side's own
 * settings, the loopback and the actors' sleep timeout, the rest at the run's
 * defaults; counts, groups and timeouts belong to the runs, which send their own.
 */
export function daemonSettings(own: unknown, loopback: Loopback, actorSleepTimeoutMs: number): SideRunSettings {
  return {
    requestTimeoutMs: RUN_DEFAULTS.requestTimeoutMs,
    wakeIdleMs: RUN_DEFAULTS.wakeIdleMs,
    actorSleepTimeoutMs,
    loopback,
    plant: {},
    counts: PRESETS[RUN_DEFAULTS.preset],
    groups: [],
    scaleLevels: [],
    own,
  };
}
