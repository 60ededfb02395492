import * as pulumi from "@pulumi/pulumi";
import * as authorization from "@pulumi/azure-native/authorization";
import * as random from "@pulumi/random";
import * as tls from "@pulumi/tls";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { StackConfig } from "../benchmarkConfig";
import { bundleDigest, writeBundleArchive } from "../../workloads/remote/bundle";
import { engineVmPlan } from "./networkRules";
import { CLOUD_PORTS } from "../../cluster/topology";
import { passReport, type BenchmarkReport } from "../benchmarkReport";
import { RemoteGroupRun } from "../remoteRunner";
import { passRunName, planPass, taskLabel, type PassRun } from "../../workloads/passPlan";
import { newestCosts, passSchedule } from "../../workloads/passSchedule";
import { BenchNetwork } from "./network";
import { ColdStore } from "./coldStore";
import { EngineCluster, POSTGRES_SETTINGS } from "./engineCluster";
import { RunnerVm, RUNNER_NODE_BIN } from "./runnerVm";
import { RUNNER_PATHS } from "../../cluster/cloudInit";
import { ENGINE_CAPS } from "../../cluster/engineConfig";
import type { RunnerCredentials } from "../../workloads/remote/runner";
import { CloudflareWorker } from "../cloudflare/worker";
import { DoAnalytics } from "../cloudflare/doAnalytics";
import { COMPATIBILITY_DATE } from "../../workloads/cloudflare/compatibility";

/** How long the DO analytics are asked for after a Cloudflare run while invocations are still arriving, and how often. */
export const ANALYTICS_WAIT = { waitMs: 15 * 60_000, pollMs: 60_000 };

const CLOUDFLARE_RUNTIME = {
  runtime: "Cloudflare Workers on workers.dev, SQLite-backed Durable Object (new_sqlite_classes), placed by Cloudflare",
  workerClock: "Date.now() around the awaited DO call; on Cloudflare it advances only across I/O, in whole ms",
  eviction: "Cloudflare evicts an idle DO after about 10 s (not exposed); wakes wait cfWakeIdleMs first",
};

export interface AzureBenchmarkArgs {
  config: StackConfig;
  projectDir: string;
  /** When the result container's SAS expires; the pass must end before it. */
  /** When the result container's SAS expire (accessExpiry). */
  accessExpiry: string;
  /** config actor-bench:cloudflareApiToken (a secret); needed when the Cloudflare side runs. */
  cloudflareApiToken?: pulumi.Input<string>;
}

/** A SAS valid for a week from today (whole days, so a second `up` the same day asks for the same one). */
/** Twelve hours after the start of this UTC hour: long enough for a full pass, short for a credential; stable within the hour. */
export function accessExpiry(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), now.getUTCHours() + 12));
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The Azure side of a cloud stack: network, cold store, the three-zone Engine
 * cluster, the runner VM with the app and driver, one remote run per stage
 * group (one after another), and the report in results/<stack>/.
 */
export class AzureBenchmark extends pulumi.ComponentResource {
  readonly network: BenchNetwork;
  readonly coldStore: ColdStore;
  readonly cluster: EngineCluster;
  readonly runner: RunnerVm;
  readonly runs: RemoteGroupRun[] = [];
  /** The pass's runs in order: which groups share a run so that one side's idle wait hosts the other's measuring. */
  readonly plan: PassRun[];
  /** The planned schedule as text (a stack output, so `pulumi preview` prints it). */
  readonly schedule: pulumi.Output<string>;
  worker?: CloudflareWorker;
  readonly analytics: DoAnalytics[] = [];
  readonly reportResource: BenchmarkReport;
  readonly report: pulumi.Output<string>;
  readonly runDir: pulumi.Output<string>;
  readonly summary: pulumi.Output<unknown>;
  /** The static site's index.html, rebuilt from every run under results/ after this pass. */
  readonly site: pulumi.Output<string>;

