import * as pulumi from "@pulumi/pulumi";
import { join } from "node:path";
import type { StackConfig } from "../benchmarkConfig";
import { LocalSide } from "./localSide";
import { BenchmarkRun } from "../benchmarkRun";
import { passReport, type BenchmarkReport } from "../benchmarkReport";
import { SIDE_REGISTRY, sideOf, type SideRegistry } from "../../workloads/sides/registry";
import { localPassOrder } from "../../workloads/experiment/passPlan";
import { unfinishedRuns } from "../../workloads/experiment/interrupted";

interface LocalBenchmarkArgs {
  config: StackConfig;
  /** Absolute project directory: state under .actor-bench/<stack>/, results under results/. */
  projectDir: string;
  /** The sides there are (the project's registry unless a test adds one). */
  registry?: SideRegistry;
}

/**
 * The `local` stack's whole pass: each measured side's runtime as a running
 * LocalSide, one BenchmarkRun per side and stage group, and the report made
 * from all of them. The runs go one after another (two sides never measure at
 * the same time) in localPassOrder: a side whose actors sleep by idle only
 * goes first, so the actors another side's bursts leave awake cost it nothing.
 */
export class LocalBenchmark extends pulumi.ComponentResource {
  /** Each side's running runtime, by side id. */
  readonly sides: Record<string, LocalSide> = {};
  readonly runs: BenchmarkRun[] = [];
  readonly reportResource: BenchmarkReport;
  readonly report: pulumi.Output<string>;
  readonly runDir: pulumi.Output<string>;
  readonly summary: pulumi.Output<unknown>;
  /** The static site's index.html, rebuilt from every run under results/ after this pass. */
  readonly site: pulumi.Output<string>;

  constructor(name: string, args: LocalBenchmarkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:local:Benchmark", name, {}, opts);
    const cfg = args.config;
    const registry = args.registry ?? SIDE_REGISTRY;
    const stateRoot = join(args.projectDir, ".actor-bench", cfg.stack);
    for (const side of cfg.run.sides) {
      this.sides[side] = new LocalSide(
        `${name}-${side}`,
        {
          stack: cfg.stack,
          side,
          stateDir: join(stateRoot, side),
          loopback: cfg.run.loopback,
          own: cfg.run.sideSettings[side] as object,
          actorSleepTimeoutMs: cfg.run.actorSleepTimeoutMs,
        },
        { parent: this },
      );
    }

    const labels: string[] = [];
    let previous: pulumi.Resource | undefined;
    const profiles = cfg.run.sides.map((s) => sideOf(registry, s).profile);
    for (const { side, group } of localPassOrder(profiles, cfg.run.groups)) {
      const running = this.sides[side];
      const blobRoot = join(stateRoot, "blobs", `${side}.${group}`);
      // Read only: the run's create ends these as interrupted. Pulumi holds the stack's lock, so no writer is live.
      for (const left of unfinishedRuns(join(blobRoot, cfg.stack)))
        pulumi.log.warn(
          `${side} ${group}: run ${left.runId} (${left.dir}) was left unfinished by a stopped \`pulumi up\` with ${left.samples} samples; ` +
            "this up ends it as interrupted (its samples kept under their hashes) and measures the group again",
          this,
        );
      const run = new BenchmarkRun(
        `${name}-${side}-${group}`,
        {
          stack: cfg.stack,
          side,
          group,
          runArgs: cfg.runArgs,
          trigger: cfg.runTrigger,
          blobRoot,
          daemon: running.daemon,
          secrets: pulumi.secret(running.secrets),
        },
        { parent: this, dependsOn: previous ? [previous] : [] },
      );
      this.runs.push(run);
      labels.push(`${side} ${group}`);
      previous = run;
    }

    this.reportResource = passReport(
      `${name}-report`,
      cfg.stack,
      args.projectDir,
      this.runs.map((run, i) => ({ run, label: labels[i] })),
      this,
      cfg.run.prices,
    );
    this.report = this.reportResource.report;
    this.runDir = this.reportResource.runDir;
    this.summary = this.reportResource.summary;
    this.site = this.reportResource.site;
    this.registerOutputs({ report: this.report, runDir: this.runDir, summary: this.summary, site: this.site });
  }
}
