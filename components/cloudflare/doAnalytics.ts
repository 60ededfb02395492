import * as pulumi from "@pulumi/pulumi";
import { delegatingProvider, withOutputs } from "../delegatingProvider";

interface DoAnalyticsArgs {
  stack: pulumi.Input<string>;
  /** The Cloudflare run the analytics are for: its blob and sha256. */
  forRunDir: pulumi.Input<string>;
  forSha256: pulumi.Input<string>;
  /** Absolute: where the analytics' run directory is made. */
  blobRoot: pulumi.Input<string>;
  accountId: pulumi.Input<string>;
  scriptName: pulumi.Input<string>;
  /** Account Analytics: Read; a secret. */
  apiToken: pulumi.Input<string>;
  /** How long to keep asking while invocations are still arriving, and how often. */
  waitMs: pulumi.Input<number>;
  pollMs: pulumi.Input<number>;
  /** Another GraphQL endpoint than Cloudflare's (tests only). */
  endpoint?: pulumi.Input<string>;
}

/**
 * Cloudflare's in-DO wall times for one Cloudflare run, asked from this
 * machine after the run (the API token never goes to the runner VM) and kept
 * as a part of the pass, verified like every blob.
 */
export class DoAnalytics extends pulumi.dynamic.Resource {
  declare readonly runId: pulumi.Output<string>;
  declare readonly blob: pulumi.Output<string>;
  declare readonly sha256: pulumi.Output<string>;
  declare readonly blocks: pulumi.Output<number>;
  declare readonly invocations: pulumi.Output<number>;

  constructor(name: string, args: DoAnalyticsArgs, opts?: pulumi.CustomResourceOptions) {
    const outputs = ["runId", "blob", "sha256", "blocks", "invocations"];
    super(
      delegatingProvider("doAnalytics"),
      name,
      withOutputs({ ...args, apiToken: pulumi.secret(args.apiToken) }, outputs),
      { ...opts, additionalSecretOutputs: ["apiToken"] },
      "actor-bench",
      "DoAnalytics",
    );
  }
}
