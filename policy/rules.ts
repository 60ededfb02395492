/**
 * The documented rules of Azure and Cloudflare that this program's resources
 * could break, checked on what the program declares before anything is asked
 * of an account. Each rule names its source. Pure: policy/pack.ts hands them to
 * `@pulumi/policy` (`pulumi preview --policy-pack policy`), and the tests run
 * them over the program's registrations under the SDK's mocks.
 */
import { parse } from "yaml";
import {
  AUTONAME_SUFFIX,
  BLOB_ROLES,
  LOCAL_NVME_SIZE,
  NO_SHARED_KEY,
  NAME_RULES,
  NVME_ONLY_SIZE,
  POSTGRES_HA_TIERS,
  ZONE_REGIONS,
  isNvmeImage,
} from "../components/azure/azureFacts";
import { stackSlug } from "../components/azure/names";

/** A resource as a policy sees it: inputs with secrets unwrapped; a value not yet known reads as UNKNOWN. */
export interface Planned {
  type: string;
  name: string;
  urn: string;
  props: Record<string, any>;
}

export interface Violation {
  message: string;
  urn: string;
}

export interface Rule {
  name: string;
  description: string;
  /** Where the rule is documented. */
  source: string;
  /** One resource at a time, or the whole stack (rules that relate resources). */
  check: { resource: (r: Planned) => string[] } | { stack: (all: Planned[]) => Violation[] };
}

/** How the engine passes a value that is not known at preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const known = (v: unknown): boolean => v !== undefined && v !== UNKNOWN;

/** The stack a URN belongs to: urn:pulumi:<stack>::<project>::<type>::<name>. */
function stackOf(urn: string): string {
  return urn.split("::")[0].split(":").at(-1) ?? "";
}

const T = {
  nsg: "azure-native:network:NetworkSecurityGroup",
  securityRule: "azure-native:network:SecurityRule",
  storage: "azure-native:storage:StorageAccount",
  lb: "azure-native:network:LoadBalancer",
  vm: "azure-native:compute:VirtualMachine",
  pg: "azure-native:dbforpostgresql:Server",
  zone: "azure-native:privatedns:PrivateZone",
  worker: "cloudflare:index/workersScript:WorkersScript",
  role: "azure-native:authorization:RoleAssignment",
} as const;

const onType = (type: string, f: (r: Planned) => string[]) => ({ resource: (r: Planned) => (r.type === type ? f(r) : []) });

/** Azure's list fields of a security rule take no "*" (it belongs in the single field), and a rule sets one of the pair. */
function securityRuleFields(rule: Record<string, any>, where: string): string[] {
  const out: string[] = [];
  for (const [single, list] of [
    ["destinationPortRange", "destinationPortRanges"],
    ["sourcePortRange", "sourcePortRanges"],
    ["destinationAddressPrefix", "destinationAddressPrefixes"],
    ["sourceAddressPrefix", "sourceAddressPrefixes"],
  ]) {
    const values = rule[list];
    if (Array.isArray(values) && values.includes("*"))
      out.push(`${where}: ${list} holds "*", which Azure refuses in a list; put "*" in ${single}`);
    if (known(rule[single]) && Array.isArray(values) && values.length > 0)
      out.push(`${where}: sets both ${single} and ${list}; Azure takes one`);
  }
  return out;
}

const nsgLists: Rule = {
  name: "nsg-wildcard-not-in-list",
  description: 'A network security rule puts "*" in its single port or prefix field, never in the list field.',
  source:
    "https://learn.microsoft.com/azure/virtual-network/network-security-groups-overview#security-rules; Azure/terraform-azurerm-network-security-group: destination_port_ranges does not take '*'",
  check: {
    resource: (r) =>
      r.type === T.nsg
        ? (r.props.securityRules ?? []).flatMap((s: Record<string, any>) => securityRuleFields(s, `rule ${s.name}`))
        : r.type === T.securityRule
          ? securityRuleFields(r.props, `rule ${r.name}`)
          : [],
  },
};

