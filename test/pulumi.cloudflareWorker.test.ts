import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runProgram, outputValue, type Registered } from "./pulumiProgram";
import { COMPATIBILITY_DATE } from "../workloads/sides/cloudflare/compatibility";
import { workerScriptInputs, workerScriptName } from "../components/cloudflare/worker";

// The CloudflareWorker component under the SDK's mocks (Cloudflare's API cannot be reached here),
// loaded from dist/ as the program loads it.
const ACCOUNT = "0123456789abcdef0123456789abcdef";
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const bundle = readFileSync(resolve("dist/worker/index.js"), "utf8");

async function declare(code = bundle) {
  let worker: Record<string, unknown> = {};
  const { registered } = await runProgram("eastus2", {}, false, [], (load) => {
    const { CloudflareWorker } = load(
      join(resolve("dist"), "components", "cloudflare", "worker.js"),
    ) as typeof import("../components/cloudflare/worker");
    const w = new CloudflareWorker("cf", {
      stack: "eastus2",
      accountId: ACCOUNT,
      apiToken: "cf-api-token-mock",
      bundle: code,
      workersDevSubdomain: "bench-account",
    });
    worker = { url: w.url, token: w.token, scriptName: w.scriptName };
    return worker;
  });
  return { registered, worker };
}

describe("CloudflareWorker under setMocks", () => {
  it("deploys the bundle with the DO binding, the SQLite migration, the token as a secret binding and the compatibility date", async () => {
    const { registered } = await declare();
    const [script] = registered.filter((r: Registered) => r.type === "cloudflare:index/workersScript:WorkersScript");
    expect(script.inputs).toMatchObject({
      accountId: ACCOUNT,
      scriptName: workerScriptName("eastus2", bundle),
      mainModule: "index.js",
      compatibilityDate: COMPATIBILITY_DATE,
    });
    expect(script.inputs.content).toBe(bundle);
    const bindings = script.inputs.bindings as Array<Record<string, unknown>>;
    expect(bindings[0]).toEqual({ name: "BENCH", type: "durable_object_namespace", className: "BenchObject" });
    expect(bindings[1]).toMatchObject({ name: "BENCH_TOKEN", type: "secret_text" });
    expect((bindings[1].text as Record<string, unknown>)[SIG_KEY]).toBe("1b47061264138c4ac30d75fd1eb44270"); // the SDK's secret signature: sent as a secret
    expect(script.inputs.migrations).toEqual({ newTag: "v1", newSqliteClasses: ["BenchObject"] });
    const [route] = registered.filter((r) => r.type === "cloudflare:index/workersScriptSubdomain:WorkersScriptSubdomain");
    expect(route.inputs).toMatchObject({ accountId: ACCOUNT, enabled: true });
    const [provider] = registered.filter((r) => r.type === "pulumi:providers:cloudflare");
    expect(provider.secretInputs).toContain("apiToken");
    // The script is created through that provider (the one holding the API token), not a default one: "<urn>::<id>".
    expect(script.provider.startsWith(`${provider.urn}::`), script.provider).toBe(true);
  });

  it("keeps the token and the API token out of plain outputs", async () => {
    const { worker, registered } = await declare();
    const [password] = registered.filter((r) => r.type === "random:index/randomPassword:RandomPassword");
    expect(password.additionalSecretOutputs).toContain("result");
    expect(await outputValue(worker.url)).toBe(`https://${workerScriptName("eastus2", bundle)}.bench-account.workers.dev`);
    const tokenOutput = worker.token as { isSecret: Promise<boolean> };
    expect(await tokenOutput.isSecret).toBe(true);
  });

  it("a second up sends the same migration: the script's inputs do not change", async () => {
    const first = (await declare()).registered.find((r) => r.type.endsWith("workersScript:WorkersScript"))!;
    const second = (await declare()).registered.find((r) => r.type.endsWith("workersScript:WorkersScript"))!;
    expect(second.inputs.migrations).toEqual(first.inputs.migrations);
    expect(JSON.stringify(second.inputs)).toBe(JSON.stringify(first.inputs));
  });

  it("a changed Worker is a new script (a replacement with its own fresh migration), never a migration re-sent to the old one", async () => {
    const first = (await declare()).registered.find((r) => r.type.endsWith("workersScript:WorkersScript"))!;
    const changed = (await declare(`${bundle}\n// changed\n`)).registered.find((r) => r.type.endsWith("workersScript:WorkersScript"))!;
    expect(changed.inputs.scriptName).not.toBe(first.inputs.scriptName);
    expect(changed.inputs.scriptName).toMatch(/^actor-bench-eastus2-[0-9a-f]{8}$/);
    expect(changed.inputs.migrations).toEqual(first.inputs.migrations);
  });

  it("refuses an account id that is not 32 hex characters", async () => {
    expect(() => workerScriptInputs("my-account", "actor-bench-x", bundle, "t")).toThrow(
      /cloudflareAccountId: "my-account" is not a 32-character hex account id/,
    );
  });
});
