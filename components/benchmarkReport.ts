import * as pulumi from "@pulumi/pulumi";
import { join } from "node:path";
import { delegatingProvider, withOutputs } from "./delegatingProvider";
import type { RunSummaryOut } from "./benchmarkRun";
import type { PriceTable } from "../analysis/contract/prices";

interface BenchmarkReportArgs {
  stack: pulumi.Input<string>;
  /** Absolute; the merged run directory is results/<stack>/<runId>/ under it. */
  resultsRoot: pulumi.Input<string>;
  /** Every BenchmarkRun's blob, verified by sha256 before it is merged. */
  parts: pulumi.Input<Array<pulumi.Input<{ label: string; runDir: pulumi.Input<string>; sha256: pulumi.Input<string> }>>>;
  /** The stack's price table (actor-bench:prices), read on this machine; absent: the repository's. */
  prices?: PriceTable;
}

const provider = delegatingProvider("benchmarkReport");

/** The pass's run directory and report, made from every BenchmarkRun's blob. Destroy keeps the results. */
export class BenchmarkReport extends pulumi.dynamic.Resource {
  declare readonly runId: pulumi.Output<string>;
  declare readonly runDir: pulumi.Output<string>;
  declare readonly status: pulumi.Output<string>;
  declare readonly failure: pulumi.Output<string | null>;
  declare readonly report: pulumi.Output<string>;
  declare readonly summary: pulumi.Output<RunSummaryOut>;
  /** The static site's index.html (beside results/), rebuilt with this run. */
  declare readonly site: pulumi.Output<string>;

  constructor(name: string, args: BenchmarkReportArgs, opts?: pulumi.CustomResourceOptions) {
    const outputs = ["runId", "runDir", "status", "failure", "report", "summary", "site"];
    super(provider, name, withOutputs(args, outputs), opts, "actor-bench", "BenchmarkReport");
  }
}

/** The report of a pass: every run's blob, labelled, merged into results/<stack>/ after the last run. */
export function passReport(
  name: string,
  stack: string,
  projectDir: string,
  runs: Array<{ run: pulumi.Resource & { blob: pulumi.Output<string>; sha256: pulumi.Output<string> }; label: string }>,
  parent: pulumi.Resource,
  prices?: PriceTable,
): BenchmarkReport {
  return new BenchmarkReport(
    name,
    {
      stack,
      resultsRoot: join(projectDir, "results"),
      parts: runs.map(({ run, label }) => ({ label, runDir: run.blob, sha256: run.sha256 })),
      ...(prices ? { prices } : {}),
    },
    { parent, dependsOn: runs.map((r) => r.run) },
  );
}