const storageName: Rule = {
  name: "storage-account-name",
  description:
    "A storage account sets its name explicitly, 3 to 24 lower-case letters and digits (autonaming appends characters to the logical name unchecked).",
  source: NAME_RULES.storageAccount.source,
  check: onType(T.storage, (r) => {
    const n = r.props.accountName;
    if (n === undefined)
      return [
        `storage account ${r.name} has no accountName: the provider would append 8 characters to "${r.name}", which Azure refuses unless it is lower-case letters and digits of at most 16`,
      ];
    return known(n) && !NAME_RULES.storageAccount.value.test(n)
      ? [`storage account name "${n}" must be 3 to 24 lower-case letters and digits`]
      : [];
  }),
};

/** Resources that take a name from their logical name plus the provider's suffix, and the rule that name must meet. */
const AUTONAMED: Array<{ type: string; prop: string; rule: { value: RegExp; source: string } }> = [
  { type: T.pg, prop: "serverName", rule: NAME_RULES.postgresServer },
  { type: T.vm, prop: "vmName", rule: NAME_RULES.linuxVm },
];

const autonames: Rule = {
  name: "autoname-valid",
  description:
    "A resource named by the provider (logical name plus 8 characters) gets a name Azure accepts for its type; so does a VM's computer name.",
  source: `${NAME_RULES.postgresServer.source}; ${NAME_RULES.linuxVm.source}`,
  check: {
    resource: (r) => {
      const a = AUTONAMED.find((x) => x.type === r.type);
      if (!a) return [];
      const explicit = r.props[a.prop];
      const name = explicit ?? `${r.name}${"x".repeat(AUTONAME_SUFFIX)}`;
      const out =
        known(name) && !a.rule.value.test(name)
          ? [
              `${r.type.split(":").at(-1)} ${r.name}: the name ${explicit ? `"${name}"` : `"${r.name}" + ${AUTONAME_SUFFIX} characters`} breaks ${a.rule.value}`,
            ]
          : [];
      const computer = r.props.osProfile?.computerName;
      if (r.type === T.vm && known(computer) && !NAME_RULES.linuxVm.value.test(computer))
        out.push(`VM ${r.name}: computer name "${computer}" breaks ${NAME_RULES.linuxVm.value}`);
      return out;
    },
  },
};

const namedInGroup: Rule = {
  name: "fixed-names-per-stack",
  description:
    "A name fixed inside the resource group carries the stack's slug, so two stacks can share one group; each name meets its type's rule.",
  source: `${NAME_RULES.loadBalancer.source}; ${NAME_RULES.postgresDnsZone.source}`,
  check: {
    resource: (r) => {
      const fixed =
        r.type === T.lb
          ? { n: r.props.loadBalancerName, rule: NAME_RULES.loadBalancer }
          : r.type === T.zone
            ? { n: r.props.privateZoneName, rule: NAME_RULES.postgresDnsZone }
            : undefined;
      if (!fixed || !known(fixed.n)) return [];
      const slug = stackSlug(stackOf(r.urn));
      const out = fixed.rule.value.test(fixed.n) ? [] : [`${r.name}: name "${fixed.n}" breaks ${fixed.rule.value} (${fixed.rule.source})`];
      if (!String(fixed.n).includes(slug))
        out.push(
          `${r.name}: name "${fixed.n}" does not carry the stack's slug "${slug}", so a second stack in the same resource group would collide with it`,
        );
      return out;
    },
  },
};

const vmImage: Rule = {
  name: "vm-size-image-controller",
  description: "A size that attaches disks over NVMe only boots a Gen2 image tagged NVMe-capable, with the NVMe disk controller.",
  source: NVME_ONLY_SIZE.source,
  check: onType(T.vm, (r) => {
    const size = r.props.hardwareProfile?.vmSize;
    if (!known(size) || !NVME_ONLY_SIZE.value.test(size)) return [];
    const image = r.props.storageProfile?.imageReference;
    const out: string[] = [];
    if (!isNvmeImage(image))
      out.push(
        `VM ${r.name}: ${size} attaches disks over NVMe only, and image ${JSON.stringify(image)} is not one known to be Gen2 and NVMe-tagged`,
      );
    if (r.props.storageProfile?.diskControllerType !== "NVMe")
      out.push(`VM ${r.name}: ${size} needs storageProfile.diskControllerType "NVMe"`);
    return out;
  }),
};

