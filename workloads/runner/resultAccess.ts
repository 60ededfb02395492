/**
 * Who may touch the result container, and for how long, with no account key
 * anywhere. The identity `pulumi up` runs as holds two role assignments
 * (Storage Blob Delegator on the account, Storage Blob Data Contributor on the
 * result container only), asks Azure for a user delegation key and signs two
 * container SAS with it: the runner's may create and write blobs, this
 * machine's may read them. Azure grants a user delegation SAS the
 * intersection of its letters and the signer's roles, checked on every
 * request, so removing the role assignments (`pulumi destroy`) revokes both.
 */
import { ContainerSASPermissions, SASProtocol, generateBlobSASQueryParameters, type UserDelegationKey } from "@azure/storage-blob";
import { request } from "undici";
import { API_VERSION, blobUrl } from "./blobStore";

/** What each holder of a SAS needs: the runner uploads a run (create, write); this machine downloads it (read). */
export const RESULT_GRANTS = { upload: "cw", download: "r" } as const;

/**
 * How long both SAS (and the key that signs them) live, and when they are
 * renewed: fresh ones are signed when less than `renewBelowHours` is left, so
 * an `up` within that time plans no change and a pass that starts has at least
 * that long before its SAS stop working.
 */
export const ACCESS_LIFE = { hours: 24, renewBelowHours: 12 } as const;

/** A user delegation key is valid for at most 7 days from its start (https://learn.microsoft.com/rest/api/storageservices/get-user-delegation-key#request-body). */
export const DELEGATION_KEY_MAX_HOURS = 7 * 24;

/**
 * A new role assignment can take up to 30 minutes to take effect, because
 * Resource Manager caches it (https://learn.microsoft.com/azure/role-based-access-control/troubleshooting,
 * "role assignment changes are not being detected"); until then the key
 * request or the SAS is refused with 403.
 */
export const ROLE_PROPAGATION = { waitMinutes: 30, pollSeconds: 15 } as const;

/** The token audience Azure Storage accepts (https://learn.microsoft.com/azure/storage/blobs/authorize-access-azure-active-directory#microsoft-authentication-library-msal). */
export const STORAGE_TOKEN_AUDIENCE = "https://storage.azure.com/";

/** A time in whole seconds, ISO 8601, as Blob takes it. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The expiry of access granted at `now` (whole seconds, ISO 8601). */
export function expiryFrom(now: Date, hours: number = ACCESS_LIFE.hours): string {
  return isoSeconds(now.getTime() + hours * 3600_000);
}

/** Whether access that expires at `expiresOn` must be renewed at `now`. */
export function needsRenewal(expiresOn: unknown, now: Date, renewBelowHours: number = ACCESS_LIFE.renewBelowHours): boolean {
  const at = typeof expiresOn === "string" ? Date.parse(expiresOn) : Number.NaN;
  return Number.isNaN(at) || at - now.getTime() < renewBelowHours * 3600_000;
}

/** The account's Blob service URL from a container URL (…/<container>, for Azure or an emulator's path-style URL). */
export function serviceUrlOf(containerUrl: string): { serviceUrl: string; container: string } {
  const u = new URL(containerUrl);
  const parts = u.pathname.replace(/\/$/, "").split("/");
  const container = parts.pop() ?? "";
  return { serviceUrl: `${u.origin}${parts.join("/")}`, container };
}

/** Thrown while the signer's roles have not reached the Blob service yet: worth waiting for. */
export class NotYetAuthorized extends Error {}

/** The 403 code that means "this identity may not, yet" (a role not assigned or not propagated), not a bad token or signature. */
const NOT_YET = ["AuthorizationPermissionMismatch"];

/** The text of an XML element of Blob's answer (a flat element, no attributes), or undefined. */
const element = (xml: string, name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

/** Blob's error code and its reason, on one line (the detail, when Blob gives one, says which check failed). */
function errorOf(xml: string): { code: string; message: string } {
  const line = (name: string) => element(xml, name)?.split("\n")[0];
  return {
    code: line("Code") ?? "",
    message: line("AuthenticationErrorDetail") ?? line("Message") ?? xml.slice(0, 200).replace(/\s+/g, " "),
  };
}

const tag = (xml: string, name: string): string => {
  const v = element(xml, name);
  if (v === undefined) throw new Error(`the user delegation key response has no <${name}>: ${xml.slice(0, 200)}`);
  return v;
};

/** The key Azure issues to the token's identity, valid from `startsOn` to `expiresOn` (Get User Delegation Key). */
export async function requestDelegationKey(serviceUrl: string, token: string, startsOn: Date, expiresOn: Date): Promise<UserDelegationKey> {
  const res = await request(`${serviceUrl}/?restype=service&comp=userdelegationkey`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "x-ms-version": API_VERSION, "content-type": "application/xml" },
    body: `<?xml version="1.0" encoding="utf-8"?><KeyInfo><Start>${isoSeconds(startsOn.getTime())}</Start><Expiry>${isoSeconds(expiresOn.getTime())}</Expiry></KeyInfo>`,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) {
    const { code, message } = errorOf(text);
    if (res.statusCode === 403 && NOT_YET.includes(code))
      throw new NotYetAuthorized(
        `${serviceUrl}: the user delegation key was refused (HTTP 403 ${code}): the identity needs Storage Blob Delegator on the storage account`,
      );
    throw new Error(`${serviceUrl}: the user delegation key request failed: HTTP ${res.statusCode} ${code} ${message}`);
  }
  return {
    signedObjectId: tag(text, "SignedOid"),
    signedTenantId: tag(text, "SignedTid"),
    signedStartsOn: new Date(tag(text, "SignedStart")),
    signedExpiresOn: new Date(tag(text, "SignedExpiry")),
    signedService: tag(text, "SignedService"),
    signedVersion: tag(text, "SignedVersion"),
    value: tag(text, "Value"),
  };
}

/** A container SAS with exactly `permissions`, signed with a user delegation key, HTTPS only, valid while the key is. */
export function signContainerSas(key: UserDelegationKey, accountName: string, container: string, permissions: string): string {
  return generateBlobSASQueryParameters(
    {
      containerName: container,
      permissions: ContainerSASPermissions.parse(permissions),
      startsOn: key.signedStartsOn,
      expiresOn: key.signedExpiresOn,
      protocol: SASProtocol.Https,
    },
    key,
    accountName,
  ).toString();
}

/**
 * Whether a read SAS of the container is honoured yet: a read of a blob that
 * does not exist answers 404 once the signer's role has reached the Blob
 * service, and 403 AuthorizationPermissionMismatch before. Any other answer
 * (a signature refused, say) is an error, not a wait.
 */
export async function readAccessLive(containerUrl: string, readSas: string): Promise<boolean> {
  const res = await request(blobUrl({ url: containerUrl, sas: readSas }, ".access-probe"), {
    method: "GET",
    headers: { "x-ms-version": API_VERSION },
  });
  const text = await res.body.text();
  if (res.statusCode === 404) return true;
  const { code, message } = errorOf(text);
  if (res.statusCode === 403 && NOT_YET.includes(code)) return false;
  throw new Error(`${containerUrl}: a read with the new SAS answered HTTP ${res.statusCode} ${code} ${message}`);
}
