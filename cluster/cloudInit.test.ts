import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { engineBinaryPath } from "../workloads/sides/rivet/localRivet";
import { engineRelease } from "./engineRelease";
import { DEFAULT_ENGINE_SETTINGS, ENGINE_CAPS, renderEngineConfig } from "./engineConfig";
import {
  engineVmFiles,
  renderEngineCloudInit,
  renderRunnerCloudInit,
  runnerVmFiles,
  scriptsOf,
  ENGINE_PATHS,
  SERVICE_USERS,
  RUNNER_PATHS,
} from "./cloudInit";
import { cloudClusterPlan, CLOUD_NETWORK } from "./topology";

// cloud-init, shellcheck and nats-server come from Debian (.ci/run installs them).
function tool(name: string): string {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${name} is not installed: apt-get install ${name === "nats-server" ? "nats-server" : name}`);
  return r.stdout.trim();
}

const plan = cloudClusterPlan();
const release = engineRelease("2.3.19");
const PG_URL = "postgresql://rivet:s3cret-pw@bench-pg.private.postgres.database.azure.com:5432/rivet?sslmode=require";
const dir = mkdtempSync(join(tmpdir(), "cloud-init-"));
const CREDS = { adminToken: "a".repeat(40), natsPassword: "n".repeat(40), natsRoutePassword: "r".repeat(40) };

function validate(name: string, userData: string): void {
  const file = join(dir, name);
  writeFileSync(file, userData);
  const r = spawnSync(tool("cloud-init"), ["schema", "-c", file], { encoding: "utf8" });
  expect(`${r.stdout}${r.stderr}`, `cloud-init schema on ${name}`).toMatch(/Valid (cloud-config|schema)/);
  expect(r.status).toBe(0);
}

describe("Engine VM user data", () => {
  it("passes cloud-init's schema for each of the three nodes", () => {
    for (let i = 0; i < 3; i++) validate(`engine-${i + 1}.yaml`, renderEngineCloudInit(plan, i, release, PG_URL, CREDS));
  });

  it("decodes to the files the boot needs, the secret config root-only, and one boot command", () => {
    const doc = parse(renderEngineCloudInit(plan, 1, release, PG_URL, CREDS)) as {
      write_files: Array<{ path: string; permissions: string; content: string }>;
      runcmd: string[][];
    };
    const byPath = new Map(doc.write_files.map((f) => [f.path, f]));
    expect(byPath.get(ENGINE_PATHS.engineConfig)!.permissions).toBe("0600");
    const config = JSON.parse(byPath.get(ENGINE_PATHS.engineConfig)!.content);
    expect(config.postgres.url).toBe(PG_URL);
    expect(config.auth).toEqual({ admin_token: CREDS.adminToken });
    expect(config.nats).toMatchObject({ username: "rivet", password: CREDS.natsPassword });
    expect(byPath.get(ENGINE_PATHS.natsConfig)!.permissions).toBe("0600");
    expect(config.nats.addresses[0]).toBe(`${CLOUD_NETWORK.engineAddresses[1]}:4222`);
    expect(config.guard).toEqual({ host: CLOUD_NETWORK.engineAddresses[1], port: 6420, tcp_nodelay: true, ...ENGINE_CAPS.guard });
    expect(config.pegboard).toEqual(ENGINE_CAPS.pegboard);
    // A VM of its own: the Engine keeps its load shedding.
    expect(config.runtime).toBeUndefined();
    // The node's own gateway and api_peer, never the internal load balancer it is a backend of (Azure drops a flow mapped back to itself).
    expect(config.topology.datacenters.default).toMatchObject({
      public_url: `http://${CLOUD_NETWORK.engineAddresses[1]}:6420`,
      peer_url: `http://${CLOUD_NETWORK.engineAddresses[1]}:6421`,
    });
    expect(JSON.stringify(config)).not.toContain(CLOUD_NETWORK.loadBalancerAddress);
    expect(byPath.get("/etc/systemd/system/rivet-engine.service")!.content).toContain(
      `ExecStartPre=${ENGINE_PATHS.installScript} --verify`,
    );
    expect(doc.runcmd).toEqual([[ENGINE_PATHS.bootScript]]);
  });

  it("renders an Engine config the 2.3.19 binary reads as Postgres + NATS + one datacenter", () => {
    const file = join(dir, "engine.json");
    writeFileSync(file, engineVmFiles(plan, 0, release, PG_URL, CREDS).find((f) => f.path === ENGINE_PATHS.engineConfig)!.content);
    // `config show` ignores unknown keys silently, so check that every block we wrote was understood.
    const shown = execFileSync(engineBinaryPath(), ["config", "show", "--config", file], {
      encoding: "utf8",
      env: { ...process.env, RUST_LOG: "error" },
    });
    expect(shown).toMatch(/database: Some\(\s*Postgres\(/);
    expect(shown).toMatch(
      /url: Secret,\s*ssl: Some\(\s*PostgresSsl \{\s*root_cert_path: Some\(\s*"\/etc\/ssl\/certs\/ca-certificates.crt"/,
    );
    for (const a of CLOUD_NETWORK.engineAddresses) expect(shown).toContain(`"${a}:4222"`);
    expect(shown).toMatch(/pubsub: Some\(\s*Nats\(/);
    expect(shown).toMatch(/username: Some\(\s*"rivet"/);
    expect(shown).toMatch(/password: Some\(\s*Secret/);
    expect(shown).toMatch(/auth: Some\(\s*Auth \{\s*admin_token: Secret/);
    expect(shown).toMatch(/datacenter_label: 1,/);
    expect(shown).toMatch(/is_leader: true/);
    expect(shown).toMatch(/tcp_nodelay: Some\(\s*true/);
    expect(shown).toMatch(/port: Some\(\s*6421/);
    // The raised caps, each understood by the binary (an unknown or misshaped key fails or vanishes).
    expect(shown).toMatch(/rate_limit: Some\(\s*GuardRateLimit \{\s*requests: 1000000000,\s*period_ms: 60000,/);
    expect(shown).toMatch(/max_in_flight: Some\(\s*1000000,/);
    expect(shown).toMatch(/actor_create_rate_limit_requests: Some\(\s*1000000000,/);
    expect(shown).toMatch(/actor_create_rate_limit_drip_rate_ms: Some\(\s*1,/);
    // The local config's runtime section is understood too (the cluster VMs leave it out).
    const local = join(dir, "engine-local.json");
    writeFileSync(local, JSON.stringify(renderEngineConfig("/tmp/x", { gateway: 1, apiPeer: 2, metrics: 3 }, DEFAULT_ENGINE_SETTINGS)));
    const localShown = execFileSync(engineBinaryPath(), ["config", "show", "--config", local], {
      encoding: "utf8",
      env: { ...process.env, RUST_LOG: "error" },
    });
    expect(localShown).toMatch(/worker_load_shedding_curve: Some\(\s*\[\s*\(\s*1000,\s*1000,\s*\),\s*\(\s*1001,\s*999,/);
  });

  it("renders NATS configs nats-server accepts, whatever the passwords start with", () => {
    // Passwords that begin with digits (as hex or random ones do): unquoted, nats-server read them as numbers and refused the file.
    const digits = { ...CREDS, natsPassword: `7e5${"a".repeat(37)}`, natsRoutePassword: `12${"b".repeat(38)}` };
    for (let i = 0; i < 3; i++) {
      const file = join(dir, `nats-digits-${i}.conf`);
      writeFileSync(file, engineVmFiles(plan, i, release, PG_URL, digits).find((f) => f.path === ENGINE_PATHS.natsConfig)!.content);
      const r = spawnSync(tool("nats-server"), ["-t", "-c", file], { encoding: "utf8" });
      expect(`${r.stdout}${r.stderr}`).toMatch(/configuration file .* is valid/);
    }
    for (let i = 0; i < 3; i++) {
      const file = join(dir, `nats-${i}.conf`);
      writeFileSync(file, engineVmFiles(plan, i, release, PG_URL, CREDS).find((f) => f.path === ENGINE_PATHS.natsConfig)!.content);
      const r = spawnSync(tool("nats-server"), ["-t", "-c", file], { encoding: "utf8" });
      expect(`${r.stdout}${r.stderr}`).toMatch(/configuration file .* is valid/);
      expect(r.status).toBe(0);
      expect(
        readFileSync(file, "utf8").match(new RegExp(`nats://route:${CREDS.natsRoutePassword}@10\\.40\\.1\\.\\d+:6222`, "g")),
      ).toHaveLength(2);
      expect(readFileSync(file, "utf8")).toMatch(/authorization \{\n {2}user: rivet\n {2}password: "n{40}"\n\}/);
    }
  });
});

/** A real ed25519 key pair, as @pulumi/tls makes for the stack. */
function hostKeyPair() {
  const file = join(dir, `host-${Math.random().toString(16).slice(2)}`);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "", "-f", file]);
  return { privateKey: readFileSync(file, "utf8"), publicKey: readFileSync(`${file}.pub`, "utf8") };
}

describe("runner VM user data", () => {
  it("passes cloud-init's schema and points the app at the load balancer", () => {
    const hostKey = hostKeyPair();
    const userData = renderRunnerCloudInit("v20.20.2", plan.gatewayUrl, "bench", CREDS.adminToken, hostKey);
    validate("runner.yaml", userData);
    // sshd gets the stack's host key and no other: the image's are deleted, none generated.
    const doc = parse(userData) as Record<string, unknown>;
    expect(doc).toMatchObject({
      ssh_deletekeys: true,
      ssh_genkeytypes: ["ed25519"],
      ssh_keys: { ed25519_private: hostKey.privateKey, ed25519_public: hostKey.publicKey.trim() },
    });
    expect(() =>
      renderRunnerCloudInit("v20.20.2", plan.gatewayUrl, "bench", CREDS.adminToken, { ...hostKey, publicKey: "ssh-rsa AAAA" }),
    ).toThrow(/must be an ed25519 public key/);
    const env = runnerVmFiles("v20.20.2", plan.gatewayUrl, "bench", CREDS.adminToken).find((f) => f.path.endsWith("app.env"))!;
    expect(env.content).toContain(`RIVET_ENDPOINT=http://${CLOUD_NETWORK.loadBalancerAddress}:6420`);
    expect(env.content).toContain(`RIVET_TOKEN=${CREDS.adminToken}`);
    expect(env.permissions).toBe("0600");
    // One boot script that stops at its first failure (runcmd reports only its last command's status);
    // the app's own system user exists before systemd reads the unit that names it.
    expect((doc as { runcmd: string[][] }).runcmd).toEqual([[RUNNER_PATHS.bootScript]]);
    const boot = runnerVmFiles("v20.20.2", plan.gatewayUrl, "bench", CREDS.adminToken)
      .find((f) => f.path === RUNNER_PATHS.bootScript)!
      .content.split("\n");
    expect(boot).toContain("set -euo pipefail");
    const useradd = boot.findIndex((c) => c.includes("useradd --system") && c.endsWith(` ${SERVICE_USERS.app}`));
    expect(useradd).toBeGreaterThan(boot.indexOf(RUNNER_PATHS.nodeScript));
    expect(useradd).toBeLessThan(boot.indexOf("systemctl daemon-reload"));
  });
});

describe("every rendered script", () => {
  it("passes shellcheck", () => {
    const scripts = [
      ...scriptsOf(engineVmFiles(plan, 0, release, PG_URL, CREDS)),
      ...scriptsOf(runnerVmFiles("v20.20.2", plan.gatewayUrl, "bench", CREDS.adminToken)),
    ];
    expect(scripts.map((s) => s.path).sort()).toEqual([
      "/opt/actor-bench/boot.sh",
      "/opt/actor-bench/install-engine.sh",
      "/opt/actor-bench/install-node.sh",
      "/opt/actor-bench/nvme-mount.sh",
      "/opt/actor-bench/runner-boot.sh",
    ]);
    for (const s of scripts) {
      const file = join(dir, s.path.split("/").pop()!);
      writeFileSync(file, s.content);
      const r = spawnSync(tool("shellcheck"), ["--severity=style", file], { encoding: "utf8" });
      expect(r.stdout, `shellcheck ${s.path}`).toBe("");
      expect(r.status).toBe(0);
    }
  });
});
