import * as pulumi from "@pulumi/pulumi";
import { remote, type types } from "@pulumi/command";
import { delegatingProvider, withOutputs } from "./delegatingProvider";
import type { RunSummaryOut } from "./benchmarkRun";
import { runCommand } from "../workloads/runner/commands";

/**
 * How every step reaches the runner VM: its address, the client key (a
 * secret) and the host key the stack generated and cloud-init installed, so
 * no connection trusts a key on first use. A VM still booting refuses
 * connections for a while: up to 60 dials.
 */
export type RunnerConnection = types.input.remote.ConnectionArgs & { hostKey: pulumi.Input<string> };

export const DIAL = { dialErrorLimit: 60, perDialTimeout: 20 } as const;

interface RemoteGroupRunArgs {
  stack: string;
  /** Which tasks the run takes, e.g. "rivet.create" or "cloudflare.wake+rivet.create+rivet.wake" (passRunName). */
  part: string;
  connection: pulumi.Input<RunnerConnection>;
  appDir: string;
  nodeBin: string;
  /** The run's time limit on the runner (config runTimeLimitMinutes). */
  limitMinutes: number;
  /** The RemoteRunRequest (workloads/runner/runner.ts), without credentials: a change re-runs the group. */
  request: pulumi.Input<Record<string, unknown>>;
  /** What else re-runs it: the deployed bundle, the stack's runId trigger. */
  triggers: pulumi.Input<unknown>[];
  /** Blob name prefix the runner must use: <stack>/<part>. */
  prefix: string;
  containerUrl: pulumi.Input<string>;
  /** The read-only SAS this machine downloads with (a secret); never sent to the runner. */
  downloadSas: pulumi.Input<string>;
  /** Absolute, on this machine: where the checked copy of the run directory lands. */
  blobRoot: string;
  /** What the run command waits for (the deploy, the previous run, the Worker): a component's dependsOn does not reach its children. */
  after: pulumi.Input<pulumi.Resource>[];
}

/**
 * Brings a remote run home and checks it (workloads/runner/runner.ts prints
 * the line it reads). Its outputs are the checked copy, as a BenchmarkRun's.
 */
export class RemoteRunFetch extends pulumi.dynamic.Resource {
  declare readonly runId: pulumi.Output<string>;
  declare readonly blob: pulumi.Output<string>;
  declare readonly sha256: pulumi.Output<string>;
  declare readonly remoteBlob: pulumi.Output<string>;
  declare readonly status: pulumi.Output<"complete" | "failed">;
  declare readonly failures: pulumi.Output<string[]>;
  declare readonly summary: pulumi.Output<RunSummaryOut>;

  constructor(name: string, args: Record<string, pulumi.Input<unknown>>, opts?: pulumi.CustomResourceOptions) {
    const outputs = ["runId", "blob", "sha256", "remoteBlob", "status", "failures", "summary"];
    super(
      delegatingProvider("remoteRunFetch"),
      name,
      withOutputs(args, outputs),
      { ...opts, additionalSecretOutputs: ["downloadSas"] },
      "actor-bench",
      "RemoteRunFetch",
    );
  }
}

/**
 * One run of the pass on the runner VM (one group, or a Cloudflare group with
 * the Rivet groups its idle wait hosts): a remote.Command runs the driver
 * there (single-flight, time-limited; the run directory goes to the result
 * container) and prints one JSON line; a RemoteRunFetch downloads that run
 * and checks it against the digest in the line and the manifest's hashes.
 */
export class RemoteGroupRun extends pulumi.ComponentResource {
  readonly command: remote.Command;
  readonly fetched: RemoteRunFetch;
  readonly blob: pulumi.Output<string>;
  readonly sha256: pulumi.Output<string>;
  readonly status: pulumi.Output<"complete" | "failed">;

  constructor(name: string, args: RemoteGroupRunArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:remote:GroupRun", name, {}, opts);
    // The command's own deadline is the run's limit plus the stop grace and the upload.
    const timeout = `${args.limitMinutes + 10}m`;
    this.command = new remote.Command(
      `${name}-run`,
      {
        connection: args.connection,
        create: runCommand(args.appDir, args.nodeBin, args.limitMinutes * 60),
        // The runner names a part by its stdin: the triggers go in too, so a new runId or new runner code is a new part, measured afresh.
        stdin: pulumi.all([args.request, args.triggers]).apply(([r, triggers]) => JSON.stringify({ ...r, triggers })),
        triggers: args.triggers,
        addPreviousOutputInEnv: false,
      },
      { parent: this, dependsOn: args.after, customTimeouts: { create: timeout, update: timeout } },
    );
    this.fetched = new RemoteRunFetch(
      `${name}-fetch`,
      {
        stack: args.stack,
        part: args.part,
        prefix: args.prefix,
        result: this.command.stdout,
        log: this.command.stderr,
        containerUrl: args.containerUrl,
        downloadSas: pulumi.secret(args.downloadSas),
        blobRoot: args.blobRoot,
      },
      { parent: this },
    );
    this.blob = this.fetched.blob;
    this.sha256 = this.fetched.sha256;
    this.status = this.fetched.status;
    this.registerOutputs({ blob: this.blob, sha256: this.sha256, status: this.status, remoteBlob: this.fetched.remoteBlob });
  }
}
