import { describe, expect, it } from "vitest";
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
  it("declares the Engine, the Worker, one BenchmarkRun per side and group, in one chain, and the report", async () => {
    const { registered, exports } = await runProgram("local", stackConfigFromFiles("local"), false);
    const byType = (t: string) => registered.filter((r) => r.type === t);
    const [component] = byType("actor-bench:local:Benchmark");
    expect(component.name).toBe("local");
    const engine = byType("pulumi-nodejs:dynamic/actor-bench:LocalEngine");
    const worker = byType("pulumi-nodejs:dynamic/actor-bench:LocalWorker");
    const runs = byType("pulumi-nodejs:dynamic/actor-bench:BenchmarkRun");
    const report = byType("pulumi-nodejs:dynamic/actor-bench:BenchmarkReport");
    expect([engine.length, worker.length, report.length]).toEqual([1, 1, 1]);
    // The local preset's groups: every one but the scaling group (a stack asks for it with actor-bench:groups).
    const groups = defaultGroups("local");
    expect(registered).toHaveLength(4 + 2 * groups.length);
    for (const r of registered.filter((x) => x !== component)) expect(r.parent).toBe(component.urn);

    expect(engine[0].inputs).toMatchObject({ stack: "local", loopback: "quickack", engineVersion: "2.3.19", actorSleepTimeoutMs: 30000 });
    expect(engine[0].inputs.stateDir).toBe(`${process.cwd()}/.actor-bench/local/engine`);
    expect(String(engine[0].inputs.__provider)).toContain("localEngine");

    // Cloudflare's groups first, then Rivet's; each run waits for the one before.
    expect(runs.map((r) => `${r.inputs.side}.${r.inputs.group}`)).toEqual([
      ...groups.map((g) => `cloudflare.${g}`),
      ...groups.map((g) => `rivet.${g}`),
    ]);
    for (let i = 1; i < runs.length; i++) expect(runs[i].dependencies).toContain(runs[i - 1].urn);
    for (const r of runs) {
      expect(r.inputs.runArgs).toEqual(expect.arrayContaining(["--preset", "local"]));
      expect(r.dependencies).toContain((r.inputs.side === "rivet" ? engine : worker)[0].urn);
    }
    for (const r of runs) expect(report[0].dependencies).toContain(r.urn);

    // The Worker's token is a secret output and reaches the Cloudflare runs as a secret input.
    expect(worker[0].additionalSecretOutputs).toContain("token");
    for (const r of runs.filter((x) => x.inputs.side === "cloudflare")) expect(r.secretInputs).toContain("token");
    for (const [name, value] of Object.entries(exports)) {
      expect(JSON.stringify((await outputValue(value)) ?? null), `export ${name}`).not.toContain("mock-token");
    }

    expect(await outputValue(exports.report)).toBe("# mocked report");
    expect(await outputValue(exports.runDir)).toBe("/mock/run");
    expect(await outputValue(exports.stack)).toBe("local");
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
    expect(existsSync(".actor-bench/local/engine/daemon.log")).toBe(false);
  });

  it("a subset config declares only its side's runtime and runs", async () => {
    const cfg = {
      ...stackConfigFromFiles("local"),
      "actor-bench:side": "rivet",
      "actor-bench:groups": "wake,create",
      "actor-bench:runId": "again-1",
    };
    const { registered } = await runProgram("local", cfg, false);
    expect(registered.some((r) => r.type.endsWith(":LocalWorker"))).toBe(false);
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
      await expect(runProgram("local", { ...stackConfigFromFiles("local"), ...extra }, true, [], undefined, registered)).rejects.toThrow(
        message,
      );
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
