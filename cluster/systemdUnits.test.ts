/**
 * The VMs' systemd units, checked by systemd's own tools against a root laid
 * out as the VM would be: the rendered cloud-init files at their paths, the
 * real binaries the units start (the Engine from npm, Debian's nats-server,
 * this Node), and systemd's own units. sudo's visudo and cvtsudoers check the
 * runner's sudoers file. systemd, nats-server and sudo come from Debian
 * (.ci/run installs them).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { engineBinaryPath } from "../workloads/sides/rivet/localRivet";
import { engineRelease } from "./engineRelease";
import {
  APP_UNIT_COMMANDS,
  ENGINE_PATHS,
  engineVmFiles,
  RUNNER_PATHS,
  RUNNER_SUDOERS,
  runnerVmFiles,
  SERVICE_USERS,
  type WrittenFile,
} from "./cloudInit";
import { cloudClusterPlan } from "./topology";

const which = (name: string) => {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(
      `${name} is not installed: apt-get install ${name === "systemd-analyze" ? "systemd" : name === "visudo" || name === "cvtsudoers" ? "sudo" : name}`,
    );
  return r.stdout.trim();
};

const PG_URL = "postgresql://rivet:s3cret-pw@bench-pg.private.postgres.database.azure.com:5432/rivet?sslmode=require";
const CREDS = { adminToken: "a".repeat(40), natsPassword: "n".repeat(40), natsRoutePassword: "r".repeat(40) };
const engineFiles = engineVmFiles(cloudClusterPlan(), 0, engineRelease("2.3.19"), PG_URL, CREDS);
const runnerFiles = runnerVmFiles("v24.10.0", "http://10.40.1.100:6420", "bench", CREDS.adminToken);

/** A root with the VM's files, the binaries its units start, and systemd's own units. */
function vmRoot(files: WrittenFile[], binaries: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "vm-root-"));
  for (const f of files) {
    mkdirSync(join(root, dirname(f.path)), { recursive: true });
    writeFileSync(join(root, f.path), f.content);
    chmodSync(join(root, f.path), parseInt(f.permissions, 8));
  }
  for (const [at, from] of Object.entries(binaries)) {
    mkdirSync(join(root, dirname(at)), { recursive: true });
    copyFileSync(from, join(root, at));
    chmodSync(join(root, at), 0o755);
  }
  cpSync("/usr/lib/systemd/system", join(root, "usr/lib/systemd/system"), { recursive: true });
  return root;
}

const units = (files: WrittenFile[]) => files.filter((f) => f.path.startsWith("/etc/systemd/system/"));
const directive = (unit: string, key: string) =>
  unit
    .split("\n")
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));

