import { beforeAll, describe, expect, it } from "vitest";
import { RULES, UNKNOWN, violationsOf, type Planned } from "./rules";
import { BREAKS, edit, planned, registrationsOf, STACKS } from "../test/policyFixtures";
import { CLOUD_NETWORK } from "../cluster/topology";

const byStack: Record<string, Planned[]> = {};
beforeAll(async () => {
  for (const s of STACKS) byStack[s] = planned(await registrationsOf(s));
});

const of = (s: string, type: string) => byStack[s].filter((r) => r.type === type);

describe("the program as three stacks users make, under mocks", () => {
  for (const stack of STACKS) {
    it(`${stack}: no NSG rule has "*" in a list field, every storage account name is valid, no Engine's URL is its load balancer, and the pack passes`, () => {
      const [nsg] = of(stack, "azure-native:network:NetworkSecurityGroup");
      for (const r of nsg.props.securityRules) expect(r.destinationPortRanges ?? [], r.name).not.toContain("*");
      const accounts = of(stack, "azure-native:storage:StorageAccount");
      expect(accounts.length).toBe(1);
      for (const a of accounts) expect(a.props.accountName).toMatch(/^[a-z0-9]{3,24}$/);
      const engines = of(stack, "azure-native:compute:VirtualMachine").filter((v) => v.props.tags?.["actor-bench-role"] === "engine");
      expect(engines).toHaveLength(3);
      for (const vm of engines) {
        const userData = Buffer.from(vm.props.osProfile.customData, "base64").toString("utf8");
        expect(userData).toContain("peer_url");
        expect(userData, vm.name).not.toContain(CLOUD_NETWORK.loadBalancerAddress);
      }
      expect(violationsOf(byStack[stack])).toEqual([]);
    });
  }

  it("two stacks in one resource group share no fixed name", () => {
    const fixed = (s: string) => [
      ...of(s, "azure-native:network:LoadBalancer").map((r) => r.props.loadBalancerName),
      ...of(s, "azure-native:privatedns:PrivateZone").map((r) => r.props.privateZoneName),
      ...of(s, "azure-native:storage:StorageAccount").map((r) => r.props.accountName),
    ];
    const a = fixed("eastus2");
    const b = fixed("swedencentral-2318");
    expect(a).toHaveLength(3);
    expect(a.filter((n) => b.includes(n))).toEqual([]);
  });

  it("the Engine-release stack installs its Engine on the VMs and says in every run which RivetKit it is paired with", () => {
    const stack = "swedencentral-2318";
    for (const vm of of(stack, "azure-native:compute:VirtualMachine").filter((v) => v.props.tags?.["actor-bench-role"] === "engine")) {
      expect(Buffer.from(vm.props.osProfile.customData, "base64").toString("utf8")).toContain("engine-cli-linux-x64-musl-2.3.18.tgz");
    }
    const runs = of(stack, "command:remote:Command").filter((c) => c.name.endsWith("-run"));
    expect(runs.length).toBeGreaterThan(0);
    for (const r of runs) {
      const target = JSON.parse(r.props.stdin).request.targets.rivet;
      expect(target.engineVersion).toBe("2.3.18");
      expect(target.engineConfig.rivetkit.pairing).toMatch(
        /^RivetKit 2\.3\.19 \(this checkout's lock\) with Engine 2\.3\.18: .* this stack measures the mixed pair$/,
      );
    }
  });

  it("a preview, with outputs not yet known, passes too", async () => {
    const preview = planned(await registrationsOf("swedencentral-2318", true));
    expect(preview.some((r) => JSON.stringify(r.props).includes(UNKNOWN))).toBe(true);
    expect(violationsOf(preview)).toEqual([]);
  });
});

describe("every rule fires on what it forbids", () => {
  it("has a broken case for each rule", () => {
    expect(Object.keys(BREAKS).sort()).toEqual(RULES.map((r) => r.name).sort());
  });
  for (const rule of RULES) {
    it(`${rule.name} (source: ${rule.source.split(";")[0]})`, () => {
      const broken = BREAKS[rule.name](byStack.eastus2);
      const found = violationsOf(broken);
      expect(found.length, JSON.stringify(found)).toBeGreaterThan(0);
      expect(new Set(found.map((v) => v.rule))).toEqual(new Set([rule.name]));
      expect(rule.source).toMatch(/https:\/\//);
    });
  }

  it("the hairpin rule reads the Engine's own config too, once the user data is known", () => {
    const broken = edit(
      "azure-native:compute:VirtualMachine",
      (r) => {
        const text = Buffer.from(r.props.osProfile.customData, "base64")
          .toString("utf8")
          .replace(`http://${CLOUD_NETWORK.engineAddresses[0]}:6421`, `http://${CLOUD_NETWORK.loadBalancerAddress}:6421`);
        r.props.osProfile.customData = Buffer.from(text).toString("base64");
      },
      (r) => r.name.endsWith("engine-1"),
    )(byStack.eastus2);
    expect(violationsOf(broken).map((v) => v.message)).toEqual([
      expect.stringMatching(/engine-1 gives http:\/\/10\.40\.1\.100:6421, the internal load balancer it sits behind/),
    ]);
  });
});
