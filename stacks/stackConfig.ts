import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { STACK_RUN_OPTIONS, stackRunOptions, UsageError, type RunConfig } from "../workloads/run/runConfig";
import { runtimeIds, SIDE_REGISTRY } from "../workloads/sides/registry";
import { PINNED_NODE_VERSIONS, REFERENCE_NODE_VERSION } from "../cluster/nodeRelease";
import { LOCAL_NVME_SIZE, NVME_ONLY_SIZE, isNvmeImage, ZONE_REGIONS } from "../components/azure/azureFacts";
import { VM_IMAGE } from "../components/azure/linuxVm";
import {
  GATEWAY_PATHS,
  validateSshSource,
  type AzureConfig,
  type GatewayPath,
  type StackConfig,
  type Target,
} from "../components/benchmarkConfig";

export { validateSshSource, type AzureConfig, type StackConfig, type Target } from "../components/benchmarkConfig";

/**
 * The one config schema every stack shares (namespace `actor-bench`, set in
 * Pulumi.<stack>.yaml). Keys that shape the measurement are options of the
 * run's one option table (workloads/run/runConfig.ts), read by the same
 * rules as `npm start`'s flags, so a stack and a laptop run mean the same
 * thing; the rest describe where the runtimes run.
 */
const RUN_KEYS = STACK_RUN_OPTIONS.map((o) => o.key);

const CLOUD_KEYS = [
  "region",
  "resourceGroup",
  "zones",
  "engineVmSize",
  "runnerVmSize",
  "sshSourceAddress",
  "sshSourceWide",
  "gatewayPath",
  "runnerNodeVersion",
  "runTimeLimitMinutes",
  "overlapIdle",
  "cloudflareAccountId",
  "cloudflareWorkersSubdomain",
] as const;
/** The stack's keys that are not run options: where the runtimes run and what re-runs them. */
const OWN_KEYS = ["target", "engineVersion", "runId", ...CLOUD_KEYS] as const;
export const STACK_KEYS: readonly string[] = [...RUN_KEYS, ...OWN_KEYS];
/** A stack key: a run option's (RUN_KEYS, from the option table) or one of the stack's own. */
export type StackKey = string;
export type RawStackConfig = { [key: string]: string | undefined };

/** The keys whose values are whole numbers and switches: typed integer and boolean in Pulumi.yaml, so the CLI refuses another kind first. */
export const INTEGER_KEYS: readonly StackKey[] = [
  ...STACK_RUN_OPTIONS.filter((o) => o.kind === "integer").map((o) => o.key),
  "runTimeLimitMinutes",
];
export const BOOLEAN_KEYS: readonly StackKey[] = ["overlapIdle", "sshSourceWide"];

const TARGETS = ["local", "azure"] as const;

export const DEFAULTS = {
  target: "local",
  zones: "1,2,3",
  engineVmSize: "Standard_L8as_v5",
  runnerVmSize: "Standard_D16as_v7",
  /** The reference's runner Node. */
  runnerNodeVersion: REFERENCE_NODE_VERSION,
  /** Longer than any group of the full preset takes on the runner (the DO wake group waits 3 x 10 minutes). */
  runTimeLimitMinutes: "120",
  /** The Cloudflare groups' idle waits host Rivet groups (workloads/experiment/passPlan.ts). */
  overlapIdle: "true",
  sshSourceWide: "false",
  gatewayPath: "zone",
} as const satisfies RawStackConfig;

/** What the validator needs to know besides the raw values. */
interface StackFacts {
  /** The Engine version installed from npm (@rivetkit/engine-cli): the only one a local stack can run. */
  installedEngineVersion: string;
  /** Whether the stack has the secret actor-bench:cloudflareApiToken (its value is never read here). */
  hasCloudflareApiToken: boolean;
}

const fail = (key: StackKey, value: string, allowed: string): never => {
  throw new UsageError(`config actor-bench:${key}: ${JSON.stringify(value)} is not allowed; ${allowed}`);
};

/**
 * The run part of a stack's config: the run keys as `npm start` flags, parsed
 * by the same parser (an error names the config key), the sides defaulting to
 * the two runtimes. A control side is refused by its role: a stack measures the runtimes only.
 */
export function stackRunConfig(stack: string, raw: RawStackConfig): { run: RunConfig; runArgs: string[] } {
  const parsed = stackRunOptions(raw);
  const run = { ...parsed.run, stack };
  const runArgs = parsed.runArgs;
  // A control side (the floor) is a local reading beside the runtimes (npm start); a stack provisions and measures the runtimes only.
  const runtimes = runtimeIds(SIDE_REGISTRY);
  if (raw.side === undefined) run.sides = runtimes;
  else if (run.sides.some((s) => !runtimes.includes(s)))
    fail(
      "side",
      raw.side,
      `${runtimes.join(", ")} or both: a stack measures the runtimes; a control side runs with \`npm start\` on one machine`,
    );
  return { run, runArgs };
}

