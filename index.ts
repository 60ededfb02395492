import * as pulumi from "@pulumi/pulumi";
import { validateStackConfig, projectDirOf, type RawStackConfig, type StackKey } from "./stacks/stackConfig";
import { UsageError } from "./workloads/run/runConfig";
import { packageVersion } from "./workloads/host/versions";
import { LocalBenchmark } from "./components/local/localBenchmark";
import { AzureBenchmark } from "./components/azure/azureBenchmark";
import { stackSlug } from "./components/azure/names";

const NAMESPACE = "actor-bench:";
const SECRET_KEYS = ["cloudflareApiToken"];

/**
 * The stack's outputs. Each is exported only where the stack has it: a local
 * stack has no runner address or cloud schedule.
 */
function program(): Record<string, unknown> {
  // Every key in the actor-bench namespace is validated before any resource is
  // declared, so a typo fails the preview instead of being ignored.
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
  // The Node language host runs the program in the folder of Pulumi.yaml's main (dist/), so the project
  // folder is Pulumi's root directory (or the folder above the program holding Pulumi.yaml), never the cwd.
  const projectDir = projectDirOf(pulumi.runtime.getRootDirectory(), __dirname);
  const shared = (bench: LocalBenchmark | AzureBenchmark) => ({
    stack: stackConfig.stack,
    preset: stackConfig.run.preset,
    groups: stackConfig.run.groups,
    /** The Markdown of results/<stack>/<runId>/report/results.md. */
    report: bench.report,
    runDir: bench.runDir,
    summary: bench.summary,
    /** The static site (site/index.html beside results/): every verified run, this pass's included, and the comparison view. */
    site: bench.site,
  });
  if (stackConfig.target !== "azure") {
    const local = new LocalBenchmark(stackConfig.stack, { config: stackConfig, projectDir });
    return {
      ...shared(local),
      /** The URL each side's clients use, by side (the runtimes on this machine's loopback). */
      endpoints: pulumi.all(Object.fromEntries(Object.entries(local.sides).map(([side, s]) => [side, s.endpoint]))),
    };
  }
  const cloud = new AzureBenchmark(stackSlug(stackConfig.stack), {
    config: stackConfig,
    projectDir,
    cloudflareApiToken: config.getSecret("cloudflareApiToken"),
  });
  return {
    ...shared(cloud),
    endpoints: cloud.endpoints,
    /** A cloud pass's planned runs, their expected times and where idle waits overlap (also `npm run schedule -- <stack>`). */
    schedule: cloud.schedule,
    /** The runner VM's public address (SSH from sshSourceAddress only). */
    runnerIp: cloud.runner.publicIp,
  };
}

/** A config error reaches the user as its one line (a RunError: the CLI prints no stack trace for it). */
function outputs(): Record<string, unknown> {
  try {
    return program();
  } catch (err) {
    if (err instanceof UsageError) throw new pulumi.RunError(err.message);
    throw err;
  }
}

export = outputs();
