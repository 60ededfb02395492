import * as pulumi from "@pulumi/pulumi";
import type { DaemonHandle } from "../../workloads/run/daemons";
import type { Loopback } from "../../workloads/host/netns";
import { delegatingProvider, withOutputs } from "../delegatingProvider";

interface LocalSideArgs {
  stack: pulumi.Input<string>;
  /** A runtime of the side registry whose package can run as a stack's daemon (its daemonTarget). */
  side: pulumi.Input<string>;
  /** Absolute; the runtime's data, config and logs. Removed by destroy. */
  stateDir: pulumi.Input<string>;
  loopback: pulumi.Input<Loopback>;
  /** The side's own settings, as the stack's config gives them (its options over its package's defaults). */
  own: pulumi.Input<unknown>;
  actorSleepTimeoutMs: pulumi.Input<number>;
}

const provider = delegatingProvider("localSide");

/**
 * One side's local runtime as one resource, whichever side: `up` starts it in
 * a background daemon through the side's own launch (the one `npm start`
 * uses) and waits until it answers; refresh finds a dead one gone; destroy
 * stops it and removes its data. The secrets the side asks a stack for
 * (its package's stackSecrets) are made here, random, and are a secret output.
 */
export class LocalSide extends pulumi.dynamic.Resource {
  /** The URL the side's clients use, as its package names it. */
  declare readonly endpoint: pulumi.Output<string>;
  /** The target as the side's package describes it, without its secrets. */
  declare readonly target: pulumi.Output<Record<string, unknown>>;
  declare readonly secrets: pulumi.Output<Record<string, string>>;
  declare readonly daemon: pulumi.Output<DaemonHandle>;

  constructor(name: string, args: LocalSideArgs, opts?: pulumi.CustomResourceOptions) {
    const secret = pulumi.mergeOptions(opts, { additionalSecretOutputs: ["secrets"] });
    super(provider, name, withOutputs(args, ["endpoint", "target", "secrets", "daemon"]), secret, "actor-bench", "LocalSide");
  }
}
