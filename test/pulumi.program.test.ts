import { describe, expect, it } from "vitest";
import { RunError } from "@pulumi/pulumi";
import { existsSync, readdirSync } from "node:fs";
import { isKnown, runProgram, stackConfigFromFiles, outputValue, type Registered } from "./pulumiProgram";
import { defaultGroups } from "../analysis/contract/catalog";

const cloudSecrets = {
  "actor-bench:sshSourceAddress": "203.0.113.7",
  "actor-bench:cloudflareAccountId": "0123456789abcdef0123456789abcdef",
  "actor-bench:cloudflareWorkersSubdomain": "bench-account",
  "actor-bench:cloudflareApiToken": "not-a-real-token",
};

const resultsIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

describe("index.ts under setMocks: the local stack", () => {
  it("declares one LocalSide per runtime, one BenchmarkRun per side and group, in one chain, and the report", async () => {
    const { registered, exports } = await runProgram("local", stackConfigFromFiles("local"), false);
    const byType = (t: string) => registered.filter((r) => r.type === t);
    const [component] = byType("actor-bench:local:Benchmark");
    expect(component.name).toBe("local");
    const sides = byType("pulumi-nodejs:dynamic/actor-bench:LocalSide");
    const runs = byType("pulumi-nodejs:dynamic/actor-bench:BenchmarkRun");
    const report = byType("pulumi-nodejs:dynamic/actor-bench:BenchmarkReport");
    expect(sides.map((r) => r.inputs.side).sort()).toEqual(["cloudflare", "rivet"]);
    expect(report).toHaveLength(1);
    // The local preset's groups: every one but the scaling group (a stack asks for it with actor-bench:groups).
    const groups = defaultGroups("local");
    expect(registered).toHaveLength(4 + 2 * groups.length);
    for (const r of registered.filter((x) => x !== component)) expect(r.parent).toBe(component.urn);

    const side = (id: string) => sides.find((r) => r.inputs.side === id)!;
    expect(side("rivet").inputs).toMatchObject({ stack: "local", loopback: "quickack", actorSleepTimeoutMs: 30000 });
    expect(side("rivet").inputs.own).toMatchObject({ engineTopology: "single", engine: { tcpNodelay: true } });
    expect(side("cloudflare").inputs.own).toMatchObject({ cfWakeIdleMs: 12000 });
    expect(side("rivet").inputs.stateDir).toBe(`${process.cwd()}/.actor-bench/local/rivet`);
    for (const r of sides) expect(String(r.inputs.__provider)).toContain("localSide");

    // The side whose actors sleep by idle only (the DO) goes first, then Rivet's; each run waits for the one before.
    expect(runs.map((r) => `${r.inputs.side}.${r.inputs.group}`)).toEqual([
      ...groups.map((g) => `cloudflare.${g}`),
      ...groups.map((g) => `rivet.${g}`),
    ]);
    for (let i = 1; i < runs.length; i++) expect(runs[i].dependencies).toContain(runs[i - 1].urn);
    for (const r of runs) {
      expect(r.inputs.runArgs).toEqual(expect.arrayContaining(["--preset", "local"]));
      expect(r.dependencies).toContain(side(r.inputs.side as string).urn);
    }
    for (const r of runs) expect(report[0].dependencies).toContain(r.urn);

    // The secrets a side's package asks the stack for are a secret output and reach its runs as a secret input.
    for (const r of sides) expect(r.additionalSecretOutputs).toContain("secrets");
    for (const r of runs) expect(r.secretInputs).toContain("secrets");
    for (const [name, value] of Object.entries(exports)) {
      expect(JSON.stringify((await outputValue(value)) ?? null), `export ${name}`).not.toContain("mock-token");
    }
    expect(await outputValue(exports.endpoints)).toEqual({ rivet: "http://127.0.0.1:1", cloudflare: "http://127.0.0.1:2" });

    expect(await outputValue(exports.report)).toBe("# mocked report");
    expect(await outputValue(exports.runDir)).toBe("/mock/run");
    expect(await outputValue(exports.stack)).toBe("local");
    // Only what a local stack has: no runner address or cloud schedule exported as undefined.
    expect(Object.keys(exports).sort()).toEqual(["endpoints", "groups", "preset", "report", "runDir", "site", "stack", "summary"]);
  });

  it("preview runs nothing and leaves report, runDir, summary and site unknown", async () => {
    const before = resultsIn("results/local");
    const { registered, exports } = await runProgram("local", stackConfigFromFiles("local"), true);
    expect(registered.length).toBeGreaterThan(0);
    expect(await isKnown(exports.report)).toBe(false);
    expect(await isKnown(exports.runDir)).toBe(false);
    expect(await isKnown(exports.summary)).toBe(false);
    expect(await isKnown(exports.site)).toBe(false);
    expect(resultsIn("results/local")).toEqual(before);
    expect(existsSync(".actor-bench/local/rivet/daemon.log")).toBe(false);
  });

  it("a subset config declares only its side's runtime and runs", async () => {
    const cfg = {
      ...stackConfigFromFiles("local"),
      "actor-bench:side": "rivet",
      "actor-bench:groups": "wake,create",
      "actor-bench:runId": "again-1",
    };
    const { registered } = await runProgram("local", cfg, false);
    expect(registered.filter((r) => r.type.endsWith(":LocalSide")).map((r) => r.inputs.side)).toEqual(["rivet"]);
    const runs = registered.filter((r) => r.type.endsWith(":BenchmarkRun"));
    expect(runs.map((r) => r.inputs.group)).toEqual(["create", "wake"]);
    expect(runs.every((r) => r.inputs.trigger === "again-1")).toBe(true);
  });
});

