import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectDirOf, validateStackConfig, validateSshSource, validateZones, type RawStackConfig } from "./stackConfig";

const facts = { installedEngineVersion: "2.3.19", hasCloudflareApiToken: true };
const azure = {
  target: "azure",
  region: "eastus2",
  sshSourceAddress: "203.0.113.7",
  cloudflareAccountId: "0123456789abcdef0123456789abcdef",
  cloudflareWorkersSubdomain: "bench-account",
};
const v = (raw: RawStackConfig, stack = "local", f = facts) => validateStackConfig(stack, raw, f);

describe("validateStackConfig: run keys (the same rules as npm start)", () => {
  it("maps keys onto the run config and keeps the flags for the runs", () => {
    const c = v({ preset: "quick", groups: "create,wake", wakeIdleMs: "15000", samples: "warm=7" });
    expect(c.run).toMatchObject({ stack: "local", preset: "quick", groups: ["create", "wake"], wakeIdleMs: 15000 });
    expect(c.run.counts.rivet.warm).toBe(7);
    expect(c.run.counts.cloudflare.warm).toBe(7);
    expect(c.runArgs).toEqual(["--preset", "quick", "--groups", "create,wake", "--samples", "warm=7", "--wake-idle-ms", "15000"]);
    expect(c).toMatchObject({ target: "local", engineVersion: "2.3.19", runTrigger: null, azure: null, cloudflare: null });
  });
  it("preset", () =>
    expect(() => v({ preset: "huge" })).toThrow(/^config actor-bench:preset: must be one of quick, local, large, full, got "huge"$/));
  it("side", () => {
    expect(() => v({ side: "aws" })).toThrow(
      /^config actor-bench:side: must be rivet, cloudflare, floor, both \(the runtimes\) or all \(every side\), got "aws"$/,
    );
    // A stack measures the two runtimes: by default, and the floor is refused by its role (a control side).
    expect(v({}).run.sides).toEqual(["rivet", "cloudflare"]);
    expect(() => v({ side: "floor" })).toThrow(
      /^config actor-bench:side: "floor" is not allowed; rivet, cloudflare or both: a stack measures the runtimes; a control side runs with `npm start` on one machine$/,
    );
    expect(() => v({ side: "all" })).toThrow(/^config actor-bench:side: "all" is not allowed/);
  });
  it("groups", () =>
    expect(() => v({ groups: "create,nap" })).toThrow(/^config actor-bench:groups: takes a comma list of create, .*unknown: nap$/));
  it("samples", () =>
    expect(() => v({ samples: "pings=3" })).toThrow(/^config actor-bench:samples: takes name=count pairs .* got "pings=3"$/));
  it("wakeIdleMs", () =>
    expect(() => v({ wakeIdleMs: "soon" })).toThrow(
      /^config actor-bench:wakeIdleMs: takes a whole number of milliseconds from 1 to 86400000, written in plain digits; got "soon"$/,
    ));
  it("cfWakeIdleMs", () =>
    expect(() => v({ cfWakeIdleMs: "-1" })).toThrow(
      /^config actor-bench:cfWakeIdleMs: takes a whole number of milliseconds from 1 to 86400000/,
    ));
  it("requestTimeoutMs", () =>
    expect(() => v({ requestTimeoutMs: "0" })).toThrow(
      /^config actor-bench:requestTimeoutMs: takes a whole number of milliseconds from 1 to 86400000/,
    ));
  it("actorSleepTimeoutMs", () =>
    expect(() => v({ actorSleepTimeoutMs: "1.5" })).toThrow(
      /^config actor-bench:actorSleepTimeoutMs: takes a whole number of milliseconds/,
    ));
  it("loopback", () =>
    expect(() => v({ loopback: "fast" })).toThrow(/^config actor-bench:loopback: must be quickack or host, got "fast"$/));
});

