import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, getGlobalDispatcher, request, setGlobalDispatcher, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create, check } from "./resultAccess";
import { getBlob, putBlob } from "../../workloads/runner/blobStore";
import { RESULT_GRANTS, readAccessLive } from "../../workloads/runner/resultAccess";
import { startAzurite, storageToken, type Azurite } from "../../test/remotePeers";

// The stack's result access against Azurite's Blob service over HTTPS with Entra tokens: a real
// Get User Delegation Key, SAS signed with its key, and Blob's own checks of what each SAS may do.
// Azurite checks a token's issuer, audience and lifetime, not its signature or roles (no Entra
// tenant can be reached here), so role propagation is not exercised.
let dir: string;
let azurite: Azurite;
let previous: Dispatcher;
const OID = "6b3c5f8e-8c4e-4b1e-9d55-0a1f2e3d4c5b";
const inputs = () => ({
  containerUrl: azurite.containerUrl,
  accountName: azurite.accountName,
  token: storageToken(),
  grants: { ...RESULT_GRANTS },
  lifetimeHours: 24,
  renewBelowHours: 12,
  waitMinutes: 30,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "actor-bench-access-"));
  azurite = await startAzurite(join(dir, "azurite"), "results", { entra: true });
  previous = getGlobalDispatcher();
  setGlobalDispatcher(new Agent({ connect: { ca: azurite.ca } }));
  const res = await request(`${azurite.containerUrl}?restype=container`, {
    method: "PUT",
    headers: { authorization: `Bearer ${storageToken()}`, "x-ms-version": "2023-11-03" },
  });
  await res.body.text();
  expect(res.statusCode).toBe(201);
}, 60_000);

afterAll(async () => {
  if (previous) setGlobalDispatcher(previous);
  await azurite?.proc.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the result container's user delegation SAS, against Azurite over HTTPS", () => {
  it("signs one SAS per holder from a delegation key, each doing only what its letters allow", async () => {
    expect((await check({}, inputs())).failures).toEqual([]);
    const { outs } = await create(inputs());
    const sas = outs.sas as Record<string, string>;
    for (const [holder, letters] of Object.entries(RESULT_GRANTS)) {
      const q = new URLSearchParams(sas[holder]);
      // Signed by the token's identity (skoid), for the container (sr=c), HTTPS only, no stored policy and no account key.
      expect({ skoid: q.get("skoid"), sr: q.get("sr"), sp: q.get("sp"), spr: q.get("spr"), si: q.get("si") }, holder).toEqual({
        skoid: OID,
        sr: "c",
        sp: letters,
        spr: "https",
        si: null,
      });
      expect(Date.parse(q.get("se")!), holder).toBe(Date.parse(outs.expiresOn as string));
    }
    const upload = { url: azurite.containerUrl, sas: sas.upload };
    const download = { url: azurite.containerUrl, sas: sas.download };
    await putBlob(upload, "access-check/a.txt", Buffer.from("a"));
    await expect(getBlob(upload, "access-check/a.txt")).rejects.toThrow(/HTTP 403/);
    expect((await getBlob(download, "access-check/a.txt")).toString()).toBe("a");
    await expect(putBlob(download, "access-check/b.txt", Buffer.from("b"))).rejects.toThrow(/HTTP 403/);
  });

  it("a token Blob refuses fails at once with one line naming Blob's reason, not after the role wait", async () => {
    const started = Date.now();
    await expect(create({ ...inputs(), token: storageToken({ aud: "https://management.azure.com/" }) })).rejects.toThrow(
      /^https:\/\/127\.0\.0\.1:\d+\/devstoreaccount1: the user delegation key request failed: HTTP 403 AuthenticationFailed [^\n]*audience[^\n]*$/,
    );
    await expect(create({ ...inputs(), token: storageToken({ exp: Math.floor(Date.now() / 1000) - 60 }) })).rejects.toThrow(
      /HTTP 403 AuthenticationFailed .*expired/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("a SAS whose signature Blob refuses is an error, not a wait for roles", async () => {
    const { outs } = await create(inputs());
    const forged = (outs.sas as Record<string, string>).download.replace(
      /sig=[^&]+/,
      `sig=${encodeURIComponent(Buffer.alloc(32).toString("base64"))}`,
    );
    // Azure answers a bad signature with AuthenticationFailed, Azurite with AuthorizationFailure: neither is a role not yet propagated.
    await expect(readAccessLive(azurite.containerUrl, forged)).rejects.toThrow(
      /a read with the new SAS answered HTTP 403 AuthorizationFailure/,
    );
    expect(await readAccessLive(azurite.containerUrl, (outs.sas as Record<string, string>).download)).toBe(true);
  });
});
