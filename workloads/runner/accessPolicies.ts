/**
 * The result container's stored access policies: each SAS the pass uses is
 * tied to one of them (`si=`), so it has exactly that policy's permissions
 * and expiry, and revoking the policy (or `pulumi destroy`) revokes it at
 * once, without rotating the account key.
 */
import { ContainerClient, StorageSharedKeyCredential } from "@azure/storage-blob";

export interface AccessPolicy {
  id: string;
  /** Blob SAS permission letters: c create, w write, r read, l list, d delete. */
  permissions: string;
  /** ISO 8601. */
  expiresOn: string;
}

/** What each holder of a SAS needs: the runner uploads a run (create, write); this machine downloads it (read). */
export const RESULT_POLICY_IDS = { upload: "runner-upload", download: "pass-download" } as const;
export const RESULT_POLICY_PERMISSIONS = { upload: "cw", download: "r" } as const;

/** The two policies, valid until `expiresOn`. */
export function resultPolicies(expiresOn: string): AccessPolicy[] {
  return (["upload", "download"] as const).map((k) => ({ id: RESULT_POLICY_IDS[k], permissions: RESULT_POLICY_PERMISSIONS[k], expiresOn }));
}

/**
 * How long the policies (and so both SAS) live, and when they are renewed: a
 * fresh expiry is set when they are made and when less than `renewBelowHours`
 * is left, so an `up` within that time plans no change and a pass that starts
 * has at least that long before its SAS stop working.
 */
export const ACCESS_LIFE = { hours: 24, renewBelowHours: 12 } as const;

/** The expiry a policy set made at `now` gets (whole seconds, ISO 8601). */
export function expiryFrom(now: Date, hours: number = ACCESS_LIFE.hours): string {
  return new Date(Math.floor(now.getTime() / 1000) * 1000 + hours * 3600_000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Whether policies that expire at `expiresOn` must be renewed at `now`. */
export function needsRenewal(expiresOn: unknown, now: Date, renewBelowHours: number = ACCESS_LIFE.renewBelowHours): boolean {
  const at = typeof expiresOn === "string" ? Date.parse(expiresOn) : Number.NaN;
  return Number.isNaN(at) || at - now.getTime() < renewBelowHours * 3600_000;
}

/** Replaces the container's stored access policies with `policies` (none: every SAS tied to one is revoked). */
export async function setContainerPolicies(containerUrl: string, accountName: string, accountKey: string, policies: readonly AccessPolicy[]): Promise<void> {
  const container = new ContainerClient(containerUrl, new StorageSharedKeyCredential(accountName, accountKey));
  await container.setAccessPolicy(
    undefined,
    policies.map((p) => ({ id: p.id, accessPolicy: { permissions: p.permissions, expiresOn: new Date(p.expiresOn) } })),
  );
}
