import { writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import type { GroupRunRequest } from "../../workloads/local/groupRun";
import { downloadRunDir, withoutSas, blobUrl } from "../../workloads/remote/blobStore";
import { RUN_ID, RunDirError } from "../../analysis/runDirContract";
import { parseResultLine, type RemoteRunRequest, type RemoteRunResult } from "../../workloads/remote/runner";
import { runnerCommand } from "../../workloads/remote/bundle";
import { sshExec } from "../../workloads/remote/ssh";
import { textTail } from "../../workloads/waitFor";
import { checkSsh, sshTargetOf } from "./remote";
import { replaceDiff, type CheckFailure, type Props } from "./common";
import { checkGroupSelection, groupRunArgs } from "./benchmarkRun";
import { privateDir } from "../../workloads/privateDir";

/** What is measured and against what; the SSH key and the SAS are credentials, not reasons to re-run. */
const INPUT_KEYS = ["stack", "side", "group", "runArgs", "trigger", "blobRoot", "target", "appDir", "deployId"];

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  checkGroupSelection(news, failures);
  checkSsh(news, failures);
  const c = news.container as Props | undefined;
  if (!c || typeof c.url !== "string" || !/^https?:\/\//.test(c.url) || typeof c.sas !== "string") failures.push({ property: "container", reason: "container must be {url, sas} of the result container" });
  if (typeof news.downloadSas !== "string" || news.downloadSas.length === 0) failures.push({ property: "downloadSas", reason: "downloadSas must be the result container's read SAS (a secret)" });
  const t = news.target as Props | undefined;
  if (news.side === "rivet" && (!t || typeof t.gatewayUrl !== "string")) failures.push({ property: "target", reason: "target must give the Engine's gatewayUrl as the runner reaches it" });
  if (news.side === "rivet" && news.adminToken !== undefined && (typeof news.adminToken !== "string" || news.adminToken.length < 32)) {
    failures.push({ property: "adminToken", reason: "adminToken must be the Engine cluster's admin token (a secret of 32+ characters)" });
  }
  if (news.side === "cloudflare") {
    if (!t || typeof t.url !== "string" || !/^https?:\/\//.test(t.url)) failures.push({ property: "target", reason: "target must give the Worker's url" });
    if (typeof news.workerToken !== "string" || news.workerToken.length < 16) failures.push({ property: "workerToken", reason: "workerToken must be the Worker's bench token (a secret)" });
  }
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
  if (typeof result.runId !== "string" || !RUN_ID.test(result.runId)) throw new RunDirError(`${who} reported run id ${JSON.stringify(result.runId)}, which is not one (e.g. 20261203T1530Z)`);
  if (result.blobPrefix !== `${prefix}/${result.runId}`) throw new RunDirError(`${who} reported blob prefix ${JSON.stringify(result.blobPrefix)}; this stack asked for ${prefix}/${result.runId}`);
  if (typeof result.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(result.sha256)) throw new RunDirError(`${who} reported sha256 ${JSON.stringify(result.sha256)}, which is not one`);
}

/**
 * Runs the group on the runner VM over SSH. The runner writes the run
 * directory there, uploads it to the result container and reports the
 * manifest's sha256; the run is then downloaded into blobRoot and checked
 * against that digest and the manifest's raw-file hashes.
 */
export async function create(inputs: Props) {
  const t = sshTargetOf(inputs);
  const side = inputs.side as "rivet" | "cloudflare";
  const group = inputs.group as string;
  const stack = inputs.stack as string;
  const appDir = inputs.appDir as string;
  const blobRoot = inputs.blobRoot as string;
  const target = inputs.target as Props;
  const container = inputs.container as { url: string; sas: string };
  privateDir(blobRoot);
  const request: GroupRunRequest = {
    side,
    runArgs: groupRunArgs(inputs),
    stack,
    blobRoot: `${appDir}/runs`,
  };
  if (side === "rivet") {
    request.rivet = { gatewayUrl: target.gatewayUrl as string, ...(typeof inputs.adminToken === "string" ? { adminToken: inputs.adminToken } : {}), engineVersion: target.engineVersion as string, engineConfig: target.engineConfig, startedBy: target.startedBy as string };
  } else {
    request.cloudflare = {
      url: target.url as string,
      token: inputs.workerToken as string,
      versions: target.versions as Record<string, string>,
      startedBy: target.startedBy as string,
      runtime: target.runtime as { runtime: string; workerClock: string; eviction: string },
    };
  }
  const remote: RemoteRunRequest = { request, container, prefix: `${stack}/${side}.${group}` };
  const log = join(blobRoot, `${side}.${group}.driver.log`);
  writeFileSync(log, "");
  const r = await sshExec(t, runnerCommand(appDir, inputs.nodeBin as string, ["run"]), { stdin: JSON.stringify(remote), onStderr: (s) => appendFileSync(log, s) });
  const result = parseResultLine<RemoteRunResult>(r.stdout);
  if (r.code !== 0 || !result) {
    throw new Error(`the ${side} ${group} run on ${t.host} failed (exit ${r.code}); its log is in ${log}:\n${textTail(r.stderr)}`);
  }
  checkRunnerResult(result, remote.prefix, `the ${side} ${group} run on ${t.host}`);
  const local = join(blobRoot, stack, result.runId);
  await downloadRunDir({ url: container.url, sas: inputs.downloadSas as string }, result.blobPrefix, local, result.sha256);
  return {
    id: `${stack}-${side}-${group}-${result.runId}`,
    outs: {
      ...inputs,
      runId: result.runId,
      blob: local,
      sha256: result.sha256,
      remoteBlob: withoutSas(blobUrl(container, `${result.blobPrefix}/manifest.json`)),
      status: result.status,
      failures: result.failures,
      summary: result.summary,
    },
  };
}

// Refresh and delete work on the local copy exactly as for a local run.
export { read, remove } from "./benchmarkRun";
