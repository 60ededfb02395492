import { describe, expect, it } from "vitest";
import { diff } from "./containerAccessPolicy";
import { expiryFrom, needsRenewal } from "../../workloads/runner/accessPolicies";

const NOW = new Date("2026-12-06T10:00:00Z");
const inputs = { containerUrl: "https://a.blob.core.windows.net/results", accountName: "a", accountKey: "k", policies: [{ id: "runner-upload", permissions: "cw" }], lifetimeHours: 24, renewBelowHours: 12 };
const at = (hoursFromNow: number) => new Date(NOW.getTime() + hoursFromNow * 3600_000);

describe("the result container's stored access policies over time", () => {
  it("a set made now expires in its lifetime, in whole seconds", () => {
    expect(expiryFrom(new Date("2026-12-06T10:00:00.750Z"), 24)).toBe("2026-12-07T10:00:00Z");
  });

  it("plans no change while more than renewBelowHours is left, and renews after", async () => {
    const olds = { ...inputs, expiresOn: expiryFrom(NOW, 24) };
    expect((await diff("id", olds, inputs, at(1))).changes).toBe(false);
    expect((await diff("id", olds, inputs, at(11.9))).changes).toBe(false);
    expect(await diff("id", olds, inputs, at(12.1))).toMatchObject({ changes: true, replaces: [] });
    expect(needsRenewal(undefined, NOW)).toBe(true);
  });

  it("new permissions are an update; another container a replacement; a new key neither", async () => {
    const olds = { ...inputs, expiresOn: expiryFrom(NOW, 24) };
    expect(await diff("id", olds, { ...inputs, policies: [{ id: "runner-upload", permissions: "c" }] }, at(1))).toMatchObject({ changes: true, replaces: [] });
    expect((await diff("id", olds, { ...inputs, containerUrl: "https://b.blob.core.windows.net/results" }, at(1))).replaces).toEqual(["containerUrl"]);
    expect((await diff("id", olds, { ...inputs, accountKey: "other" }, at(1))).changes).toBe(false);
  });
});
