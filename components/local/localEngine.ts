import * as pulumi from "@pulumi/pulumi";
import type { DaemonHandle } from "../../workloads/run/daemons";
import type { EngineSettings } from "../../cluster/engineConfig";
import { delegatingProvider, withOutputs } from "../delegatingProvider";

export interface LocalEngineArgs {
  stack: pulumi.Input<string>;
  /** Absolute; the Engine's data, config and logs. Removed by destroy. */
  stateDir: pulumi.Input<string>;
  loopback: pulumi.Input<"quickack" | "host">;
  /** Must be the version installed from npm: check() refuses another. */
  engineVersion: pulumi.Input<string>;
  settings: pulumi.Input<EngineSettings>;
  actorSleepTimeoutMs: pulumi.Input<number>;
  /** single Engine, or the cloud's three-node topology (Postgres + NATS + haproxy) on this machine. */
  topology: pulumi.Input<"single" | "cluster">;
}

/** A running daemon as the providers record it. */
export type DaemonOut = DaemonHandle;

const provider = delegatingProvider("localEngine");

/**
 * The local Rivet Engine and its RivetKit app as one resource: `up` starts them
 * in a background daemon and waits for the gateway's health and the app's
 * registration; refresh finds a dead one gone; destroy stops both and removes
 * their data.
 */
export class LocalEngine extends pulumi.dynamic.Resource {
  declare readonly gatewayUrl: pulumi.Output<string>;
  declare readonly runningEngineVersion: pulumi.Output<string>;
  declare readonly daemon: pulumi.Output<DaemonOut>;

  constructor(name: string, args: LocalEngineArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, name, withOutputs(args, ["gatewayUrl", "runningEngineVersion", "daemon"]), opts, "actor-bench", "LocalEngine");
  }
}
