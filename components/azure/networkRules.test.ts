import { describe, expect, it } from "vitest";
import { engineVmPlan, securityRules } from "./networkRules";
import { CLOUD_NETWORK } from "../../cluster/topology";

describe("the NSG rules", () => {
  const rules = securityRules("203.0.113.7");
  const allows = (source: string, destination: string, port: string) =>
    rules
      .filter((r) => r.sourceAddressPrefix === source && (r.destinationAddressPrefix === destination || r.destinationAddressPrefix === "*"))
      .sort((a, b) => a.priority - b.priority)
      .find((r) => r.destinationPortRanges.includes(port) || r.destinationPortRanges.includes("*"))?.access === "Allow";

  it("opens SSH to the runner from the configured source only", () => {
    const ssh = rules.filter((r) => r.destinationPortRanges.includes("22") && r.sourceAddressPrefix !== CLOUD_NETWORK.subnet);
    expect(ssh).toEqual([expect.objectContaining({ sourceAddressPrefix: "203.0.113.7", destinationAddressPrefix: `${CLOUD_NETWORK.runnerAddress}/32`, access: "Allow" })]);
    expect(allows("*", "*", "22")).toBe(false);
  });

  it("keeps Engine, NATS and Postgres ports inside the VNet, and denies the rest", () => {
    for (const port of ["6420", "6421", "6430", "4222", "6222"]) {
      expect(allows(CLOUD_NETWORK.vnet, CLOUD_NETWORK.subnet, port), port).toBe(true);
      expect(allows("203.0.113.7", CLOUD_NETWORK.subnet, port), port).toBe(false);
    }
    expect(allows(CLOUD_NETWORK.subnet, CLOUD_NETWORK.postgresSubnet, "5432")).toBe(true);
    expect(rules.every((r) => r.access === "Deny" || r.sourceAddressPrefix !== "*")).toBe(true);
    expect(rules.at(-1)).toMatchObject({ access: "Deny", sourceAddressPrefix: "*", destinationPortRanges: ["*"] });
    expect(new Set(rules.map((r) => r.priority)).size).toBe(rules.length);
  });

  it("refuses an SSH source open to the Internet with the key and the fix", () => {
    for (const open of ["*", "0.0.0.0/0", "Internet"]) expect(() => securityRules(open)).toThrow(/sshSourceAddress.*give your own address/);
  });
});

describe("the Engine VM plan", () => {
  it("puts one VM in each zone at its static address", () => {
    expect(engineVmPlan([2, 3, 1]).map((v) => [v.zone, v.address])).toEqual([["2", "10.40.1.11"], ["3", "10.40.1.12"], ["1", "10.40.1.13"]]);
  });
  it("refuses the reference's zone 4 and repeated zones", () => {
    expect(() => engineVmPlan([1, 2, 4])).toThrow(/three distinct Azure zones from 1 to 3/);
    expect(() => engineVmPlan([1, 1, 2])).toThrow(/three distinct/);
  });
});
