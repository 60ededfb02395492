import { describe, expect, it } from "vitest";
import { check, diff } from "./resultAccess";
import { expiryFrom, needsRenewal, serviceUrlOf } from "../../workloads/runner/resultAccess";

const NOW = new Date("2026-12-06T10:00:00Z");
const inputs = {
  containerUrl: "https://a.blob.core.windows.net/results",
  accountName: "a",
  token: "t",
  grants: { upload: "cw", download: "r" },
  lifetimeHours: 24,
  renewBelowHours: 12,
  waitMinutes: 30,
};
const at = (hoursFromNow: number) => new Date(NOW.getTime() + hoursFromNow * 3600_000);

describe("the result container's user delegation SAS over time", () => {
  it("a set signed now expires in its lifetime, in whole seconds", () => {
    expect(expiryFrom(new Date("2026-12-06T10:00:00.750Z"), 24)).toBe("2026-12-07T10:00:00Z");
  });

  it("plans no change while more than renewBelowHours is left, and renews after", async () => {
    const olds = { ...inputs, expiresOn: expiryFrom(NOW, 24) };
    expect((await diff("id", olds, inputs, at(1))).changes).toBe(false);
    expect((await diff("id", olds, inputs, at(11.9))).changes).toBe(false);
    expect(await diff("id", olds, inputs, at(12.1))).toMatchObject({ changes: true, replaces: [] });
    expect(needsRenewal(undefined, NOW)).toBe(true);
  });

  it("new permissions are an update; another container a replacement; a fresh token neither", async () => {
    const olds = { ...inputs, expiresOn: expiryFrom(NOW, 24) };
    expect(await diff("id", olds, { ...inputs, grants: { upload: "c", download: "r" } }, at(1))).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect((await diff("id", olds, { ...inputs, containerUrl: "https://b.blob.core.windows.net/results" }, at(1))).replaces).toEqual([
      "containerUrl",
    ]);
    expect((await diff("id", olds, { ...inputs, token: "another" }, at(1))).changes).toBe(false);
  });

  it("refuses a life longer than a delegation key's 7 days, plain HTTP, and permission letters Blob does not know", async () => {
    expect((await check({}, inputs)).failures).toEqual([]);
    const reasons = async (p: Record<string, unknown>) => (await check({}, { ...inputs, ...p })).failures.map((f) => f.property);
    expect(await reasons({ lifetimeHours: 169 })).toEqual(["lifetimeHours"]);
    expect(await reasons({ containerUrl: "http://a.blob.core.windows.net/results" })).toEqual(["containerUrl"]);
    expect(await reasons({ grants: { upload: "cwx" } })).toEqual(["grants"]);
    expect(await reasons({ renewBelowHours: 24 })).toEqual(["renewBelowHours"]);
  });

  it("finds the Blob service of an Azure container URL and of an emulator's path-style one", () => {
    expect(serviceUrlOf("https://ab1.blob.core.windows.net/results")).toEqual({
      serviceUrl: "https://ab1.blob.core.windows.net",
      container: "results",
    });
    expect(serviceUrlOf("https://127.0.0.1:10000/devstoreaccount1/results/")).toEqual({
      serviceUrl: "https://127.0.0.1:10000/devstoreaccount1",
      container: "results",
    });
  });
});