describe("validateStackConfig: stack keys", () => {
  it("refuses an unknown key, listing the known ones", () => {
    expect(() => v({ nope: "1" } as never)).toThrow(/^unknown config key actor-bench:nope; known keys: preset, side, /);
  });
  it("target", () => expect(() => v({ target: "gcp" })).toThrow(/^config actor-bench:target: "gcp" is not allowed; one of local, azure$/));
  it("engineVersion: a release version", () =>
    expect(() => v({ engineVersion: "latest" })).toThrow(/^config actor-bench:engineVersion: "latest" is not allowed; a release version/));
  it("engineVersion: a local stack runs only the installed Engine", () => {
    expect(() => v({ engineVersion: "2.4.0" })).toThrow(
      /engineVersion: "2.4.0" is not allowed; a local stack runs the Engine installed from npm, 2.3.19; install another with `npm install @rivetkit\/engine-cli@2.4.0`/,
    );
    expect(v({ ...azure, engineVersion: "2.4.0" }, "eastus2").engineVersion).toBe("2.4.0");
  });
  it("runId trigger", () => {
    expect(v({ runId: "rerun-2" }).runTrigger).toBe("rerun-2");
    expect(() => v({ runId: "two words" })).toThrow(/^config actor-bench:runId: "two words" is not allowed; 1 to 64 letters/);
  });
  it("cloud keys are refused on a local stack", () => {
    expect(() => v({ region: "eastus2" })).toThrow(
      /^config actor-bench:region: "eastus2" is not allowed; it applies to actor-bench:target azure only/,
    );
  });
});

