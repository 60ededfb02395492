import { describe, expect, it } from "vitest";
import { fixedNames, SLUG_MAX, stackSlug, storageAccountName } from "./names";

const STACKS = [
  "eastus2",
  "northeurope",
  "swedencentral-2318",
  "Prod_West.Europe",
  "a",
  "2318-eastus2",
  "a-very-long-stack-name-for-a-region-and-release-2.3.19",
];

describe("names from a stack name", () => {
  it("keeps a slug as it is, and tags any other name with its hash", () => {
    expect(stackSlug("eastus2")).toBe("eastus2");
    expect(stackSlug("swedencentral-2318")).toBe("swedencentral-2318");
    expect(stackSlug("Prod_West.Europe")).toMatch(/^prod-west-europe-[0-9a-f]{6}$/);
    expect(stackSlug("Prod_A")).not.toBe(stackSlug("prod-a"));
  });

  it("gives a slug Azure takes in every name it goes into, for any stack name Pulumi accepts", () => {
    for (const s of STACKS) {
      const slug = stackSlug(s);
      expect(slug, s).toMatch(/^[a-z][a-z0-9-]*[a-z0-9]$|^[a-z]$/);
      expect(slug.length, s).toBeLessThanOrEqual(SLUG_MAX);
      expect(slug, s).not.toContain("--");
    }
  });

  it("a storage account name of 3 to 24 lower-case letters and digits, different per stack", () => {
    const names = STACKS.map((s) => storageAccountName(s, "k3j9x0q2"));
    for (const n of names) expect(n).toMatch(/^[a-z0-9]{3,24}$/);
    expect(new Set(names).size).toBe(STACKS.length);
    expect(() => storageAccountName("eastus2", "ABC")).toThrow(/8 lower-case letters and digits/);
  });

  it("fixed names inside the resource group carry the slug", () => {
    expect(fixedNames("swedencentral-2318")).toEqual({
      loadBalancer: "actor-bench-swedencentral-2318-engines",
      postgresDnsZone: "swedencentral-2318.actor-bench.private.postgres.database.azure.com",
    });
  });
});
