/**
 * What Azure documents about the things this program asks for, as data with
 * its source. Read by the stack validator (a bad value is refused before any
 * resource is declared) and by the policy pack (policy/rules.ts), which checks
 * the resources the program actually declares. Pure, no Pulumi.
 */

interface Fact<T> {
  value: T;
  source: string;
  /** When the source was read. */
  read: string;
}

/**
 * Regions with availability zones (logical zones 1, 2 and 3): the three-zone
 * Engine cluster needs one. A region added to Azure's page since it was read
 * is refused here until it is added to this list.
 */
export const ZONE_REGIONS: Fact<readonly string[]> = {
  value: [
    "australiaeast",
    "austriaeast",
    "belgiumcentral",
    "brazilsouth",
    "canadacentral",
    "centralindia",
    "centralus",
    "chilecentral",
    "denmarkeast",
    "eastasia",
    "eastus",
    "eastus2",
    "francecentral",
    "germanywestcentral",
    "indonesiacentral",
    "israelcentral",
    "italynorth",
    "japaneast",
    "japanwest",
    "koreacentral",
    "malaysiawest",
    "mexicocentral",
    "newzealandnorth",
    "northeurope",
    "norwayeast",
    "polandcentral",
    "qatarcentral",
    "southafricanorth",
    "southcentralus",
    "southeastasia",
    "spaincentral",
    "swedencentral",
    "switzerlandnorth",
    "uaenorth",
    "uksouth",
    "westeurope",
    "westus2",
    "westus3",
  ],
  source: "https://learn.microsoft.com/azure/reliability/availability-zones-region-support",
  read: "2026-12-06",
};

/**
 * Sizes whose disks attach over NVMe only: the v6 and later general-purpose
 * families and the L-series from v4 on. They boot Generation 2 images only, and
 * the image must be tagged NVMe-capable.
 */
export const NVME_ONLY_SIZE: Fact<RegExp> = {
  value: /^Standard_(?:[A-KM-Z][A-Za-z]*\d+[a-z-]*_v(?:[6-9]|\d{2,})|L\d+[a-z]*_v(?:[4-9]|\d{2,}))$/,
  source: "https://learn.microsoft.com/azure/virtual-machines/nvme-overview",
  read: "2026-12-06",
};

/** Storage-optimised L-series: the only sizes with the local NVMe disk the Engine keeps its data on (cluster/scripts.ts). */
export const LOCAL_NVME_SIZE: Fact<RegExp> = {
  value: /^Standard_L\d+a?s_v\d+$/,
  source: "https://learn.microsoft.com/azure/virtual-machines/sizes/storage-optimized/lasv3-series",
  read: "2026-12-06",
};

/** Marketplace images known to be Generation 2 and tagged NVMe-capable (check: `az vm image show --urn <urn> --query features`). */
const NVME_IMAGES: Fact<ReadonlyArray<{ publisher: string; offer: string; sku: string }>> = {
  value: [{ publisher: "Debian", offer: "debian-12", sku: "12-gen2" }],
  source: "https://learn.microsoft.com/azure/virtual-machines/enable-nvme-interface",
  read: "2026-12-06",
};

export const NAME_RULES = {
  storageAccount: {
    value: /^[a-z0-9]{3,24}$/,
    source: "https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftstorage",
    read: "2026-12-06",
  },
  loadBalancer: {
    value: /^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,78}[A-Za-z0-9_])?$/,
    source: "https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftnetwork",
    read: "2026-12-06",
  },
  postgresServer: {
    value: /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/,
    source: "https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftdbforpostgresql",
    read: "2026-12-06",
  },
  /** Linux VM names: 1 to 64, no underscore here (it is not a valid host name either). */
  linuxVm: {
    value: /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,62}[A-Za-z0-9])?$/,
    source: "https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftcompute",
    read: "2026-12-06",
  },
  postgresDnsZone: {
    value: /^[a-z0-9-]+(\.[a-z0-9-]+)*\.postgres\.database\.azure\.com$/,
    source:
      "https://learn.microsoft.com/azure/postgresql/flexible-server/concepts-networking-private#private-dns-zone-and-virtual-network-peering",
    read: "2026-12-06",
  },
} as const satisfies Record<string, Fact<RegExp>>;

/** How many characters the provider's autonaming appends to a logical name (a dash is not among them). */
export const AUTONAME_SUFFIX = 8;

/** Zone-redundant high availability is offered on General Purpose and Memory Optimized, not Burstable. */
export const POSTGRES_HA_TIERS: Fact<readonly string[]> = {
  value: ["GeneralPurpose", "MemoryOptimized"],
  source: "https://learn.microsoft.com/azure/postgresql/flexible-server/concepts-high-availability#limitations",
  read: "2026-12-06",
};

/** Whether a marketplace image reference is one known to carry the NVMe tag. */
export function isNvmeImage(image: { publisher?: unknown; offer?: unknown; sku?: unknown } | undefined): boolean {
  return NVME_IMAGES.value.some((i) => i.publisher === image?.publisher && i.offer === image?.offer && i.sku === image?.sku);
}

/**
 * The built-in roles the result container's access rests on. Storage Blob
 * Delegator holds only the action that issues a user delegation key, which
 * works at the level of the account, so it must be assigned there (or wider);
 * the data roles are assigned on the one container they need.
 */
export const BLOB_ROLES = {
  value: {
    delegator: "db58b8e5-c6ad-4a2a-8342-4190687cbf4a",
    dataContributor: "ba92f5b4-2d11-453d-a403-e96b0029c9fe",
    dataReader: "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1",
    dataOwner: "b7e6dc6d-f1e8-4753-8033-0f276bb0955b",
  },
  source:
    "https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/storage; https://learn.microsoft.com/rest/api/storageservices/create-user-delegation-sas#assign-permissions-with-rbac",
  read: "2026-12-06",
} as const;

/** A tenant's "Storage accounts should prevent shared key access" policy refuses an account that allows the account key. */
export const NO_SHARED_KEY = {
  value: false,
  source: "https://learn.microsoft.com/azure/storage/common/shared-key-authorization-prevent",
  read: "2026-12-06",
} as const;
