import * as pulumi from "@pulumi/pulumi";
import { join } from "node:path";
import type { StackConfig } from "../benchmarkConfig";
import { LocalEngine } from "./localEngine";
import { LocalWorker } from "./localWorker";
import { BenchmarkRun } from "../benchmarkRun";
import { passReport, type BenchmarkReport } from "../benchmarkReport";
import { rivetSettingsOf } from "../../workloads/sides/rivet/settings";

export interface LocalBenchmarkArgs {
  config: StackConfig;
  /** Absolute project directory: state under .actor-bench/<stack>/, results under results/. */
  projectDir: string;
}

/**
 * The `local` stack's whole pass: the local Engine + app and the local Worker
 * as running processes, one BenchmarkRun per side and stage group, and the
 * report made from all of them. The runs go one after another (the two sides
 * never measure at the same time); the Cloudflare side goes first so that
 * Rivet's bursts, which leave hundreds of actors awake, come last.
 */
export class LocalBenchmark extends pulumi.ComponentResource {
  readonly engine?: LocalEngine;
  readonly worker?: LocalWorker;
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
    const stateRoot = join(args.projectDir, ".actor-bench", cfg.stack);
    const loopback = cfg.run.loopback;
    const sides = cfg.run.sides;

    if (sides.includes("rivet")) {
      this.engine = new LocalEngine(
        `${name}-engine`,
        {
          stack: cfg.stack,
          stateDir: join(stateRoot, "engine"),
          loopback,
          engineVersion: cfg.engineVersion,
          settings: { ...rivetSettingsOf(cfg.run.sideSettings).engine },
          actorSleepTimeoutMs: cfg.run.actorSleepTimeoutMs,
          topology: rivetSettingsOf(cfg.run.sideSettings).engineTopology,
        },
        { parent: this },
      );
    }
    if (sides.includes("cloudflare")) {
      this.worker = new LocalWorker(
        `${name}-worker`,
        { stack: cfg.stack, stateDir: join(stateRoot, "worker"), loopback },
        { parent: this },
      );
    }

    const labels: string[] = [];
    let previous: pulumi.Resource | undefined;
    for (const side of (["cloudflare", "rivet"] as const).filter((s) => sides.includes(s))) {
      for (const group of cfg.run.groups) {
        const target =
          side === "rivet"
            ? { daemon: this.engine!.daemon, gatewayUrl: this.engine!.gatewayUrl }
            : { daemon: this.worker!.daemon, url: this.worker!.url, versions: this.worker!.versions };
        const run = new BenchmarkRun(
          `${name}-${side}-${group}`,
          {
            stack: cfg.stack,
            side,
            group,
            runArgs: cfg.runArgs,
            trigger: cfg.runTrigger,
            blobRoot: join(stateRoot, "blobs", `${side}.${group}`),
            target,
            token: side === "cloudflare" ? pulumi.secret(this.worker!.token) : undefined,
          },
          { parent: this, dependsOn: previous ? [previous] : [] },
        );
        this.runs.push(run);
        labels.push(`${side} ${group}`);
        previous = run;
      }
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