describe("the VMs' systemd units", () => {
  const engineRoot = vmRoot(engineFiles, {
    [`${ENGINE_PATHS.binDir}/rivet-engine`]: engineBinaryPath(),
    "/usr/sbin/nats-server": which("nats-server"),
  });
  const runnerRoot = vmRoot(runnerFiles, { [`${RUNNER_PATHS.nodeDir}/bin/node`]: process.execPath });
  const all = [...units(engineFiles).map((u) => ({ u, root: engineRoot })), ...units(runnerFiles).map((u) => ({ u, root: runnerRoot }))];

  it("every rendered unit passes systemd-analyze verify, with not one warning", () => {
    expect(all.map(({ u }) => u.path)).toEqual([
      "/etc/systemd/system/rivet-engine.service",
      "/etc/systemd/system/actor-bench-nats.service",
      "/etc/systemd/system/rivetkit-app.service",
    ]);
    for (const { u, root } of all) {
      const r = spawnSync(which("systemd-analyze"), ["verify", "--man=no", `--root=${root}`, u.path], { encoding: "utf8" });
      expect(r.stderr, u.path).toBe("");
      expect(r.status, u.path).toBe(0);
    }
  });

  it("verify does fail a unit with a misspelt key or a missing binary (the check can fail)", () => {
    const bad = engineFiles.map((f) =>
      f.path.endsWith("rivet-engine.service") ? { ...f, content: f.content.replace("PrivateTmp=yes", "PrivateTmpp=yes") } : f,
    );
    const root = vmRoot(bad, { "/usr/sbin/nats-server": which("nats-server") });
    const r = spawnSync(which("systemd-analyze"), ["verify", "--man=no", `--root=${root}`, "/etc/systemd/system/rivet-engine.service"], {
      encoding: "utf8",
    });
    expect(r.stderr).toMatch(/Unknown key 'PrivateTmpp'/);
    expect(r.stderr).toMatch(/rivet-engine is not executable/);
  });

  it("no unit runs as root or as the runner's SSH login; the Engine reads its config as a credential, never the file", () => {
    const [engine, nats] = units(engineFiles).map((u) => u.content);
    const [app] = units(runnerFiles).map((u) => u.content);
    expect(directive(engine, "User")).toEqual([SERVICE_USERS.engine]);
    expect(directive(nats, "User")).toEqual([SERVICE_USERS.nats]);
    // The app runs as its own system user, not as "bench" (the login that deploys it over SSH).
    expect([directive(app, "User"), directive(app, "Group")]).toEqual([[SERVICE_USERS.app], [SERVICE_USERS.app]]);
    expect(directive(engine, "LoadCredential")).toEqual([`engine.json:${ENGINE_PATHS.engineConfig}`]);
    expect(directive(engine, "ExecStart")[0]).toMatch(/--config \$\{CREDENTIALS_DIRECTORY\}\/engine\.json$/);
    expect(engineFiles.find((f) => f.path === ENGINE_PATHS.engineConfig)!.permissions).toBe("0600");
    expect(directive(nats, "LoadCredential")).toEqual([`nats.conf:${ENGINE_PATHS.natsConfig}`]);
    expect(directive(nats, "ExecStart")[0]).toMatch(/-c \$\{CREDENTIALS_DIRECTORY\}\/nats\.conf$/);
    for (const u of [engine, nats, app]) {
      expect(directive(u, "NoNewPrivileges")).toEqual(["yes"]);
      expect(directive(u, "ProtectSystem")).toEqual(["strict"]);
      expect(directive(u, "PrivateTmp")).toEqual(["yes"]);
      expect(directive(u, "CapabilityBoundingSet")).toEqual([""]);
    }
    expect(directive(engine, "ReadWritePaths")).toEqual([ENGINE_PATHS.dataDir]);
    expect(directive(nats, "ReadWritePaths")).toEqual([]);
    expect(directive(app, "ReadWritePaths")).toEqual([]);
    expect(directive(app, "ProtectHome")).toEqual(["yes"]);
    // Debian's @system-service has no io_uring: a call outside the filter must fail (libuv then falls back), not kill Node.
    expect(directive(app, "SystemCallErrorNumber")).toEqual(["EPERM"]);
    // The boot script makes the Engine's user and gives it the NVMe mount.
    const boot = engineFiles.find((f) => f.path === ENGINE_PATHS.bootScript)!.content;
    expect(boot).toMatch(new RegExp(`useradd --system .* ${SERVICE_USERS.engine}`));
    expect(boot).toContain(`chown -R ${SERVICE_USERS.engine}:${SERVICE_USERS.engine} ${ENGINE_PATHS.dataDir}`);
    // Debian's own nats-server unit (unauthenticated, on loopback) is stopped and masked before the cluster's NATS starts.
    const lines = boot.split("\n");
    const masked = lines.indexOf("systemctl mask nats-server.service");
    expect(masked).toBeGreaterThan(lines.indexOf("systemctl disable --now nats-server.service 2>/dev/null || true"));
    expect(masked).toBeLessThan(lines.indexOf("systemctl enable --now actor-bench-nats.service"));
  });

  it("records systemd-analyze security's exposure of each unit; the Engine, NATS and the app are sandboxed well below the default's", () => {
    const exposure: Record<string, number> = {};
    for (const { u, root } of all) {
      const r = spawnSync(which("systemd-analyze"), ["security", "--offline=yes", `--root=${root}`, "--no-pager", u.path], {
        encoding: "utf8",
      });
      const m = /Overall exposure level for \S+: ([\d.]+)/.exec(r.stdout);
      expect(m, `${u.path}: ${r.stdout.slice(-300)}${r.stderr}`).not.toBeNull();
      exposure[u.path.split("/").pop()!] = Number(m![1]);
    }
    console.log(`systemd-analyze security --offline, overall exposure (0 safe, 10 exposed): ${JSON.stringify(exposure)}`);
    // A unit with no sandboxing at all scores 9.6.
    expect(exposure["rivet-engine.service"]).toBeLessThan(5);
    expect(exposure["actor-bench-nats.service"]).toBeLessThan(5);
    expect(exposure["rivetkit-app.service"]).toBeLessThan(5);
  });
});

describe("the runner's sudoers", () => {
  const file = runnerFiles.find((f) => f.path === RUNNER_SUDOERS)!;
  const path = join(mkdtempSync(join(tmpdir(), "sudoers-")), "zz-actor-bench");
  writeFileSync(path, file.content, { mode: 0o440 });

  it("is valid sudoers syntax, root-readable only, and read after the image's own files", () => {
    const r = spawnSync(which("visudo"), ["-c", "-f", path], { encoding: "utf8" });
    expect(`${r.stdout}${r.stderr}`).toMatch(/parsed OK/);
    expect(r.status).toBe(0);
    expect(file.permissions).toBe("0440");
    // sudo reads /etc/sudoers.d in lexical order; the last matching rule wins.
    for (const other of ["90-cloud-init-users", "waagent"]) expect(["zz-actor-bench", other].sort()[1]).toBe("zz-actor-bench");
  });

  it("takes every root command back from the admin user, then gives back the app unit's alone", () => {
    const r = spawnSync(which("cvtsudoers"), ["-f", "json", path], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const specs = (
      JSON.parse(r.stdout) as {
        User_Specs: Array<{
          User_List: Array<{ username: string }>;
          Cmnd_Specs: Array<{
            Commands: Array<{ command: string; negated?: boolean }>;
            Options?: Array<Record<string, unknown>>;
            runasusers?: Array<{ username: string }>;
          }>;
        }>;
      }
    ).User_Specs;
    expect(specs.every((s) => s.User_List.map((u) => u.username).join() === "bench")).toBe(true);
    const [deny, allow] = specs.map((s) => s.Cmnd_Specs.flatMap((c) => c.Commands));
    expect(deny).toEqual([{ command: "ALL", negated: true }]);
    expect(allow.map((c) => c.command)).toEqual(APP_UNIT_COMMANDS);
    expect(allow.every((c) => !c.negated)).toBe(true);
  });
});
