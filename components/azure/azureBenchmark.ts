import * as pulumi from "@pulumi/pulumi";
import * as authorization from "@pulumi/azure-native/authorization";
import * as random from "@pulumi/random";
import * as tls from "@pulumi/tls";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { StackConfig } from "../benchmarkConfig";
import { bundleDigest, runnerCodeDigest, writeBundleArchive } from "../../workloads/runner/bundle";
import { engineVmPlan } from "./networkRules";
import { CLOUD_PORTS } from "../../cluster/topology";
import { passReport, type BenchmarkReport } from "../benchmarkReport";
import { RemoteGroupRun } from "../remoteRunner";
import { passRunName, planPass, taskLabel, type PassRun } from "../../workloads/experiment/passPlan";
import { newestCosts, overLimit, passSchedule } from "../../workloads/run/passSchedule";
import { SIDE_REGISTRY, sideOf } from "../../workloads/sides/registry";
import { BenchNetwork } from "./network";
import { ColdStore } from "./coldStore";
import { EngineCluster, POSTGRES_SETTINGS, type EngineClusterArgs } from "./engineCluster";
import { RunnerVm, RUNNER_NODE_BIN } from "./runnerVm";
import { RUNNER_PATHS } from "../../cluster/cloudInit";
import { ENGINE_CAPS } from "../../cluster/engineConfig";
import { rivetkitPairing } from "../../cluster/engineRelease";
import { packageVersion } from "../../workloads/host/versions";
import type { RunnerCredentials } from "../../workloads/runner/runner";
import { CloudflareWorker } from "../cloudflare/worker";
import { DoAnalytics } from "../cloudflare/doAnalytics";
import { COMPATIBILITY_DATE } from "../../workloads/sides/cloudflare/compatibility";
import { CLOUD_DO_EVICTION_MS } from "../../workloads/sides/cloudflare/side";

/** How long the DO analytics are asked for after a Cloudflare run while invocations are still arriving, and how often. */
const ANALYTICS_WAIT = { waitMs: 15 * 60_000, pollMs: 60_000 };

const CLOUDFLARE_RUNTIME = {
  runtime: "Cloudflare Workers on workers.dev, SQLite-backed Durable Object (new_sqlite_classes), placed by Cloudflare",
  workerClock: "Date.now() around the awaited DO call; on Cloudflare it advances only across I/O, in whole ms",
  eviction:
    "Cloudflare hibernates an idle DO that can hibernate after about 10 s and evicts one that cannot after 70 to 140 s (not exposed); wakes wait cfWakeIdleMs first",
  evictionMs: CLOUD_DO_EVICTION_MS,
};

/** The stack's Azure settings, validated (stacks/stackConfig.ts). */
type AzureTarget = NonNullable<StackConfig["azure"]>;

interface AzureBenchmarkArgs {
  config: StackConfig;
  projectDir: string;
  /** config actor-bench:cloudflareApiToken (a secret); needed when the Cloudflare side runs. */
  cloudflareApiToken?: pulumi.Input<string>;
}

/**
 * The Azure side of a cloud stack: network, cold store, the three-zone Engine
 * cluster, the runner VM with the app and driver, one remote run per stage
 * group (one after another), and the report in results/<stack>/.
 */
export class AzureBenchmark extends pulumi.ComponentResource {
  private readonly stack: string;
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
  /** The URL each side's clients use, by side: the gateway the runner reaches, the Worker's. */
  readonly endpoints: pulumi.Output<Record<string, string>>;

  constructor(name: string, args: AzureBenchmarkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:azure:Benchmark", name, {}, opts);
    const cfg = args.config;
    const azure = cfg.azure;
    if (!azure) throw new Error(`stack ${cfg.stack}: AzureBenchmark needs an azure target`);
    this.stack = cfg.stack;
    const stateRoot = join(args.projectDir, ".actor-bench", cfg.stack);
    const key = new tls.PrivateKey(
      `${name}-ssh-key`,
      { algorithm: "ED25519" },
      { parent: this, additionalSecretOutputs: ["privateKeyOpenssh", "privateKeyPem", "privateKeyPemPkcs8"] },
    );

    // A planned run longer than the runner's time limit would be killed: the preview fails first, naming it.
    this.schedule = pulumi.output(
      passSchedule(cfg.run, azure.overlapIdle, newestCosts(join(args.projectDir, "results"), cfg.stack), args.projectDir).then((s) => {
        const refused = overLimit(s.schedule, azure.runTimeLimitMinutes);
        if (refused) throw new pulumi.RunError(refused);
        return s.text;
      }),
    );
    this.network = this.buildNetwork(name, azure, this.schedule);
    this.coldStore = new ColdStore(
      `${name}-cold`,
      { stack: cfg.stack, resourceGroupName: this.network.resourceGroupName, location: azure.region },
      { parent: this },
    );
    const secrets = this.clusterSecrets(name);
    this.cluster = this.buildCluster(name, cfg, azure, key, secrets.credentials);
    const gateway = this.gatewayPath(azure);
    // The Worker comes before the runner: its token goes into the runner's credentials file.
    const cf = this.deployWorker(name, cfg, args);
    this.runner = this.buildRunner(name, cfg, azure, args, stateRoot, key, gateway.url, secrets.adminToken);
    this.plan = planPass(
      cfg.run.sides.map((side) => sideOf(SIDE_REGISTRY, side).profile),
      cfg.run.groups,
      azure.overlapIdle,
    );
    const parts = this.chainRuns(
      name,
      cfg,
      azure,
      stateRoot,
      runnerCodeDigest(args.projectDir),
      { rivet: this.rivetTarget(cfg, azure, gateway), cloudflare: cf?.target },
      cf?.apiToken,
    );

    const endpoints: Record<string, pulumi.Output<string>> = {
      rivet: gateway.url,
      ...(this.worker ? { cloudflare: this.worker.url } : {}),
    };
    this.endpoints = pulumi.all(endpoints);
    this.reportResource = passReport(`${name}-report`, cfg.stack, args.projectDir, parts, this, cfg.run.prices);
    this.report = this.reportResource.report;
    this.runDir = this.reportResource.runDir;
    this.summary = this.reportResource.summary;
    this.site = this.reportResource.site;
    this.registerOutputs({
      schedule: this.schedule,
      report: this.report,
      runDir: this.runDir,
      summary: this.summary,
      site: this.site,
      runnerIp: this.runner.publicIp,
      gatewayUrl: this.cluster.gatewayUrl,
      workerUrl: this.worker?.url,
    });
  }

