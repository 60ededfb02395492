import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { downloadRunDir, withoutSas, blobUrl } from "../../workloads/runner/blobStore";
import { RUN_ID, RunDirError } from "../../analysis/contract/runDirContract";
import { summarizeRun } from "../../analysis/stats/summary";
import type { RemoteRunResult } from "../../workloads/runner/runner";
import { replaceDiff, requireString, type CheckFailure, type Props } from "./common";
import { privateDir } from "../../workloads/host/privateDir";
import { runtimeIds, SIDE_REGISTRY } from "../../workloads/sides/registry";

/** The run it fetches (its reported line) and where it goes; the SAS is a credential, not a reason to fetch again. */
const INPUT_KEYS = ["stack", "part", "prefix", "result", "blobRoot", "containerUrl"];

/** A run's part name: its tasks as <side>.<group>, joined by "+" (workloads/experiment/passPlan.ts passRunName). */
export const PART = partPattern(runtimeIds(SIDE_REGISTRY));

/** The part names a stack's runs may have: tasks of the registry's runtimes only. */
export function partPattern(runtimes: readonly string[]): RegExp {
  const task = `(${runtimes.join("|")})\\.[a-z]+`;
  return new RegExp(`^${task}(\\+${task})*$`);
}

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  requireString(news, "stack", failures);
  requireString(news, "part", failures, PART);
  requireString(news, "prefix", failures);
  requireString(news, "blobRoot", failures, /^\//);
  requireString(news, "containerUrl", failures, /^https?:\/\//);
  if (typeof news.downloadSas !== "string" || news.downloadSas.length === 0)
    failures.push({ property: "downloadSas", reason: "downloadSas must be the result container's read SAS (a secret)" });
  if (typeof news.result !== "string")
    failures.push({ property: "result", reason: "result must be the remote run's stdout (one JSON line)" });
  return { inputs: news, failures };
}

export async function diff(_id: string, olds: Props, news: Props) {
  return replaceDiff(olds, news, INPUT_KEYS);
}

/**
 * What the runner reports is untrusted: its run id must be a run id (it names
 * a folder here), its blob prefix the one this stack chose, its digest a
 * sha256. Throws RunDirError naming the field, before anything is written.
 */
export function checkRunnerResult(result: Pick<RemoteRunResult, "runId" | "blobPrefix" | "sha256">, prefix: string, who: string): void {
  if (typeof result.runId !== "string" || !RUN_ID.test(result.runId))
    throw new RunDirError(`${who} reported run id ${JSON.stringify(result.runId)}, which is not one (e.g. 20261203T1530Z)`);
  if (result.blobPrefix !== `${prefix}/${result.runId}`)
    throw new RunDirError(
      `${who} reported blob prefix ${JSON.stringify(result.blobPrefix)}; this stack asked for ${prefix}/${result.runId}`,
    );
  if (typeof result.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(result.sha256))
    throw new RunDirError(`${who} reported sha256 ${JSON.stringify(result.sha256)}, which is not one`);
}

/** The remote run's stdout must be exactly one JSON object line with the three fields; anything else is refused with what came. */
export function parseRunnerResult(stdout: string, prefix: string, who: string): RemoteRunResult {
  const text = stdout.trim();
  let value: unknown;
  try {
    if (text.includes("\n")) throw new Error("more than one line");
    value = JSON.parse(text);
  } catch {
    throw new RunDirError(
      `${who} printed ${JSON.stringify(text.slice(0, 200))}, not the one JSON line of a run (runId, blobPrefix, sha256)`,
    );
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new RunDirError(`${who} printed ${JSON.stringify(text.slice(0, 200))}, not a JSON object`);
  const r = value as RemoteRunResult;
  checkRunnerResult(r, prefix, who);
  return { runId: r.runId, blobPrefix: r.blobPrefix, sha256: r.sha256 };
}

/**
 * Brings a remote run home: the reported line is checked, the run directory
 * downloaded into blobRoot with the read-only SAS and checked against the
 * reported digest and the manifest's hashes, and status, failures and the
 * summary are read from that checked copy, never from the runner's word.
 */
export async function create(inputs: Props) {
  const part = inputs.part as string;
  const stack = inputs.stack as string;
  const blobRoot = inputs.blobRoot as string;
  const prefix = inputs.prefix as string;
  const containerUrl = inputs.containerUrl as string;
  const who = `the ${part} run on the runner`;
  privateDir(blobRoot);
  if (typeof inputs.log === "string") writeFileSync(join(blobRoot, `${part}.driver.log`), `${inputs.log}\n`, { mode: 0o600 });
  const result = parseRunnerResult(inputs.result as string, prefix, who);
  const local = join(blobRoot, stack, result.runId);
  const m = await downloadRunDir({ url: containerUrl, sas: inputs.downloadSas as string }, result.blobPrefix, local, result.sha256);
  const failed = m.status !== "complete";
  return {
    id: `${stack}-${part}-${result.runId}`,
    outs: {
      ...inputs,
      runId: result.runId,
      blob: local,
      sha256: result.sha256,
      remoteBlob: withoutSas(blobUrl({ url: containerUrl, sas: "" }, `${result.blobPrefix}/manifest.json`)),
      status: failed ? "failed" : "complete",
      failures: failed ? (m.failure ?? `status ${String(m.status)}`).split("\n") : [],
      summary: summarizeRun(local, m),
    },
  };
}

// Refresh and delete work on the local copy exactly as for a local run.
export { read, remove } from "./benchmarkRun";