/** A true/false key, its default when unset; anything else is refused naming what each value means. */
function booleanKey(raw: RawStackConfig, key: "sshSourceWide" | "overlapIdle", fallback: string, allowed: string): boolean {
  const v = raw[key] ?? fallback;
  if (v !== "true" && v !== "false") fail(key, v, allowed);
  return v === "true";
}

/** Whether Rivet's groups measure during the Durable Object groups' idle waits (actor-bench:overlapIdle). */
export const overlapIdleOf = (raw: RawStackConfig): boolean =>
  booleanKey(
    raw,
    "overlapIdle",
    DEFAULTS.overlapIdle,
    "true (Rivet groups measure during the Durable Object groups' idle waits) or false (every group in a run of its own)",
  );

/** Three distinct Azure logical zones. Azure numbers them 1 to 3. */
export function validateZones(v: string): number[] {
  const items = v.split(",").map((s) => s.trim());
  const zones = items.map(Number);
  const bad = items.find((s, i) => !/^\d+$/.test(s) || zones[i] < 1 || zones[i] > 3);
  if (bad !== undefined) {
    fail(
      "zones",
      v,
      `Azure's logical zones are 1, 2 and 3 (zone ${bad} does not exist there; the reference's zone 4 maps to none of them)`,
    );
  }
  if (zones.length !== 3 || new Set(zones).size !== 3) fail("zones", v, "the Engine cluster needs three distinct zones, e.g. 1,2,3");
  return zones;
}

/**
 * Validates a stack's raw config (strings, as Pulumi holds them) before any
 * resource is declared. Each error is one message naming the key, the value
 * and what is allowed.
 */
export function validateStackConfig(stack: string, raw: RawStackConfig, facts: StackFacts): StackConfig {
  for (const key of Object.keys(raw)) {
    if (!(STACK_KEYS as readonly string[]).includes(key)) {
      throw new UsageError(`unknown config key actor-bench:${key}; known keys: ${STACK_KEYS.join(", ")}`);
    }
  }
  const target = (raw.target ?? DEFAULTS.target) as Target;
  if (!(TARGETS as readonly string[]).includes(target)) fail("target", target, `one of ${TARGETS.join(", ")}`);

  const { run, runArgs } = stackRunConfig(stack, raw);
  const engineVersion = raw.engineVersion ?? facts.installedEngineVersion;
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(engineVersion)) fail("engineVersion", engineVersion, "a release version such as 2.3.19");
  if (target === "local" && engineVersion !== facts.installedEngineVersion) {
    fail(
      "engineVersion",
      engineVersion,
      `a local stack runs the Engine installed from npm, ${facts.installedEngineVersion}; install another with \`npm install @rivetkit/engine-cli@${engineVersion}\` or remove the key`,
    );
  }

  const runTrigger = raw.runId ?? null;
  if (runTrigger !== null && !/^[A-Za-z0-9._-]{1,64}$/.test(runTrigger))
    fail("runId", runTrigger, "1 to 64 letters, digits, dots, dashes or underscores");

  if (target === "local") {
    const cloudOnly = CLOUD_KEYS.find((k) => raw[k] !== undefined);
    if (cloudOnly)
      fail(cloudOnly, raw[cloudOnly]!, "it applies to actor-bench:target azure only; remove it from this stack or set the target");
    return { stack, target, run, runArgs, engineVersion, runTrigger, azure: null, cloudflare: null };
  }

  const azure = validateAzure(raw);
  const cloudflare = run.sides.includes("cloudflare") ? validateCloudflareAccount(raw, facts) : null;
  return { stack, target, run, runArgs, engineVersion, runTrigger, azure, cloudflare };
}

/** An Azure VM size key: a size name, attaching disks the way the image can boot from. */
function vmSize(raw: RawStackConfig, key: "engineVmSize" | "runnerVmSize"): string {
  const v = raw[key] ?? DEFAULTS[key];
  if (!/^Standard_[A-Za-z0-9_]+$/.test(v)) fail(key, v, "an Azure VM size such as Standard_L8as_v5");
  if (NVME_ONLY_SIZE.value.test(v) && !isNvmeImage(VM_IMAGE))
    fail(key, v, `a size that attaches disks over NVMe only needs an NVMe-tagged Gen2 image (${NVME_ONLY_SIZE.source})`);
  return v;
}