describe("index.ts under setMocks: config errors fail before anything is declared", () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ["an unknown key", { "actor-bench:presets": "quick" }, /unknown config key actor-bench:presets/],
    ["a bad preset", { "actor-bench:preset": "huge" }, /config actor-bench:preset: must be one of quick, local, large, full, got "huge"/],
    ["a bad group", { "actor-bench:groups": "nap" }, /config actor-bench:groups: .*unknown: nap/],
    [
      "another Engine version on a local stack",
      { "actor-bench:engineVersion": "9.9.9" },
      /config actor-bench:engineVersion: "9.9.9" is not allowed; a local stack runs the Engine installed from npm/,
    ],
    [
      "a cloud key on a local stack",
      { "actor-bench:region": "westus" },
      /config actor-bench:region: "westus" is not allowed; it applies to actor-bench:target azure only/,
    ],
  ];
  for (const [what, extra, message] of cases) {
    it(what, async () => {
      const registered: Registered[] = [];
      const err = await runProgram("local", { ...stackConfigFromFiles("local"), ...extra }, true, [], undefined, registered).then(
        () => null,
        (e: unknown) => e,
      );
      expect(String(err)).toMatch(message);
      // A RunError: the CLI prints its message as the one line, with no stack trace.
      expect(RunError.isInstance(err)).toBe(true);
      // A resource declared before the error would reach the monitor within this time.
      await new Promise((r) => setTimeout(r, 300));
      expect(registered).toEqual([]);
    });
  }
});

describe("index.ts under setMocks: the eastus2 stack", () => {
  it("without the user's own SSH address the preview fails naming the key", async () => {
    await expect(runProgram("eastus2", stackConfigFromFiles("eastus2"), true)).rejects.toThrow(
      /config actor-bench:sshSourceAddress: "" is not allowed; an azure stack needs the address SSH is open to/,
    );
  });
  it("zone 4 (the reference's) is refused", async () => {
    const cfg = { ...stackConfigFromFiles("eastus2"), ...cloudSecrets, "actor-bench:zones": "1,2,4" };
    await expect(runProgram("eastus2", cfg, true, ["actor-bench:cloudflareApiToken"])).rejects.toThrow(
      /zones: "1,2,4" is not allowed; Azure's logical zones are 1, 2 and 3/,
    );
  });
  it("without the Cloudflare account's workers.dev subdomain the preview fails naming the key, nothing is declared", async () => {
    const { "actor-bench:cloudflareWorkersSubdomain": _omitted, ...withoutSubdomain } = cloudSecrets;
    const cfg = { ...stackConfigFromFiles("eastus2"), ...withoutSubdomain };
    const registered: Registered[] = [];
    await expect(runProgram("eastus2", cfg, true, ["actor-bench:cloudflareApiToken"], undefined, registered)).rejects.toThrow(
      /config actor-bench:cloudflareWorkersSubdomain: "" is not allowed; the account's workers.dev subdomain/,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(registered).toEqual([]);
  });
});
