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

/** Replaces the container's stored access policies with `policies` (none: every SAS tied to one is revoked). */
export async function setContainerPolicies(containerUrl: string, accountName: string, accountKey: string, policies: readonly AccessPolicy[]): Promise<void> {
  const container = new ContainerClient(containerUrl, new StorageSharedKeyCredential(accountName, accountKey));
  await container.setAccessPolicy(
    undefined,
    policies.map((p) => ({ id: p.id, accessPolicy: { permissions: p.permissions, expiresOn: new Date(p.expiresOn) } })),
  );
}
