import { runAnalytics } from "../../workloads/sides/cloudflare/analyticsRun";
import { replaceDiff, requireString, type CheckFailure, type Props } from "./common";
import { privateDir } from "../../workloads/host/privateDir";

/** What is asked for; the API token is a credential, not a reason to ask again. */
const INPUT_KEYS = ["stack", "forRunDir", "forSha256", "blobRoot", "accountId", "scriptName", "waitMs", "pollMs"];

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  requireString(news, "stack", failures);
  requireString(news, "forRunDir", failures, /^\//);
  requireString(news, "blobRoot", failures, /^\//);
  requireString(news, "scriptName", failures);
  requireString(news, "accountId", failures, /^[0-9a-f]{32}$/);
  requireString(news, "apiToken", failures);
  for (const key of ["waitMs", "pollMs"]) {
    if (!Number.isInteger(news[key]) || (news[key] as number) < 0)
      failures.push({ property: key, reason: `${key} must be a whole number of ms, got ${JSON.stringify(news[key])}` });
  }
  return { inputs: news, failures };
}

export async function diff(_id: string, olds: Props, news: Props) {
  return replaceDiff(olds, news, INPUT_KEYS);
}

/** Asks the analytics for every block of the run and keeps the responses as a run directory of their own. */
export async function create(inputs: Props) {
  const blobRoot = inputs.blobRoot as string;
  privateDir(blobRoot);
  const r = await runAnalytics({
    runDir: inputs.forRunDir as string,
    sha256: inputs.forSha256 as string,
    blobRoot,
    stack: inputs.stack as string,
    source: {
      endpoint: (inputs.endpoint as string | undefined) ?? undefined,
      apiToken: inputs.apiToken as string,
      accountId: inputs.accountId as string,
      scriptName: inputs.scriptName as string,
    },
    collect: { waitMs: inputs.waitMs as number, pollMs: inputs.pollMs as number },
  });
  const invocations = r.blocks.reduce((s, b) => s + b.groups.reduce((t, g) => t + g.requests, 0), 0);
  return {
    id: `${inputs.stack}-analytics-${r.runId}`,
    outs: { ...inputs, runId: r.runId, blob: r.runDir, sha256: r.sha256, blocks: r.blocks.length, invocations },
  };
}

// Refresh and delete work on the local copy exactly as for a run.
export { read, remove } from "./benchmarkRun";
