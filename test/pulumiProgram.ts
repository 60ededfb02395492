import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";

/** Loads the compiled program (what `pulumi up` runs: dist/index.js) under the Pulumi SDK's mocks. */
const requireNative = createRequire(resolve("package.json"));
const DIST = resolve("dist");
type Pulumi = typeof import("@pulumi/pulumi");
export const pulumi = requireNative("@pulumi/pulumi") as Pulumi;

export interface Registered {
  type: string;
  name: string;
  urn: string;
  parent: string;
  custom: boolean;
  inputs: Record<string, unknown>;
  dependencies: string[];
  additionalSecretOutputs: string[];
  /** The explicit provider reference ("<urn>::<id>"), "" for the default provider. */
  provider: string;
  /** Input property names the SDK sent as secrets. */
  secretInputs: string[];
}

/** The config the CLI would give a stack: Pulumi.yaml's defaults, then Pulumi.<stack>.yaml. */
export function stackConfigFromFiles(stack: string): Record<string, string> {
  const project = parse(readFileSync("Pulumi.yaml", "utf8")) as { config: Record<string, { default?: unknown }> };
  const out: Record<string, string> = {};
  for (const [k, spec] of Object.entries(project.config)) if (spec.default !== undefined) out[`actor-bench:${k}`] = String(spec.default);
  const file = `Pulumi.${stack}.yaml`;
  if (existsSync(file)) {
    const s = parse(readFileSync(file, "utf8")) as { config?: Record<string, unknown> };
    for (const [k, v] of Object.entries(s.config ?? {})) out[k] = String(v);
  }
  return out;
}

/** How the SDK marks a secret value on the wire (sdk/nodejs/runtime/rpc.ts: specialSigKey, specialSecretSig). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** State a mocked engine gives back: for an `up`, plausible outputs; for a preview, the inputs only (outputs unknown). */
function mockState(type: string, name: string, inputs: Record<string, unknown>, preview: boolean): Record<string, unknown> {
  if (preview) return inputs;
  const daemon = { kind: "mock", pid: 1, startTime: "0", netns: false, stateDir: "/mock", log: "/mock/log", ready: {} };
  if (type.endsWith(":LocalSide")) {
    const port = inputs.side === "rivet" ? 1 : 2;
    const secrets = inputs.side === "cloudflare" ? { token: "mock-token" } : {};
    return { ...inputs, endpoint: `http://127.0.0.1:${port}`, target: {}, secrets, daemon: { ...daemon, kind: inputs.side } };
  }
  if (type === "tls:index/privateKey:PrivateKey")
    return {
      ...inputs,
      privateKeyOpenssh: `-----BEGIN OPENSSH PRIVATE KEY-----\nmock-private-key-${name}\n-----END OPENSSH PRIVATE KEY-----\n`,
      publicKeyOpenssh: `ssh-ed25519 AAAAmock-${name}\n`,
    };
  // What the runner's commands print: the probe's line, a run's line (run id, blob prefix, manifest sha256).
  if (type === "command:remote:Command" && name.endsWith("-probe"))
    return { ...inputs, stdout: '{"ok":true,"ms":1,"actorId":"mock"}', stderr: "" };
  if (type === "command:remote:Command" && name.endsWith("-run")) {
    const stdin = inputs.stdin as string | { value: string };
    const prefix = (JSON.parse(typeof stdin === "string" ? stdin : stdin.value) as { prefix: string }).prefix;
    return {
      ...inputs,
      stdout: JSON.stringify({ runId: "20261203T1530Z", blobPrefix: `${prefix}/20261203T1530Z`, sha256: "0".repeat(64) }),
      stderr: "progress",
    };
  }
  if (type === "random:index/randomPassword:RandomPassword") return { ...inputs, result: "mockpgpassword0123456789abcdefgh" };
  if (type === "random:index/randomString:RandomString") return { ...inputs, result: "k3j9x0q2".slice(0, Number(inputs.length)) };
  if (type === "azure-native:network:PublicIPAddress") return { ...inputs, ipAddress: "198.51.100.10" };
  if (type === "azure-native:dbforpostgresql:Server")
    return { ...inputs, name: inputs.serverName ?? "pg", fullyQualifiedDomainName: "pg.actor-bench.private.postgres.database.azure.com" };
  if (type === "azure-native:storage:StorageAccount") return { ...inputs, name: inputs.accountName ?? "actorbenchsa" };
  if (type === "cloudflare:index/workersScriptSubdomain:WorkersScriptSubdomain") return { ...inputs };
  if (/:(BenchmarkRun|RemoteRunFetch)$/.test(type))
    return {
      ...inputs,
      runId: "mock",
      blob: `/mock/${inputs.part ?? `${inputs.side}.${inputs.group}`}`,
      sha256: "0".repeat(64),
      status: "complete",
      failures: [],
      summary: { rows: [], throughput: [] },
    };
  if (type.endsWith(":DoAnalytics"))
    return {
      ...inputs,
      runId: "mock",
      blob: `/mock/analytics.${String(inputs.forRunDir).split("/").pop()}`,
      sha256: "1".repeat(64),
      blocks: 1,
      invocations: 1,
    };
  // What the provider signs (workloads/runner/resultAccess.ts): one user delegation SAS per holder, with its letters.
  if (type.endsWith(":ResultAccess")) {
    const grants = inputs.grants as Record<string, string>;
    return {
      ...inputs,
      expiresOn: "2026-12-07T10:00:00Z",
      sas: Object.fromEntries(
        Object.entries(grants).map(([h, sp]) => [
          h,
          `sv=2023-11-03&spr=https&se=2026-12-07T10%3A00%3A00Z&skoid=o&sktid=t&sks=b&skv=2023-11-03&sr=c&sp=${sp}&sig=mock-${h}`,
        ]),
      ),
    };
  }
  if (type.endsWith(":BenchmarkReport"))
    return {
      ...inputs,
      runId: "mock",
      runDir: "/mock/run",
      status: "complete",
      failure: null,
      report: "# mocked report",
      summary: { rows: [], throughput: [] },
      site: "/mock/site/index.html",
    };
  return inputs;
}

