import * as pulumi from "@pulumi/pulumi";
import { delegatingProvider, withOutputs } from "./delegatingProvider";
import type { DaemonHandle } from "../workloads/run/daemons";

/** What every run measures, local or remote: one side's stage group with the stack's run flags. */
interface GroupRunArgs {
  stack: pulumi.Input<string>;
  /** A runtime of the side registry. */
  side: pulumi.Input<string>;
  group: pulumi.Input<string>;
  /** `npm start` flags for preset, counts and timeouts (the stack config's run keys). */
  runArgs: pulumi.Input<pulumi.Input<string>[]>;
  /** The stack's actor-bench:runId, or null: changing it re-runs. */
  trigger: pulumi.Input<string | null>;
  /** Absolute, on this machine; the run directory (the result blob) is made under it. */
  blobRoot: pulumi.Input<string>;
}

interface BenchmarkRunArgs extends GroupRunArgs {
  /** The stack's running side (LocalSide's daemon): the run reads its target from what the daemon recorded. */
  daemon: pulumi.Input<DaemonHandle>;
  /** The secrets the stack made for the side (LocalSide's secrets), a secret input; each joins the target under its name. */
  secrets?: pulumi.Input<Record<string, string>>;
}

export interface RunSummaryOut {
  rows: Array<Record<string, unknown>>;
  throughput: Array<Record<string, unknown>>;
}

const provider = delegatingProvider("benchmarkRun");

/**
 * One side's stage group, measured when the resource is created. Its outputs
 * are the result blob's path and sha256 and a summary, never the samples.
 * Preview never runs it; an unchanged `up` does not re-run it; a changed run
 * config, target or trigger replaces it (a new measurement).
 */
export class BenchmarkRun extends pulumi.dynamic.Resource {
  declare readonly runId: pulumi.Output<string>;
  declare readonly blob: pulumi.Output<string>;
  declare readonly sha256: pulumi.Output<string>;
  declare readonly status: pulumi.Output<"complete" | "failed">;
  declare readonly failures: pulumi.Output<string[]>;
  declare readonly summary: pulumi.Output<RunSummaryOut>;
  /** Runs of this group an earlier, stopped `up` left unfinished, ended as interrupted when this one began. */
  declare readonly interrupted: pulumi.Output<Array<{ runId: string; dir: string; startedAt: string; samples: number }>>;

  constructor(name: string, args: BenchmarkRunArgs, opts?: pulumi.CustomResourceOptions) {
    const outputs = ["runId", "blob", "sha256", "status", "failures", "summary", "interrupted"];
    super(provider, name, withOutputs(args, outputs), opts, "actor-bench", "BenchmarkRun");
  }
}
