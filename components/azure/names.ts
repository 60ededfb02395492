/**
 * The physical names the Azure stack gives its resources. A stack name is
 * whatever Pulumi accepts (letters, digits, "-", "_", "."), Azure's names are
 * narrower, and two stacks may share one resource group: so every name is
 * built from a slug of the stack that is valid everywhere it goes and unique
 * per stack. Pure; the policy pack (policy/rules.ts) checks the results.
 */
import { createHash } from "node:crypto";

/** Longest slug: the longest logical name built on it, plus the 8 characters the provider appends, stays within a VM's 64. */
export const SLUG_MAX = 24;

/**
 * Lower-case letters, digits and single dashes, at most SLUG_MAX. A stack name
 * that is already such a slug is kept; any other (capitals, "_", ".", too long)
 * gets 6 hex of its sha256, so "Prod_A" and "prod-a" never share a name.
 */
export function stackSlug(stack: string): string {
  const plain = stack
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
  if (plain === stack && plain.length <= SLUG_MAX && /^[a-z]/.test(plain)) return plain;
  const tag = createHash("sha256").update(stack).digest("hex").slice(0, 6);
  const head = plain
    .replace(/^[^a-z]+/, "")
    .slice(0, SLUG_MAX - 7)
    .replace(/-$/, "");
  return head ? `${head}-${tag}` : `s${tag}`;
}

/**
 * The storage account: 3 to 24 lower-case letters and digits, unique across
 * Azure (https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftstorage).
 * Set explicitly, because the provider's autonaming appends characters to the
 * logical name without sanitising it. `suffix` is the stack's random 8.
 */
export function storageAccountName(stack: string, suffix: string): string {
  if (!/^[a-z0-9]{8}$/.test(suffix)) throw new Error(`storage account suffix "${suffix}" must be 8 lower-case letters and digits`);
  return `ab${stackSlug(stack).replace(/-/g, "").slice(0, 14)}${suffix}`;
}

/** Names fixed inside the resource group: each carries the slug, so two stacks in one group never collide. */
export function fixedNames(stack: string) {
  const slug = stackSlug(stack);
  return {
    loadBalancer: `actor-bench-${slug}-engines`,
    // Private access needs a zone ending in .postgres.database.azure.com
    // (https://learn.microsoft.com/azure/postgresql/flexible-server/concepts-networking-private#private-dns-zone-and-virtual-network-peering).
    postgresDnsZone: `${slug}.actor-bench.private.postgres.database.azure.com`,
  };
}
