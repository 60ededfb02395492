import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseRunArgs, UsageError } from "../../workloads/run/runConfig";
import { GROUPS } from "../../analysis/contract/catalog";
import { runtimeIds, SIDE_REGISTRY } from "../../workloads/sides/registry";

const RUNTIMES = runtimeIds(SIDE_REGISTRY);
import { blobDigest, runGroupInChild, type GroupRunRequest } from "../../workloads/run/groupRun";
import type { DaemonHandle } from "../../workloads/run/daemons";
import { pruneEmpty, replaceDiff, requireString, UNKNOWN_INPUT, type CheckFailure, type Props } from "./common";
import { privateDir } from "../../workloads/host/privateDir";
import { endInterrupted, unfinishedRuns } from "../../workloads/experiment/interrupted";

/**
 * Inputs whose change re-runs the measurement: what is measured, with which
 * settings, against which running target, and the stack's runId trigger.
 */
const INPUT_KEYS = ["stack", "side", "group", "runArgs", "trigger", "blobRoot", "daemon"];

/** The part of a run's inputs every run shares, local or remote: which stack, side, group, flags and blob root. */
function checkGroupSelection(news: Props, failures: CheckFailure[]): void {
  requireString(news, "stack", failures);
  requireString(news, "blobRoot", failures, /^\//);
  if (!(RUNTIMES as readonly string[]).includes(news.side as string))
    failures.push({ property: "side", reason: `side must be one of ${RUNTIMES.join(", ")}, got ${JSON.stringify(news.side)}` });
  if (!(GROUPS as readonly string[]).includes(news.group as string))
    failures.push({ property: "group", reason: `group must be one of ${GROUPS.join(", ")}, got ${JSON.stringify(news.group)}` });
  if (!Array.isArray(news.runArgs) || news.runArgs.some((a) => typeof a !== "string")) {
    failures.push({ property: "runArgs", reason: "runArgs must be a list of `npm start` flags" });
  } else {
    try {
      parseRunArgs(news.runArgs as string[]);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      failures.push({ property: "runArgs", reason: err.message });
    }
  }
}

/** The flags a group run is made with: the stack's run keys, then its side and group. */
function groupRunArgs(inputs: Props): string[] {
  return [...(inputs.runArgs as string[]), "--side", inputs.side as string, "--groups", inputs.group as string];
}

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  checkGroupSelection(news, failures);
  const d = news.daemon as Props | string | undefined;
  const known = d !== UNKNOWN_INPUT;
  if (known && (!d || typeof d !== "object" || typeof d.pid !== "number" || d.kind !== news.side))
    failures.push({ property: "daemon", reason: "daemon must be the running side's daemon (the stack's LocalSide for this side)" });
  return { inputs: news, failures };
}

export async function diff(_id: string, olds: Props, news: Props) {
  return replaceDiff(olds, news, INPUT_KEYS);
}

/** Runs the side's group against the target and keeps the run directory as the result blob. */
export async function create(inputs: Props) {
  const side = inputs.side as GroupRunRequest["side"];
  const group = inputs.group as string;
  const daemon = inputs.daemon as DaemonHandle;
  const blobRoot = inputs.blobRoot as string;
  privateDir(blobRoot);
  // A run an earlier `up` left unfinished (its provider was killed): ended as interrupted, every sample it took kept
  // under its hash, and named in this run's outputs. No writer can be live there: Pulumi holds the stack's lock.
  const interrupted = unfinishedRuns(join(blobRoot, inputs.stack as string)).map((r) => {
    endInterrupted(r, "the `pulumi up` measuring it was stopped before the run recorded an end");
    return { runId: r.runId, dir: r.dir, startedAt: r.startedAt, samples: r.samples };
  });
  // The target as the daemon's side described it, each secret it keeps read from its private state folder, and the
  // secrets the stack made for it (an input of this run): all go to the run over stdin only.
  const r = daemon.ready as { target?: Props; secretFiles?: Record<string, string> };
  const kept = Object.fromEntries(Object.entries(r.secretFiles ?? {}).map(([name, file]) => [name, readFileSync(file, "utf8")]));
  const req: GroupRunRequest = {
    side,
    runArgs: groupRunArgs(inputs),
    stack: inputs.stack as string,
    blobRoot,
    targets: {
      [side]: {
        ...r.target,
        ...kept,
        ...((inputs.secrets as Record<string, string> | undefined) ?? {}),
        startedBy: `pulumi up: the stack's LocalSide resource for ${side} (its runtime kept running between runs)`,
      },
    },
  };
  const result = await runGroupInChild(req, daemon, join(blobRoot, `${side}.${group}.driver.log`));
  return {
    id: `${inputs.stack}-${side}-${group}-${result.runId}`,
    outs: {
      ...inputs,
      runId: result.runId,
      blob: result.runDir,
      sha256: result.sha256,
      status: result.status,
      failures: result.failures,
      summary: result.summary,
      interrupted,
    },
  };
}

/** Refresh: the run exists while its blob does and still has the digest it was stored with. */
export async function read(id: string, props: Props) {
  const blob = props.blob as string | undefined;
  if (!blob || !existsSync(join(blob, "manifest.json")) || blobDigest(blob) !== props.sha256) return { id: "", props: {} };
  return { id, props };
}

/** Delete: the run's blob and the interrupted attempts it closed; the blob root goes too once no run is left in it. */
export async function remove(_id: string, props: Props) {
  const earlier = Array.isArray(props.interrupted) ? (props.interrupted as Array<{ dir?: unknown }>) : [];
  for (const dir of [props.blob, ...earlier.map((r) => r.dir)]) if (typeof dir === "string") rmSync(dir, { recursive: true, force: true });
  if (typeof props.blob === "string") pruneEmpty(dirname(props.blob), props.blobRoot);
}