const zones: Rule = {
  name: "zones-offered",
  description:
    "A zonal resource sits in a region with availability zones, in zone 1, 2 or 3; an Engine VM is an L-series size with local NVMe.",
  source: `${ZONE_REGIONS.source} (read ${ZONE_REGIONS.read}); ${LOCAL_NVME_SIZE.source}`,
  check: {
    resource: (r) => {
      const z: unknown[] =
        r.type === T.vm
          ? (r.props.zones ?? [])
          : r.type === T.pg
            ? [r.props.availabilityZone, r.props.highAvailability?.standbyAvailabilityZone].filter(known)
            : [];
      if (z.length === 0) return [];
      const out: string[] = [];
      if (known(r.props.location) && !ZONE_REGIONS.value.includes(r.props.location))
        out.push(`${r.name}: region ${r.props.location} has no availability zones (as read ${ZONE_REGIONS.read})`);
      for (const zone of z)
        if (known(zone) && !["1", "2", "3"].includes(String(zone)))
          out.push(`${r.name}: zone ${String(zone)} does not exist; Azure's logical zones are 1, 2 and 3`);
      const size = r.props.hardwareProfile?.vmSize;
      if (r.props.tags?.["actor-bench-role"] === "engine" && known(size) && !LOCAL_NVME_SIZE.value.test(size))
        out.push(`Engine VM ${r.name}: ${size} has no local NVMe disk for the Engine's data`);
      return out;
    },
  },
};

const postgresHa: Rule = {
  name: "postgres-zone-redundant-ha",
  description: "Zone-redundant high availability runs on General Purpose or Memory Optimized, with the standby in another zone.",
  source: POSTGRES_HA_TIERS.source,
  check: onType(T.pg, (r) => {
    if (r.props.highAvailability?.mode !== "ZoneRedundant") return [];
    const out: string[] = [];
    const tier = r.props.sku?.tier;
    if (known(tier) && !POSTGRES_HA_TIERS.value.includes(tier)) out.push(`${r.name}: tier ${tier} offers no zone-redundant HA`);
    const standby = r.props.highAvailability?.standbyAvailabilityZone;
    if (known(standby) && String(standby) === String(r.props.availabilityZone))
      out.push(`${r.name}: the standby is in the primary's zone ${String(standby)}`);
    return out;
  }),
};

/** The URLs an Engine VM's config gives: from its plain tags, and from its user data once known. */
function engineUrls(vm: Planned): string[] {
  const tags = vm.props.tags ?? {};
  const urls = [tags["actor-bench-public-url"], tags["actor-bench-peer-url"]].filter(known) as string[];
  const data = vm.props.osProfile?.customData;
  if (known(data)) {
    const doc = parse(Buffer.from(String(data), "base64").toString("utf8")) as {
      write_files?: Array<{ path: string; content: string }>;
    } | null;
    const file = doc?.write_files?.find((f) => f.path.endsWith("/engine.json"));
    if (file) {
      const dcs =
        (JSON.parse(file.content) as { topology?: { datacenters?: Record<string, { public_url?: string; peer_url?: string }> } }).topology
          ?.datacenters ?? {};
      for (const dc of Object.values(dcs)) urls.push(...[dc.public_url, dc.peer_url].filter((u): u is string => typeof u === "string"));
    }
  }
  return urls;
}

const noHairpin: Rule = {
  name: "no-engine-behind-own-load-balancer",
  description:
    "No Engine addresses the internal load balancer it is a backend of: Azure drops a backend's flow to its own frontend when it maps back to itself.",
  source:
    "https://learn.microsoft.com/azure/load-balancer/load-balancer-troubleshoot-backend-traffic (accessing the internal load balancer frontend from a backend VM); https://learn.microsoft.com/azure/load-balancer/components#limitations",
  check: {
    stack: (all) => {
      const frontends = all
        .filter((r) => r.type === T.lb)
        .flatMap((lb) =>
          (lb.props.frontendIPConfigurations ?? []).map((f: { privateIPAddress?: string }) => f.privateIPAddress).filter(known),
        );
      const engines = all.filter((r) => r.type === T.vm && (r.props.tags?.["actor-bench-role"] === "engine" || engineUrls(r).length > 0));
      return engines.flatMap((vm) =>
        engineUrls(vm)
          .filter((u) => frontends.includes(new URL(u).hostname))
          .map((u) => ({
            urn: vm.urn,
            message: `Engine VM ${vm.name} gives ${u}, the internal load balancer it sits behind; give its own address`,
          })),
      );
    },
  },
};