const SUBSCRIPTION = "00000000-0000-0000-0000-000000000000";

/** Invokes: Azure's client config and a token of the identity `pulumi up` runs as. Anything else is a call the program should not make. */
function mockCall(token: string, inputs: Record<string, unknown>): Record<string, unknown> {
  if (token === "azure-native:authorization:getClientConfig")
    return { subscriptionId: SUBSCRIPTION, tenantId: "t", clientId: "c", objectId: "o" };
  if (token === "azure-native:authorization:getClientToken") return { token: `mock-entra-token-for-${String(inputs.endpoint)}` };
  return inputs;
}

/** The Azure resource id a created storage resource gets (the role assignments are scoped by it). */
function mockId(type: string, name: string, inputs: Record<string, unknown>): string {
  const account = `/subscriptions/${SUBSCRIPTION}/resourceGroups/${String(inputs.resourceGroupName)}/providers/Microsoft.Storage/storageAccounts/${String(inputs.accountName)}`;
  if (type === "azure-native:storage:StorageAccount") return account;
  if (type === "azure-native:storage:BlobContainer") return `${account}/blobServices/default/containers/${String(inputs.containerName)}`;
  return `${name}-id`;
}

/**
 * Runs dist/index.js for `stack` with `config` under setMocks and returns what
 * it registered (with the dependencies and secret options the SDK sent) and its
 * exports. A config error surfaces as the rejection; `registered` (give your
 * own array) then still holds whatever was declared before it.
 */
export async function runProgram(
  stack: string,
  config: Record<string, string>,
  preview: boolean,
  secretKeys: string[] = [],
  entry: (load: NodeRequire) => Record<string, unknown> = (load) => load(join(DIST, "index.js")) as Record<string, unknown>,
  registered: Registered[] = [],
) {
  for (const k of Object.keys(requireNative.cache)) if (k.startsWith(`${DIST}/`)) delete requireNative.cache[k];
  pulumi.runtime.setAllConfig(config, secretKeys);
  const invoked: string[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({
        id: args.custom ? mockId(args.type, args.name, args.inputs) : undefined,
        state: mockState(args.type, args.name, args.inputs, preview),
      }),
      call: (args) => {
        invoked.push(args.token);
        return mockCall(args.token, args.inputs);
      },
    },
    "actor-bench",
    stack,
    preview,
  );
  const state = requireNative("@pulumi/pulumi/runtime/state") as { getStore(): { settings: { monitor: Record<string, unknown> } } };
  const monitor = state.getStore().settings.monitor as { registerResource: (req: any, cb: any) => void };
  const original = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req: any, cb: any) => {
    const obj = req.getObject()?.toJavaScript() ?? {};
    registered.push({
      type: req.getType(),
      name: req.getName(),
      urn: "",
      parent: req.getParent(),
      custom: req.getCustom(),
      inputs: obj,
      dependencies: req.getDependenciesList(),
      additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
      provider: req.getProvider(),
      secretInputs: Object.entries(obj)
        .filter(([, v]) => (v as { [k: string]: unknown } | null)?.[SIG_KEY] === SECRET_SIG)
        .map(([k]) => k),
    });
    original(req, (err: unknown, resp: { getUrn(): string } | undefined) => {
      if (resp) registered.find((r) => r.name === req.getName() && r.type === req.getType())!.urn = resp.getUrn();
      cb(err, resp);
    });
  };
  const exports = entry(requireNative);
  // Let every registration reach the mock monitor.
  let n = -1;
  while (n !== registered.length) {
    n = registered.length;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { registered, exports, invoked };
}

/** Whether an Output is known (false for a preview's not-yet-computed values). */
export async function isKnown(o: unknown): Promise<boolean> {
  return (o as { isKnown: Promise<boolean> }).isKnown;
}

/** An Output's value (plain values are returned as they are). */
export async function outputValue<T>(o: unknown): Promise<T> {
  return pulumi.Output.isInstance(o) ? (o as unknown as { promise(): Promise<T> }).promise() : (o as T);
}
