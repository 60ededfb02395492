/**
 * What the policy tests share: the program's registrations under the SDK's
 * mocks as three stacks users make, as the policy pack sees them, and one
 * broken copy per rule.
 */
import { runProgram, stackConfigFromFiles, type Registered } from "./pulumiProgram";
import type { Planned } from "../policy/rules";
import { CLOUD_NETWORK } from "../cluster/topology";

// The program under the SDK's mocks, as three stacks a user would make: the committed eastus2, another
// region with a long name, and an Engine-release stack with a dash. What the policy pack sees is what
// each registered: inputs with secrets unwrapped (as the analyzer hands them to a policy).
const SIG_KEY = "4dabf18193072939515e22adb298388d";
function plain(v: unknown): any {
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (o[SIG_KEY]) return plain(o.value);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}
export const planned = (rs: Registered[]): Planned[] =>
  rs.filter((r) => r.custom).map((r) => ({ type: r.type, name: r.name, urn: r.urn, props: plain(r.inputs) }));

const USER = {
  "actor-bench:sshSourceAddress": "203.0.113.7",
  "actor-bench:cloudflareAccountId": "0123456789abcdef0123456789abcdef",
  "actor-bench:cloudflareWorkersSubdomain": "bench-account",
  "actor-bench:cloudflareApiToken": "cf-api-token-not-real-0123456789",
};
export const STACKS = ["eastus2", "northeurope", "swedencentral-2318"] as const;

export async function registrationsOf(stack: string, preview = false): Promise<Registered[]> {
  const { registered } = await runProgram(stack, { ...stackConfigFromFiles(stack), ...USER }, preview, ["actor-bench:cloudflareApiToken"]);
  return registered;
}

/** One broken copy of a stack's resources per rule: each must make its rule, and only its rule, fire. */
type Break = (rs: Planned[]) => Planned[];
export const edit =
  (type: string, f: (r: Planned) => void, pick: (r: Planned) => boolean = () => true): Break =>
  (rs) =>
    rs.map((r) => {
      if (r.type !== type || !pick(r)) return r;
      const copy = structuredClone(r);
      f(copy);
      return copy;
    });
const engineVm = (r: Planned) => r.props.tags?.["actor-bench-role"] === "engine";

export const BREAKS: Record<string, Break> = {
  "nsg-wildcard-not-in-list": edit("azure-native:network:NetworkSecurityGroup", (r) => {
    const last = r.props.securityRules.at(-1);
    delete last.destinationPortRange;
    last.destinationPortRanges = ["*"];
  }),
  "storage-no-shared-key": edit("azure-native:storage:StorageAccount", (r) => (r.props.allowSharedKeyAccess = true)),
  "blob-role-scope": edit(
    "azure-native:authorization:RoleAssignment",
    (r) => (r.props.scope = r.props.scope.replace(/\/blobServices\/.*$/, "")),
    (r) => r.name.endsWith("results-data"),
  ),
  "storage-account-name": edit("azure-native:storage:StorageAccount", (r) => delete r.props.accountName),
  "autoname-valid": edit("azure-native:dbforpostgresql:Server", (r) => (r.name = "NorthEurope_Prod-engines-pg")),
  "fixed-names-per-stack": edit("azure-native:network:LoadBalancer", (r) => (r.props.loadBalancerName = "actor-bench-engines")),
  "vm-size-image-controller": edit(
    "azure-native:compute:VirtualMachine",
    (r) => delete r.props.storageProfile.diskControllerType,
    engineVm,
  ),
  "zones-offered": edit("azure-native:compute:VirtualMachine", (r) => (r.props.zones = ["4"]), engineVm),
  "postgres-zone-redundant-ha": edit(
    "azure-native:dbforpostgresql:Server",
    (r) => (r.props.sku = { name: "Standard_B2s", tier: "Burstable" }),
  ),
  "no-engine-behind-own-load-balancer": edit(
    "azure-native:compute:VirtualMachine",
    (r) => (r.props.tags["actor-bench-peer-url"] = `http://${CLOUD_NETWORK.loadBalancerAddress}:6421`),
    (r) => r.name.endsWith("engine-2"),
  ),
  "worker-durable-object-upload": edit("cloudflare:index/workersScript:WorkersScript", (r) => delete r.props.force),
};
