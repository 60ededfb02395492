import * as pulumi from "@pulumi/pulumi";
import { delegatingProvider, withOutputs } from "../delegatingProvider";
import type { DaemonOut } from "./localEngine";

export interface LocalWorkerArgs {
  stack: pulumi.Input<string>;
  /** Absolute; the DO SQLite files and workerd's wrapper. Removed by destroy. */
  stateDir: pulumi.Input<string>;
  loopback: pulumi.Input<"quickack" | "host">;
}

const provider = delegatingProvider("localWorker");

/**
 * The Worker and its SQLite Durable Object on real workerd (Miniflare 4) as a
 * background daemon. Its bench token is random per Worker and a secret output.
 */
export class LocalWorker extends pulumi.dynamic.Resource {
  declare readonly url: pulumi.Output<string>;
  declare readonly token: pulumi.Output<string>;
  declare readonly versions: pulumi.Output<Record<string, string>>;
  declare readonly daemon: pulumi.Output<DaemonOut>;

  constructor(name: string, args: LocalWorkerArgs, opts?: pulumi.CustomResourceOptions) {
    const secret = pulumi.mergeOptions(opts, { additionalSecretOutputs: ["token"] });
    super(provider, name, withOutputs(args, ["url", "token", "versions", "daemon"]), secret, "actor-bench", "LocalWorker");
  }
}