  constructor(name: string, args: AzureBenchmarkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:azure:Benchmark", name, {}, opts);
    const parent = { parent: this };
    const cfg = args.config;
    const azure = cfg.azure;
    if (!azure) throw new Error(`stack ${cfg.stack}: AzureBenchmark needs an azure target`);
    const stateRoot = join(args.projectDir, ".actor-bench", cfg.stack);
    const location = azure.region;

    const key = new tls.PrivateKey(`${name}-ssh-key`, { algorithm: "ED25519" }, { ...parent, additionalSecretOutputs: ["privateKeyOpenssh", "privateKeyPem", "privateKeyPemPkcs8"] });
    const client = authorization.getClientConfigOutput(parent);
    this.network = new BenchNetwork(
      `${name}-net`,
      { location, resourceGroupName: azure.resourceGroup ?? undefined, sshSourceAddress: azure.sshSourceAddress, sshSourceWide: azure.sshSourceWide, zones: azure.zones, subscriptionId: client.subscriptionId },
      parent,
    );
    const resourceGroupName = this.network.resourceGroupName;
    this.coldStore = new ColdStore(`${name}cold`, { resourceGroupName, location, accessExpiry: args.accessExpiry }, parent);
    // The cluster authenticates: the Engines' admin token (their API, the app's registration) and NATS passwords, stack secrets.
    const secret = (what: string) => new random.RandomPassword(`${name}-${what}`, { length: 40, special: false }, parent).result;
    const adminToken = pulumi.secret(secret("admin-token"));
    const credentials = pulumi.secret(
      pulumi.all([adminToken, secret("nats-password"), secret("nats-route-password")]).apply(([a, n, r]) => ({ adminToken: a, natsPassword: n, natsRoutePassword: r })),
    );
    this.cluster = new EngineCluster(
      `${name}-engines`,
      {
        resourceGroupName,
        location,
        zones: azure.zones,
        vmSize: azure.engineVmSize,
        engineVersion: cfg.engineVersion,
        subnetId: this.network.subnetId,
        postgresSubnetId: this.network.postgresSubnetId,
        vnetId: this.network.vnetId,
        backendPoolId: this.network.backendPoolId,
        sshPublicKey: key.publicKeyOpenssh,
        credentials,
      },
      parent,
    );
    // The request path: the Engine in the runner's zone (zones[0]) by default, as the reference ran; or the load balancer.
    const zoneEngine = engineVmPlan(azure.zones)[0];
    const gatewayUrl = azure.gatewayPath === "zone" ? pulumi.output(`http://${zoneEngine.address}:${CLOUD_PORTS.gateway}`) : this.cluster.gatewayUrl;
    const gatewayPathNote =
      azure.gatewayPath === "zone"
        ? `zone: the Engine in the runner's zone ${zoneEngine.zone} (${zoneEngine.address}), as the reference ran`
        : "balanced: the internal load balancer across the three zones";
    // The Worker comes first: its token goes into the runner's credentials file.
    let cfTarget: Record<string, unknown> | undefined;
    let apiToken: pulumi.Output<string> | undefined;
    if (cfg.cloudflare) {
      if (args.cloudflareApiToken === undefined) throw new Error(`stack ${cfg.stack}: the Cloudflare side needs the secret actor-bench:cloudflareApiToken`);
      apiToken = pulumi.secret(args.cloudflareApiToken);
      const bundlePath = join(args.projectDir, "dist", "worker", "index.js");
      if (!existsSync(bundlePath)) throw new Error(`${bundlePath} is missing: run \`npm run build\` before \`pulumi up\``);
      const bundle = readFileSync(bundlePath, "utf8");
      this.worker = new CloudflareWorker(`${name}-worker`, { stack: cfg.stack, accountId: cfg.cloudflare.accountId, apiToken, bundle, workersDevSubdomain: cfg.cloudflare.workersSubdomain }, parent);
      cfTarget = {
        url: this.worker.url,
        versions: { cloudflareCompatibilityDate: COMPATIBILITY_DATE, workerBundleSha256: createHash("sha256").update(bundle).digest("hex") },
        runtime: CLOUDFLARE_RUNTIME,
        startedBy: `pulumi up -s ${cfg.stack}: CloudflareWorker ${this.worker.scriptName}, driven from the runner VM`,
      };
    }
    const runnerCredentials: pulumi.Output<RunnerCredentials> = pulumi.secret(
      pulumi.all([this.coldStore.uploadSas, adminToken, this.worker?.token ?? ""]).apply(([uploadSas, admin, token]) => ({ uploadSas, adminToken: admin, ...(token ? { workerToken: token } : {}) })),
    );
    this.runner = new RunnerVm(
      `${name}-runner`,
      {
        stack: cfg.stack,
        resourceGroupName,
        location,
        zone: azure.zones[0],
        size: azure.runnerVmSize,
        subnetId: this.network.subnetId,
        gatewayUrl,
        sshPublicKey: key.publicKeyOpenssh,
        sshPrivateKey: pulumi.secret(key.privateKeyOpenssh),
        bundleArchive: writeBundleArchive(args.projectDir, join(stateRoot, "bundle.tar.gz")),
        bundleDigest: bundleDigest(args.projectDir),
        nodeVersion: azure.runnerNodeVersion,
        adminToken,
        credentials: runnerCredentials,
      },
      { parent: this, dependsOn: [this.cluster] },
    );

    const rivetTarget = {
      gatewayUrl,
      engineVersion: this.cluster.engineVersion,
      engineConfig: {
        topology: "postgres-nats: 3 Engines + NATS members, one per zone, behind an internal load balancer",
        zones: azure.zones,
        engineVmSize: azure.engineVmSize,
        runnerVmSize: azure.runnerVmSize,
        postgres: { version: POSTGRES_SETTINGS.version, sku: POSTGRES_SETTINGS.sku.name, highAvailability: "ZoneRedundant" },
        region: location,
        gatewayPath: gatewayPathNote,
        // What every Engine's config file sets beyond its topology: the per-client caps, raised.
        caps: ENGINE_CAPS,
      },
      startedBy: `pulumi up -s ${cfg.stack}: EngineCluster on Azure`,
    };
    const parts: Array<{ run: RemoteGroupRun | DoAnalytics; label: string }> = [];
    // One chain on the runner, never two runs at once: the pass's runs in planned order (workloads/passPlan.ts).
    this.plan = planPass(cfg.run.sides, cfg.run.groups, azure.overlapIdle);
    this.schedule = pulumi.output(passSchedule(cfg.run, azure.overlapIdle, newestCosts(join(args.projectDir, "results"), cfg.stack), args.projectDir).then((s) => s.text));
    let previous: pulumi.Resource = this.runner.probe;
    for (const planned of this.plan) {
      const part = passRunName(planned);
      // The run's name in resource names: "cloudflare-wake-rivet-create".
      const slug = part.replace(/[.+]/g, "-");
      const hasCloudflare = planned.tasks.some((t) => t.side === "cloudflare");
      const first = planned.tasks[0];
      const targets = Object.fromEntries(planned.tasks.map((t) => [t.side, t.side === "rivet" ? rivetTarget : cfTarget]));
      const prefix = `${cfg.stack}/${part}`;
      const run = new RemoteGroupRun(
        `${name}-${slug}`,
        {
          stack: cfg.stack,
          part,
          connection: this.runner.connection,
          appDir: RUNNER_PATHS.appDir,
          nodeBin: RUNNER_NODE_BIN,
          limitMinutes: azure.runTimeLimitMinutes,
          request: {
            request: {
              side: first.side,
              ...(planned.tasks.length > 1 ? { tasks: planned.tasks, runArgs: cfg.runArgs } : { runArgs: [...cfg.runArgs, "--side", first.side, "--groups", first.group] }),
              stack: cfg.stack,
              blobRoot: `${RUNNER_PATHS.appDir}/runs`,
              ...targets,
            },
            containerUrl: this.coldStore.resultContainerUrl,
            prefix,
          },
          // A redeployed runner or the stack's runId re-runs the group; the credentials file is not a reason.
          triggers: [this.runner.install.id, cfg.runTrigger],
          prefix,
          containerUrl: this.coldStore.resultContainerUrl,
          downloadSas: this.coldStore.downloadSas,
          blobRoot: join(stateRoot, "blobs", part),
          after: [previous, this.runner.credentials, ...(hasCloudflare && this.worker ? [this.worker] : [])],
        },
        { parent: this },
      );
      this.runs.push(run);
      previous = run.command;
      parts.push({ run, label: planned.tasks.map(taskLabel).join(" + ") });
      if (hasCloudflare && this.worker && apiToken && cfg.cloudflare) {
        const analytics = new DoAnalytics(
          `${name}-${slug}-analytics`,
          {
            stack: cfg.stack,
            forRunDir: run.blob,
            forSha256: run.sha256,
            blobRoot: join(stateRoot, "blobs", `${part}.analytics`),
            accountId: cfg.cloudflare.accountId,
            scriptName: this.worker.scriptName,
            apiToken,
            ...ANALYTICS_WAIT,
          },
          { parent: this, dependsOn: [run] },
        );
        this.analytics.push(analytics);
        parts.push({ run: analytics, label: `${part} analytics` });
      }
    }
    this.reportResource = passReport(`${name}-report`, cfg.stack, args.projectDir, parts, this);
    this.report = this.reportResource.report;
    this.runDir = this.reportResource.runDir;
    this.summary = this.reportResource.summary;
    this.site = this.reportResource.site;
    this.registerOutputs({ schedule: this.schedule, report: this.report, runDir: this.runDir, summary: this.summary, site: this.site, runnerIp: this.runner.publicIp, gatewayUrl: this.cluster.gatewayUrl, workerUrl: this.worker?.url });
  }
}