  /** The virtual network, its subnets and rules, in the stack's resource group (or a new one). */
  private buildNetwork(name: string, azure: AzureTarget, gate: pulumi.Output<unknown>): BenchNetwork {
    const client = authorization.getClientConfigOutput({ parent: this });
    return new BenchNetwork(
      `${name}-net`,
      {
        stack: this.stack,
        location: azure.region,
        resourceGroupName: azure.resourceGroup ?? undefined,
        sshSourceAddress: azure.sshSourceAddress,
        sshSourceWide: azure.sshSourceWide,
        zones: azure.zones,
        subscriptionId: client.subscriptionId,
        gate,
      },
      { parent: this },
    );
  }

  /** The cluster authenticates: the Engines' admin token (their API, the app's registration) and NATS passwords, stack secrets. */
  private clusterSecrets(name: string) {
    const secret = (what: string) => new random.RandomPassword(`${name}-${what}`, { length: 40, special: false }, { parent: this }).result;
    const adminToken = pulumi.secret(secret("admin-token"));
    const credentials = pulumi.secret(
      pulumi
        .all([adminToken, secret("nats-password"), secret("nats-route-password")])
        .apply(([a, n, r]) => ({ adminToken: a, natsPassword: n, natsRoutePassword: r })),
    );
    return { adminToken, credentials };
  }

  /** The three-zone Engine cluster on Postgres and NATS. */
  private buildCluster(
    name: string,
    cfg: StackConfig,
    azure: AzureTarget,
    key: tls.PrivateKey,
    credentials: EngineClusterArgs["credentials"],
  ): EngineCluster {
    const n = this.network;
    return new EngineCluster(
      `${name}-engines`,
      {
        stack: cfg.stack,
        resourceGroupName: n.resourceGroupName,
        location: azure.region,
        zones: azure.zones,
        vmSize: azure.engineVmSize,
        engineVersion: cfg.engineVersion,
        subnetId: n.subnetId,
        postgresSubnetId: n.postgresSubnetId,
        vnetId: n.vnetId,
        backendPoolId: n.backendPoolId,
        sshPublicKey: key.publicKeyOpenssh,
        credentials,
      },
      { parent: this },
    );
  }

  /** The request path: the Engine in the runner's zone (zones[0]) by default, as the reference ran; or the load balancer. */
  private gatewayPath(azure: AzureTarget): { url: pulumi.Output<string>; note: string } {
    const zoneEngine = engineVmPlan(azure.zones)[0];
    return azure.gatewayPath === "zone"
      ? {
          url: pulumi.output(`http://${zoneEngine.address}:${CLOUD_PORTS.gateway}`),
          note: `zone: the Engine in the runner's zone ${zoneEngine.zone} (${zoneEngine.address}), as the reference ran`,
        }
      : { url: this.cluster.gatewayUrl, note: "balanced: the internal load balancer across the three zones" };
  }