describe("validateStackConfig: azure stacks", () => {
  it("takes the defaults for zones and VM sizes", () => {
    const c = v(azure, "eastus2");
    expect(c.azure).toEqual({
      region: "eastus2",
      zones: [1, 2, 3],
      engineVmSize: "Standard_L8as_v5",
      runnerVmSize: "Standard_D16as_v7",
      sshSourceAddress: "203.0.113.7",
      sshSourceWide: false,
      gatewayPath: "zone",
      runnerNodeVersion: "v24.10.0",
      runTimeLimitMinutes: 120,
      overlapIdle: true,
      resourceGroup: null,
    });
    expect(v({ ...azure, overlapIdle: "false" }, "eastus2").azure?.overlapIdle).toBe(false);
    expect(() => v({ ...azure, overlapIdle: "yes" }, "eastus2")).toThrow(
      /^config actor-bench:overlapIdle: "yes" is not allowed; true \(Rivet groups measure during the Durable Object groups' idle waits\) or false/,
    );
    expect(v({ ...azure, runTimeLimitMinutes: "30" }, "eastus2").azure?.runTimeLimitMinutes).toBe(30);
    expect(() => v({ ...azure, runTimeLimitMinutes: "2h" }, "eastus2")).toThrow(
      /^config actor-bench:runTimeLimitMinutes: "2h" is not allowed; whole minutes from 5 to 720/,
    );
    expect(v({ ...azure, runnerNodeVersion: "v20.20.2" }, "eastus2").azure?.runnerNodeVersion).toBe("v20.20.2");
    expect(() => v({ ...azure, runnerNodeVersion: "v22.1.0" }, "eastus2")).toThrow(
      /^config actor-bench:runnerNodeVersion: "v22.1.0" is not allowed; a Node release whose registry hash is pinned in cluster\/nodeRelease\.ts: v20\.20\.2, v24\.10\.0$/,
    );
    expect(v({ ...azure, gatewayPath: "balanced" }, "eastus2").azure?.gatewayPath).toBe("balanced");
    expect(() => v({ ...azure, gatewayPath: "lb" }, "eastus2")).toThrow(
      /^config actor-bench:gatewayPath: "lb" is not allowed; zone \(the Engine in the runner's zone/,
    );
    expect(c.cloudflare).toEqual({ accountId: azure.cloudflareAccountId, workersSubdomain: "bench-account" });
  });
  it("builds into a given resource group, whose name must be one Azure accepts", () => {
    expect(v({ ...azure, resourceGroup: "bench-rg" }, "eastus2").azure!.resourceGroup).toBe("bench-rg");
    expect(() => v({ ...azure, resourceGroup: "bad name." }, "eastus2")).toThrow(
      /config actor-bench:resourceGroup: "bad name\." is not allowed; an Azure resource group name/,
    );
  });
  it("region is required and lower case", () => {
    expect(() => v({ ...azure, region: undefined }, "eastus2")).toThrow(
      /^config actor-bench:region: "" is not allowed; an azure stack needs its Azure region/,
    );
    expect(() => v({ ...azure, region: "East US 2" }, "eastus2")).toThrow(
      /region: "East US 2" is not allowed; an Azure region name in lower case/,
    );
  });
  it("region must have availability zones, and any region that does gives a stack", () => {
    expect(() => v({ ...azure, region: "westus" }, "westus")).toThrow(
      /^config actor-bench:region: "westus" is not allowed; the Engine cluster needs a region with availability zones \(https:\/\/learn\.microsoft\.com/,
    );
    expect(v({ ...azure, region: "northeurope" }, "northeurope").azure?.region).toBe("northeurope");
    expect(v({ ...azure, region: "swedencentral", engineVersion: "2.3.18" }, "swedencentral-2318").engineVersion).toBe("2.3.18");
  });
  it("zones: Azure's are 1 to 3, so the reference's zone 4 is refused", () => {
    expect(() => v({ ...azure, zones: "1,2,4" }, "eastus2")).toThrow(
      /^config actor-bench:zones: "1,2,4" is not allowed; Azure's logical zones are 1, 2 and 3 \(zone 4 does not exist there/,
    );
    expect(() => v({ ...azure, zones: "1,1,2" }, "eastus2")).toThrow(
      /zones: "1,1,2" is not allowed; the Engine cluster needs three distinct zones/,
    );
    expect(validateZones("3,1,2")).toEqual([3, 1, 2]);
  });
  it("VM sizes", () => {
    expect(() => v({ ...azure, engineVmSize: "L8as" }, "eastus2")).toThrow(
      /^config actor-bench:engineVmSize: "L8as" is not allowed; an Azure VM size/,
    );
    expect(() => v({ ...azure, runnerVmSize: "big" }, "eastus2")).toThrow(/^config actor-bench:runnerVmSize: "big" is not allowed/);
    // The Engine's data sits on the local NVMe disk: a size without one is refused before anything is made.
    expect(() => v({ ...azure, engineVmSize: "Standard_D16as_v7" }, "eastus2")).toThrow(
      /^config actor-bench:engineVmSize: "Standard_D16as_v7" is not allowed; an L-series size/,
    );
    expect(v({ ...azure, engineVmSize: "Standard_L16s_v3" }, "eastus2").azure?.engineVmSize).toBe("Standard_L16s_v3");
  });
  it("sshSourceAddress is required and never the whole Internet", () => {
    expect(() => v({ ...azure, sshSourceAddress: undefined }, "eastus2")).toThrow(
      /sshSourceAddress: "" is not allowed; an azure stack needs the address SSH is open to/,
    );
    for (const open of ["*", "0.0.0.0/0", "Internet", "any"]) {
      expect(() => validateSshSource(open)).toThrow(/SSH must not be open to the whole Internet/);
    }
    expect(() => validateSshSource("300.1.1.1")).toThrow(/give one IPv4 or IPv6 address, or a network/);
    expect(validateSshSource("203.0.113.0/24")).toBe("203.0.113.0/24");
    expect(validateSshSource("203.0.113.7")).toBe("203.0.113.7");
    expect(validateSshSource("2001:db8:1:2::/64")).toBe("2001:db8:1:2::/64");
  });
  it("sshSourceAddress: only canonical addresses and networks with an integer prefix", () => {
    for (const bad of [
      "1.2.3.4/8.0",
      "1.2.3.0/0x10",
      "1.2.3.0/1e1",
      "1.2.3.0/ 8",
      "1.2.3.0/",
      "1.2.3.0/024",
      "01.2.3.4",
      "1.2.3.4/33",
      "2001:DB8::1",
      "::ffff:1.2.3.4",
    ]) {
      expect(() => validateSshSource(bad), bad).toThrow(/^config actor-bench:sshSourceAddress: /);
    }
    expect(() => validateSshSource("203.0.113.7/24")).toThrow(/a network has no host bits set/);
  });
  it("sshSourceAddress: never loopback or unspecified", () => {
    for (const bad of ["127.0.0.1", "127.9.9.0/24", "::1", "0.0.0.0/8", "::"])
      expect(() => validateSshSource(bad, true), bad).toThrow(/sshSourceAddress/);
    expect(() => validateSshSource("127.0.0.1")).toThrow(/loopback or unspecified/);
  });
  it("sshSourceAddress: nothing wider than /24 or /56 unless sshSourceWide says it is meant", () => {
    expect(() => validateSshSource("10.20.0.0/16")).toThrow(/wider than \/24; .*set actor-bench:sshSourceWide to true/);
    expect(() => validateSshSource("2001:db8::/48")).toThrow(/wider than \/56/);
    expect(validateSshSource("10.20.0.0/16", true)).toBe("10.20.0.0/16");
    expect(v({ ...azure, sshSourceAddress: "198.51.0.0/16", sshSourceWide: "true" }, "eastus2").azure?.sshSourceWide).toBe(true);
    expect(() => v({ ...azure, sshSourceAddress: "198.51.0.0/16" }, "eastus2")).toThrow(/wider than \/24/);
    expect(() => v({ ...azure, sshSourceWide: "yes" }, "eastus2")).toThrow(
      /^config actor-bench:sshSourceWide: "yes" is not allowed; true or false$/,
    );
    // Even meant, a /1 (half the IPv4 Internet) or a /8 is refused: sshSourceWide is for an operator's own wide network.
    for (const wide of ["128.0.0.0/1", "10.0.0.0/8", "2001::/16"])
      expect(() => validateSshSource(wide, true), wide).toThrow(/a large part of the Internet/);
    expect(validateSshSource("198.51.0.0/16", true)).toBe("198.51.0.0/16");
  });
  it("cloudflareAccountId and the secret API token are required while the Cloudflare side runs", () => {
    expect(() => v({ ...azure, cloudflareAccountId: "xyz" }, "eastus2")).toThrow(
      /^config actor-bench:cloudflareAccountId: "xyz" is not allowed; the 32-character hex account id/,
    );
    expect(() => v(azure, "eastus2", { ...facts, hasCloudflareApiToken: false })).toThrow(
      /cloudflareApiToken: not set; set it as a secret: `pulumi config set --secret/,
    );
    expect(() => v({ ...azure, cloudflareWorkersSubdomain: undefined }, "eastus2")).toThrow(
      /^config actor-bench:cloudflareWorkersSubdomain: "" is not allowed; the account's workers.dev subdomain/,
    );
    expect(() => v({ ...azure, cloudflareWorkersSubdomain: "Bench.workers.dev" }, "eastus2")).toThrow(
      /cloudflareWorkersSubdomain: "Bench.workers.dev" is not allowed/,
    );
    expect(
      v({ ...azure, side: "rivet", cloudflareAccountId: undefined, cloudflareWorkersSubdomain: undefined }, "eastus2", {
        ...facts,
        hasCloudflareApiToken: false,
      }).cloudflare,
    ).toBeNull();
  });
});

describe("projectDirOf: the folder of Pulumi.yaml, never the working directory", () => {
  it("takes Pulumi's root directory, else the nearest folder above the program holding Pulumi.yaml", () => {
    const root = mkdtempSync(join(tmpdir(), "project-"));
    try {
      mkdirSync(join(root, "dist", "components"), { recursive: true });
      writeFileSync(join(root, "Pulumi.yaml"), "name: x\n");
      expect(projectDirOf(root, "/elsewhere")).toBe(root);
      expect(projectDirOf("", join(root, "dist"))).toBe(root);
      expect(projectDirOf(join(root, "dist"), join(root, "dist", "components"))).toBe(root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("without a Pulumi.yaml above the program, one line says so", () => {
    const root = mkdtempSync(join(tmpdir(), "noproject-"));
    try {
      expect(() => projectDirOf("", root)).toThrow(/^no Pulumi.yaml in .* or any folder above it/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
