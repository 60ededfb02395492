import { describe, expect, it } from "vitest";
import { engineVmPlan, portsOf, securityRules } from "./networkRules";
import { CLOUD_NETWORK } from "../../cluster/topology";

/** An IPv4 address or prefix as [network, prefix length]; a bare address is a /32. */
function cidr(p: string): [number, number] {
  const [addr, len = "32"] = p.split("/");
  const n = addr.split(".").reduce((a, o) => a * 256 + Number(o), 0);
  return [n, Number(len)];
}
const contains = (prefix: string, ip: string) => {
  if (prefix === "*") return true;
  if (!/^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(prefix)) return false; // service tags (AzureLoadBalancer) match no plain address
  const [net, len] = cidr(prefix);
  const [addr] = cidr(ip);
  const size = 2 ** (32 - len);
  return Math.floor(addr / size) === Math.floor(net / size);
};

describe("the NSG rules", () => {
  const rules = securityRules("203.0.113.7");
  /** Azure's evaluation: the matching rule with the lowest priority number decides; no match is Azure's default deny. */
  const allows = (sourceIp: string, destinationIp: string, port: string) =>
    [...rules]
      .sort((a, b) => a.priority - b.priority)
      .find(
        (r) =>
          contains(r.sourceAddressPrefix, sourceIp) &&
          contains(r.destinationAddressPrefix, destinationIp) &&
          (portsOf(r).includes(port) || portsOf(r).includes("*")),
      )?.access === "Allow";
  const engine = CLOUD_NETWORK.engineAddresses[0];
  const postgres = "10.40.2.4";

  it("opens SSH to the runner from the configured source only", () => {
    expect(allows("203.0.113.7", CLOUD_NETWORK.runnerAddress, "22")).toBe(true);
    expect(allows("198.51.100.9", CLOUD_NETWORK.runnerAddress, "22")).toBe(false);
    expect(allows("203.0.113.7", engine, "22")).toBe(false);
    expect(allows("203.0.113.7", CLOUD_NETWORK.runnerAddress, "6420")).toBe(false);
  });

  it("keeps Engine, NATS and Postgres ports inside the VNet, and denies the rest", () => {
    expect(allows(CLOUD_NETWORK.runnerAddress, engine, "6420")).toBe(true);
    for (const port of ["6420", "6421", "6430", "4222", "6222"]) {
      expect(allows(CLOUD_NETWORK.engineAddresses[1], engine, port), port).toBe(true);
      expect(allows("203.0.113.7", engine, port), port).toBe(false);
    }
    // The peer API and metrics (no auth in 2.3.19) and NATS only between the Engines: never from the runner.
    for (const port of ["6421", "6430", "4222", "6222"]) expect(allows(CLOUD_NETWORK.runnerAddress, engine, port), port).toBe(false);
    expect(allows(CLOUD_NETWORK.runnerAddress, engine, "8080")).toBe(false);
    expect(allows(engine, postgres, "5432")).toBe(true);
    expect(allows("203.0.113.7", postgres, "5432")).toBe(false);
    // The runner, the one host the operator's SSH reaches, reaches neither the Engines' database nor their SSH.
    expect(allows(CLOUD_NETWORK.runnerAddress, postgres, "5432")).toBe(false);
    for (const from of [CLOUD_NETWORK.runnerAddress, CLOUD_NETWORK.engineAddresses[1]])
      expect(allows(from, engine, "22"), from).toBe(false);
    expect(rules.every((r) => r.access === "Deny" || r.sourceAddressPrefix !== "*")).toBe(true);
    expect(rules.at(-1)).toMatchObject({ access: "Deny", sourceAddressPrefix: "*", destinationPortRange: "*" });
    expect(new Set(rules.map((r) => r.priority)).size).toBe(rules.length);
  });

  it('puts one port or "*" in the single field and only lists of two or more in the list field, which Azure refuses "*" in', () => {
    for (const r of rules) {
      expect(Number(r.destinationPortRange !== undefined) + Number(r.destinationPortRanges !== undefined), r.name).toBe(1);
      if (r.destinationPortRanges) {
        expect(r.destinationPortRanges.length, r.name).toBeGreaterThan(1);
        expect(r.destinationPortRanges, r.name).not.toContain("*");
      }
    }
    expect(rules.find((r) => r.name === "postgres-ha-within-subnet")).toMatchObject({ destinationPortRange: "*" });
  });

  it("refuses an SSH source open to the Internet with the key and the fix", () => {
    for (const open of ["*", "0.0.0.0/0", "Internet"]) expect(() => securityRules(open)).toThrow(/sshSourceAddress.*give your own address/);
  });
});

describe("the Engine VM plan", () => {
  it("puts one VM in each zone at its static address", () => {
    expect(engineVmPlan([2, 3, 1]).map((v) => [v.zone, v.address])).toEqual([
      ["2", "10.40.1.11"],
      ["3", "10.40.1.12"],
      ["1", "10.40.1.13"],
    ]);
  });
  it("refuses the reference's zone 4 and repeated zones", () => {
    expect(() => engineVmPlan([1, 2, 4])).toThrow(/three distinct Azure zones from 1 to 3/);
    expect(() => engineVmPlan([1, 1, 2])).toThrow(/three distinct/);
  });
});
