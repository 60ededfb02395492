import * as pulumi from "@pulumi/pulumi";
import { validateStackConfig, type StackKey } from "./stacks/stackConfig";
import { packageVersion } from "./workloads/versions";
import { LocalBenchmark } from "./components/localBenchmark";

// Every key in the actor-bench namespace is validated before any resource is
// declared, so a typo fails the preview instead of being ignored.
const NAMESPACE = "actor-bench:";
const SECRET_KEYS = ["cloudflareApiToken"];
const raw: Partial<Record<StackKey, string>> = {};
for (const [fullKey, value] of Object.entries(pulumi.runtime.allConfig())) {
  if (!fullKey.startsWith(NAMESPACE)) continue;
  const key = fullKey.slice(NAMESPACE.length);
  if (SECRET_KEYS.includes(key)) continue;
  raw[key as StackKey] = value;
}
const config = new pulumi.Config("actor-bench");
const stackConfig = validateStackConfig(pulumi.getStack(), raw, {
  installedEngineVersion: packageVersion("@rivetkit/engine-cli"),
  hasCloudflareApiToken: config.getSecret("cloudflareApiToken") !== undefined,
});

if (stackConfig.target !== "local") {
  throw new pulumi.RunError(
    `stack ${stackConfig.stack}: its config is valid, but the ${stackConfig.target} components (Engine cluster, runner VM, cold store, ` +
      "Cloudflare Worker) are not built yet; nothing was declared. Use the local stack (`pulumi up -s local`) or `npm start`.",
  );
}

const bench = new LocalBenchmark(stackConfig.stack, { config: stackConfig, projectDir: process.cwd() });

export const stack = stackConfig.stack;
export const preset = stackConfig.run.preset;
export const groups = stackConfig.run.groups;
/** The Markdown of results/<stack>/<runId>/report/results.md. */
export const report = bench.report;
export const runDir = bench.runDir;
export const summary = bench.summary;
export const gatewayUrl = bench.engine?.gatewayUrl;
export const workerUrl = bench.worker?.url;