/** The Azure keys of an azure stack, each checked against what Azure accepts. */
function validateAzure(raw: RawStackConfig): AzureConfig {
  const region = raw.region;
  if (region === undefined) fail("region", "", "an azure stack needs its Azure region, e.g. eastus2");
  if (!/^[a-z][a-z0-9]{2,30}$/.test(region!)) fail("region", region!, "an Azure region name in lower case, e.g. eastus2");
  if (!ZONE_REGIONS.value.includes(region!)) {
    fail(
      "region",
      region!,
      `the Engine cluster needs a region with availability zones (${ZONE_REGIONS.source}, read ${ZONE_REGIONS.read}); add a newer one to components/azure/azureFacts.ts`,
    );
  }
  const engineSize = vmSize(raw, "engineVmSize");
  if (!LOCAL_NVME_SIZE.value.test(engineSize))
    fail(
      "engineVmSize",
      engineSize,
      `an L-series size (e.g. Standard_L8as_v5): the Engine keeps its data on the local NVMe disk only they have (${LOCAL_NVME_SIZE.source})`,
    );
  if (raw.sshSourceAddress === undefined) fail("sshSourceAddress", "", "an azure stack needs the address SSH is open to, e.g. 203.0.113.7");
  const wide = booleanKey(raw, "sshSourceWide", DEFAULTS.sshSourceWide, "true or false");
  const gatewayPath = raw.gatewayPath ?? DEFAULTS.gatewayPath;
  if (!(GATEWAY_PATHS as readonly string[]).includes(gatewayPath)) {
    fail(
      "gatewayPath",
      gatewayPath,
      "zone (the Engine in the runner's zone, the reference's path) or balanced (the internal load balancer across the zones)",
    );
  }
  const limit = raw.runTimeLimitMinutes ?? DEFAULTS.runTimeLimitMinutes;
  if (!/^\d+$/.test(limit) || Number(limit) < 5 || Number(limit) > 720)
    fail("runTimeLimitMinutes", limit, "whole minutes from 5 to 720: how long one group's run may take on the runner before it is stopped");
  const overlapIdle = overlapIdleOf(raw);
  const azure: AzureConfig = {
    region: region!,
    zones: validateZones(raw.zones ?? DEFAULTS.zones),
    engineVmSize: engineSize,
    runnerVmSize: vmSize(raw, "runnerVmSize"),
    sshSourceAddress: validateSshSource(raw.sshSourceAddress!, wide),
    sshSourceWide: wide,
    gatewayPath: gatewayPath as GatewayPath,
    runnerNodeVersion: raw.runnerNodeVersion ?? DEFAULTS.runnerNodeVersion,
    runTimeLimitMinutes: Number(limit),
    overlapIdle,
    resourceGroup: raw.resourceGroup ?? null,
  };
  if (!PINNED_NODE_VERSIONS.includes(azure.runnerNodeVersion)) {
    fail(
      "runnerNodeVersion",
      azure.runnerNodeVersion,
      `a Node release whose registry hash is pinned in cluster/nodeRelease.ts: ${PINNED_NODE_VERSIONS.join(", ")}`,
    );
  }
  if (azure.resourceGroup !== null && !/^[-\w._()]{1,89}[-\w_()]$/.test(azure.resourceGroup)) {
    fail("resourceGroup", azure.resourceGroup, "an Azure resource group name: letters, digits, - _ . ( ), not ending in a dot");
  }
  return azure;
}

/** The Cloudflare account an azure stack deploys the Worker to, while the Cloudflare side runs. */
function validateCloudflareAccount(raw: RawStackConfig, facts: StackFacts): NonNullable<StackConfig["cloudflare"]> {
  const accountId = raw.cloudflareAccountId;
  if (accountId === undefined || !/^[0-9a-f]{32}$/.test(accountId)) {
    fail(
      "cloudflareAccountId",
      accountId ?? "",
      "the 32-character hex account id from the Cloudflare dashboard (or set actor-bench:side rivet)",
    );
  }
  if (!facts.hasCloudflareApiToken) {
    throw new UsageError(
      "config actor-bench:cloudflareApiToken: not set; set it as a secret: `pulumi config set --secret actor-bench:cloudflareApiToken <token>`",
    );
  }
  const sub = raw.cloudflareWorkersSubdomain;
  if (sub === undefined || !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(sub)) {
    fail(
      "cloudflareWorkersSubdomain",
      sub ?? "",
      "the account's workers.dev subdomain, the <name> in <name>.workers.dev (dashboard: Workers & Pages, Account details); lower-case letters, digits and dashes",
    );
  }
  return { accountId: accountId!, workersSubdomain: sub! };
}

/**
 * The project folder (the one holding Pulumi.yaml): Pulumi's root directory
 * when the engine gives one, else the nearest folder at or above the program's
 * own. Never the working directory: the Node language host runs the program in
 * the folder of Pulumi.yaml's `main`.
 */
export function projectDirOf(rootDirectory: string, programDir: string): string {
  if (rootDirectory !== "" && existsSync(join(rootDirectory, "Pulumi.yaml"))) return rootDirectory;
  for (let dir = programDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "Pulumi.yaml"))) return dir;
    if (dirname(dir) === dir)
      throw new UsageError(`no Pulumi.yaml in ${programDir} or any folder above it: run the program from a copy of the project`);
  }
}
