import * as pulumi from "@pulumi/pulumi";
import { delegatingProvider, withOutputs } from "./delegatingProvider";
import type { GroupRunArgs, RunSummaryOut } from "./benchmarkRun";

/** How a resource reaches the runner VM. The private key must arrive as a secret. */
export interface SshArgs {
  host: pulumi.Input<string>;
  port: pulumi.Input<number>;
  user: pulumi.Input<string>;
  privateKey: pulumi.Input<string>;
}

export interface RunnerDeployArgs {
  stack: pulumi.Input<string>;
  /** The checkout whose package.json, package-lock.json and dist/ are shipped. */
  projectDir: pulumi.Input<string>;
  ssh: pulumi.Input<SshArgs>;
  /** This stack's pinned host keys (trusted on first use). */
  knownHostsFile: pulumi.Input<string>;
  appDir: pulumi.Input<string>;
  nodeBin: pulumi.Input<string>;
  /** The Engine gateway as the runner reaches it (the internal load balancer). */
  gatewayUrl: pulumi.Input<string>;
  /** sha256 of the shipped files: a new build redeploys. */
  bundleDigest: pulumi.Input<string>;
  /** Exits 0 once the VM's first boot is done (e.g. `cloud-init status --wait`). */
  readyCommand: pulumi.Input<string>;
  startAppCommand: pulumi.Input<string>;
  stopAppCommand: pulumi.Input<string>;
}

const SECRET_OUTPUTS = ["ssh", "container", "downloadSas", "workerToken", "adminToken"];

/**
 * The RivetKit app and the driver on the runner: shipped over SSH, installed
 * from the lock file, started, and checked with one request through the
 * gateway before `up` moves on.
 */
export class RunnerDeploy extends pulumi.dynamic.Resource {
  declare readonly probe: pulumi.Output<{ ok: boolean; ms: number; actorId: string }>;

  constructor(name: string, args: RunnerDeployArgs, opts?: pulumi.CustomResourceOptions) {
    super(delegatingProvider("runnerDeploy"), name, withOutputs(args, ["probe"]), { ...opts, additionalSecretOutputs: ["ssh"] }, "actor-bench", "RunnerDeploy");
  }
}

/** blobRoot is where the checked copy of the run directory lands. */
export interface RemoteBenchmarkRunArgs extends GroupRunArgs {
  ssh: pulumi.Input<SshArgs>;
  knownHostsFile: pulumi.Input<string>;
  appDir: pulumi.Input<string>;
  nodeBin: pulumi.Input<string>;
  /** The RunnerDeploy's id: a redeployed runner re-runs. */
  deployId: pulumi.Input<string>;
  /** Rivet: the Engine as the runner reaches it. Cloudflare: the deployed Worker, its versions and runtime notes. */
  target: pulumi.Input<
    | { gatewayUrl: pulumi.Input<string>; engineVersion: pulumi.Input<string>; engineConfig: pulumi.Input<unknown>; startedBy: pulumi.Input<string> }
    | { url: pulumi.Input<string>; versions: pulumi.Input<Record<string, string>>; runtime: { runtime: string; workerClock: string; eviction: string }; startedBy: pulumi.Input<string> }
  >;
  /** The Worker's bench token (a secret); Cloudflare runs only. Not a reason to re-run: a new Worker has a new url. */
  workerToken?: pulumi.Input<string>;
  /** The Engine cluster's admin token (a secret); Rivet runs only, for the Engine's API (sleep confirmation). Not a reason to re-run. */
  adminToken?: pulumi.Input<string>;
  /** The result container and the runner's SAS of it, create and write only (a secret). */
  container: pulumi.Input<{ url: pulumi.Input<string>; sas: pulumi.Input<string> }>;
  /** The SAS this machine downloads the run with, read only (a secret); never sent to the runner. */
  downloadSas: pulumi.Input<string>;
}

/**
 * A BenchmarkRun whose driver runs on the runner VM: the run directory is
 * written there, uploaded to the result container, and brought home checked.
 */
export class RemoteBenchmarkRun extends pulumi.dynamic.Resource {
  declare readonly runId: pulumi.Output<string>;
  declare readonly blob: pulumi.Output<string>;
  declare readonly sha256: pulumi.Output<string>;
  declare readonly remoteBlob: pulumi.Output<string>;
  declare readonly status: pulumi.Output<"complete" | "failed">;
  declare readonly failures: pulumi.Output<string[]>;
  declare readonly summary: pulumi.Output<RunSummaryOut>;

  constructor(name: string, args: RemoteBenchmarkRunArgs, opts?: pulumi.CustomResourceOptions) {
    const outputs = ["runId", "blob", "sha256", "remoteBlob", "status", "failures", "summary"];
    super(delegatingProvider("remoteBenchmarkRun"), name, withOutputs(args, outputs), { ...opts, additionalSecretOutputs: SECRET_OUTPUTS }, "actor-bench", "RemoteBenchmarkRun");
  }
}