const workerUpload: Rule = {
  name: "worker-durable-object-upload",
  description: "A Worker binds only Durable Object classes its migrations create, and may be deleted though it implements them (force).",
  source:
    "https://developers.cloudflare.com/durable-objects/reference/durable-objects-migrations/; https://developers.cloudflare.com/api/resources/workers/subresources/scripts/methods/delete/",
  check: onType(T.worker, (r) => {
    const classes = (r.props.bindings ?? [])
      .filter((b: { type?: string; scriptName?: string }) => b.type === "durable_object_namespace" && !b.scriptName)
      .map((b: { className: string }) => b.className);
    if (classes.length === 0) return [];
    const m = r.props.migrations ?? {};
    const created = [
      ...(m.newSqliteClasses ?? []),
      ...(m.newClasses ?? []),
      ...(m.steps ?? []).flatMap((s: { newSqliteClasses?: string[]; newClasses?: string[] }) => [
        ...(s.newSqliteClasses ?? []),
        ...(s.newClasses ?? []),
      ]),
    ];
    const out = classes
      .filter((c: string) => !created.includes(c))
      .map((c: string) => `Worker ${r.name}: binds Durable Object class ${c}, which no migration creates`);
    if (!m.newTag) out.push(`Worker ${r.name}: its migrations have no newTag`);
    if (r.props.force !== true)
      out.push(
        `Worker ${r.name}: implements Durable Object classes, so Cloudflare refuses its delete (on destroy or replacement) without force: true`,
      );
    return out;
  }),
};

const noSharedKey: Rule = {
  name: "storage-no-shared-key",
  description:
    'A storage account allows no account key (a tenant\'s "prevent shared key access" policy refuses one that does); access is by Entra identity.',
  source: NO_SHARED_KEY.source,
  check: onType(T.storage, (r) =>
    r.props.allowSharedKeyAccess === NO_SHARED_KEY.value ? [] : [`storage account ${r.name}: allowSharedKeyAccess must be false`],
  ),
};

const DATA_ROLES = [BLOB_ROLES.value.dataContributor, BLOB_ROLES.value.dataReader, BLOB_ROLES.value.dataOwner];

const blobRoleScope: Rule = {
  name: "blob-role-scope",
  description:
    "A Blob data role is assigned on one container, never wider; Storage Blob Delegator on a storage account, where the delegation key is issued.",
  source: BLOB_ROLES.source,
  check: onType(T.role, (r) => {
    const role =
      String(r.props.roleDefinitionId ?? "")
        .split("/")
        .at(-1) ?? "";
    const scope = r.props.scope;
    if (!known(scope) || !known(r.props.roleDefinitionId)) return [];
    if ((DATA_ROLES as readonly string[]).includes(role) && !/\/blobServices\/default\/containers\/[^/]+$/.test(scope))
      return [`role assignment ${r.name}: a Blob data role on ${scope}, wider than the one container it needs`];
    if (role === BLOB_ROLES.value.delegator && !/\/providers\/Microsoft\.Storage\/storageAccounts\/[^/]+$/.test(scope))
      return [
        `role assignment ${r.name}: Storage Blob Delegator on ${scope}; Azure issues the key for a storage account, so assign it there`,
      ];
    return [];
  }),
};

export const RULES: Rule[] = [
  noSharedKey,
  blobRoleScope,
  nsgLists,
  storageName,
  autonames,
  namedInGroup,
  vmImage,
  zones,
  postgresHa,
  noHairpin,
  workerUpload,
];

/** Every violation of every rule over one stack's resources, each with the rule's name. */
export function violationsOf(all: Planned[], rules: Rule[] = RULES): Array<Violation & { rule: string }> {
  return rules.flatMap((rule) =>
    "resource" in rule.check
      ? all.flatMap((r) =>
          (rule.check as { resource: (r: Planned) => string[] }).resource(r).map((message) => ({ rule: rule.name, urn: r.urn, message })),
        )
      : rule.check.stack(all).map((v) => ({ ...v, rule: rule.name })),
  );
}