  /** The Worker and its DO on Cloudflare, when the stack measures that side: the runs' target and the API token. */
  private deployWorker(
    name: string,
    cfg: StackConfig,
    args: AzureBenchmarkArgs,
  ): { target: Record<string, unknown>; apiToken: pulumi.Output<string> } | undefined {
    if (!cfg.cloudflare) return undefined;
    if (args.cloudflareApiToken === undefined)
      throw new Error(`stack ${cfg.stack}: the Cloudflare side needs the secret actor-bench:cloudflareApiToken`);
    const apiToken = pulumi.secret(args.cloudflareApiToken);
    const bundlePath = join(args.projectDir, "dist", "worker", "index.js");
    if (!existsSync(bundlePath)) throw new Error(`${bundlePath} is missing: run \`npm run build\` before \`pulumi up\``);
    const bundle = readFileSync(bundlePath, "utf8");
    this.worker = new CloudflareWorker(
      `${name}-worker`,
      {
        stack: cfg.stack,
        accountId: cfg.cloudflare.accountId,
        apiToken,
        bundle,
        workersDevSubdomain: cfg.cloudflare.workersSubdomain,
        gate: this.schedule,
      },
      { parent: this },
    );
    const target = {
      url: this.worker.url,
      versions: { cloudflareCompatibilityDate: COMPATIBILITY_DATE, workerBundleSha256: createHash("sha256").update(bundle).digest("hex") },
      runtime: CLOUDFLARE_RUNTIME,
      startedBy: `pulumi up -s ${cfg.stack}: CloudflareWorker ${this.worker.scriptName}, driven from the runner VM`,
    };
    return { target, apiToken };
  }

  /** The runner VM: the app and the driver, their credentials file, after the cluster. */
  private buildRunner(
    name: string,
    cfg: StackConfig,
    azure: AzureTarget,
    args: AzureBenchmarkArgs,
    stateRoot: string,
    key: tls.PrivateKey,
    gatewayUrl: pulumi.Output<string>,
    adminToken: pulumi.Output<string>,
  ): RunnerVm {
    const credentials: pulumi.Output<RunnerCredentials> = pulumi.secret(
      pulumi
        .all([this.coldStore.uploadSas, adminToken, this.worker?.token ?? ""])
        .apply(([uploadSas, admin, token]) => ({ uploadSas, adminToken: admin, ...(token ? { workerToken: token } : {}) })),
    );
    return new RunnerVm(
      `${name}-runner`,
      {
        stack: cfg.stack,
        resourceGroupName: this.network.resourceGroupName,
        location: azure.region,
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
        credentials,
      },
      { parent: this, dependsOn: [this.cluster] },
    );
  }

  /** What the manifest says about the Rivet side of a cloud run. */
  private rivetTarget(cfg: StackConfig, azure: AzureTarget, gateway: { url: pulumi.Output<string>; note: string }) {
    return {
      gatewayUrl: gateway.url,
      engineVersion: this.cluster.engineVersion,
      engineConfig: {
        topology: "postgres-nats: 3 Engines + NATS members, one per zone, behind an internal load balancer",
        zones: azure.zones,
        engineVmSize: azure.engineVmSize,
        runnerVmSize: azure.runnerVmSize,
        postgres: { version: POSTGRES_SETTINGS.version, sku: POSTGRES_SETTINGS.sku.name, highAvailability: "ZoneRedundant" },
        rivetkit: { version: packageVersion("rivetkit"), pairing: rivetkitPairing(this.cluster.engineVersion, packageVersion("rivetkit")) },
        region: azure.region,
        gatewayPath: gateway.note,
        // What every Engine's config file sets beyond its topology: the per-client caps, raised.
        caps: ENGINE_CAPS,
      },
      startedBy: `pulumi up -s ${cfg.stack}: EngineCluster on Azure`,
    };
  }

  /**
   * The pass's runs on the runner, one chain, never two at once, in the
   * planned order (workloads/experiment/passPlan.ts); after each run with a Cloudflare
   * part, its DO analytics. Returns the report's parts.
   */
  private chainRuns(
    name: string,
    cfg: StackConfig,
    azure: AzureTarget,
    stateRoot: string,
    runnerCode: string,
    targets: Record<string, Record<string, unknown> | undefined>,
    apiToken: pulumi.Output<string> | undefined,
  ): Array<{ run: RemoteGroupRun | DoAnalytics; label: string }> {
    const parts: Array<{ run: RemoteGroupRun | DoAnalytics; label: string }> = [];
    let previous: pulumi.Resource = this.runner.probe;
    for (const planned of this.plan) {
      const part = passRunName(planned);
      // The run's name in resource names: "cloudflare-wake-rivet-create".
      const slug = part.replace(/[.+]/g, "-");
      const hasCloudflare = planned.tasks.some((t) => t.side === "cloudflare");
      const first = planned.tasks[0];
      const runTargets = Object.fromEntries(planned.tasks.map((t) => [t.side, targets[t.side]]));
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
              ...(planned.tasks.length > 1
                ? { tasks: planned.tasks, runArgs: cfg.runArgs }
                : { runArgs: [...cfg.runArgs, "--side", first.side, "--groups", first.group] }),
              stack: cfg.stack,
              blobRoot: `${RUNNER_PATHS.appDir}/runs`,
              targets: runTargets,
            },
            containerUrl: this.coldStore.resultContainerUrl,
            prefix,
          },
          // A new runner VM, a change to the code the runner measures with, or the stack's runId re-runs the group;
          // the credentials file, the site's scripts and the report's are not reasons.
          triggers: [this.runner.vm.id, runnerCode, cfg.runTrigger],
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
    return parts;
  }
}
