import * as pulumi from "@pulumi/pulumi";
import { validateStackConfig, type RawStackConfig, type StackKey } from "./stacks/stackConfig";
import { packageVersion } from "./workloads/host/versions";
import { LocalBenchmark } from "./components/local/localBenchmark";
import { AzureBenchmark } from "./components/azure/azureBenchmark";
import { stackSlug } from "./components/azure/names";

// Every key in the actor-bench namespace is validated before any resource is
// declared, so a typo fails the preview instead of being ignored.
const NAMESPACE = "actor-bench:";
const SECRET_KEYS = ["cloudflareApiToken"];
const raw: RawStackConfig = {};
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

const bench =
  stackConfig.target === "azure"
    ? new AzureBenchmark(stackSlug(stackConfig.stack), {
        config: stackConfig,
        projectDir: process.cwd(),
        cloudflareApiToken: config.getSecret("cloudflareApiToken"),
      })
    : new LocalBenchmark(stackConfig.stack, { config: stackConfig, projectDir: process.cwd() });
const local = bench instanceof LocalBenchmark ? bench : undefined;
const cloud = bench instanceof AzureBenchmark ? bench : undefined;

export const stack = stackConfig.stack;
export const preset = stackConfig.run.preset;
export const groups = stackConfig.run.groups;
/** The Markdown of results/<stack>/<runId>/report/results.md. */
export const report = bench.report;
export const runDir = bench.runDir;
export const summary = bench.summary;
/** The static site (site/index.html beside results/): every verified run, this pass's included, and the comparison view. */
export const site = bench.site;
/** The URL each side's clients use, by side (a local stack's runtimes on this machine's loopback). */
export const endpoints = local
  ? pulumi.all(Object.fromEntries(Object.entries(local.sides).map(([side, s]) => [side, s.endpoint])))
  : cloud?.endpoints;
/** A cloud pass's planned runs, their expected times and where idle waits overlap (also `npm run schedule -- <stack>`). */
export const schedule = cloud?.schedule;
/** The runner VM's public address (SSH from sshSourceAddress only). */
export const runnerIp = cloud?.runner.publicIp;
