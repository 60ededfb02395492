/**
 * Boots the cloud VMs' images for real: the rendered cloud-config of an Engine
 * VM and of the runner, each in a Debian 12 system container made from
 * Debian's own packages (debootstrap, systemd-nspawn), as Azure's Debian 12
 * image boots it: cloud-init from a NoCloud seed, the packages and tarballs
 * the VMs download (Debian's archive, the npm registry). Then: cloud-init's
 * status, every unit, the Engine's health check, and the runner's `npm ci` of
 * the shipped bundle. Needs root.
 *
 *   npm run check:vm                    both images
 *   npm run check:vm -- engine|runner   one of them
 *   npm run check:vm -- ... --keep      keep the images' disks (their /var/log) to read after
 *
 * What differs from Azure, and why: the container shares this machine's
 * network, so the Engine's plan uses loopback addresses (no private range is
 * ever a target here) and its Postgres is a local one serving TLS with a
 * certificate of a CA the check adds to the image's bundle (Azure's Postgres
 * presents one Debian's bundle already trusts); the local NVMe disk is an
 * ext4 image file the NVMe script finds by its model through the script's own
 * overrides (SYS_BLOCK, DEV_DIR), bind-mounted where the disk would be, since
 * a container cannot attach a disk; the admin user is made in the image, as
 * Azure's provisioning makes it; the certificates this machine adds to its own
 * trust (an egress proxy's) are added to the image's.
 */
import { guardArguments } from "../../analysis/contract/cliError";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { renderEngineCloudInit, renderRunnerCloudInit, RUNNER_PATHS, ENGINE_PATHS } from "../../cluster/cloudInit";
import { engineRelease } from "../../cluster/engineRelease";
import { LOCAL_NVME_MODEL } from "../../cluster/scripts";
import { CLOUD_PORTS, type ClusterPlan } from "../../cluster/topology";
import { REFERENCE_NODE_VERSION } from "../../cluster/nodeRelease";
import { startLocalPostgres } from "../sides/rivet/localPostgres";
import { writeBundleArchive } from "../runner/bundle";
import { BUNDLE_FILE, installCommand, READY_COMMAND } from "../runner/commands";
import { packageVersion } from "../host/versions";

/** The Debian 12 base both images start from: what Azure's image has that cloud-init and the boot need. */
const BASE_PACKAGES = ["cloud-init", "openssh-server", "sudo", "ca-certificates", "curl", "python3", "locales"];
/** What debootstrap itself installs; the rest goes in with apt, which resolves virtual packages (cloud-init's python3 ones) where debootstrap does not. */
const BOOTSTRAP_PACKAGES = ["systemd", "systemd-sysv", "dbus"];
const MIRROR = "http://deb.debian.org/debian";
const ADMIN = "bench";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** One line a check: what held, what did not and why. */
export function renderChecks(vm: string, checks: readonly Check[], seconds: number): string {
  const lines = checks.map((c) => `  ${c.ok ? "ok  " : "FAIL"} ${c.name}${c.detail ? `: ${c.detail}` : ""}`);
  const failed = checks.filter((c) => !c.ok).length;
  return [
    `${vm}: ${failed ? `${failed} of ${checks.length} checks FAILED` : `all ${checks.length} checks passed`} in ${seconds.toFixed(0)} s`,
    ...lines,
  ].join("\n");
}

/** What `cloud-init status --long` says about the boot: done, and nothing degraded or in error. */
export function bootStatus(text: string, code: number): Check {
  const status = /^status:\s*(\S+)/m.exec(text)?.[1] ?? "unknown";
  const errors = /^errors:\s*(.*)$/m.exec(text)?.[1]?.trim();
  const recoverable = /^recoverable_errors:\s*(.*)$/m.exec(text)?.[1]?.trim();
  const ok = code === 0 && status === "done" && (!errors || errors === "[]") && (!recoverable || recoverable === "{}");
  return {
    name: "cloud-init status --wait exits 0, done, nothing degraded",
    ok,
    detail: ok ? "" : `exit ${code}, ${text.trim().split("\n").join(" | ").slice(0, 400)}`,
  };
}

function sh(cmd: string, args: string[], opts: { input?: string; cwd?: string } = {}): string {
  return execFileSync(cmd, args, { encoding: "utf8", stdio: ["pipe", "pipe", "pipe"], maxBuffer: 1 << 26, ...opts });
}

function need(cmd: string, pkg: string): void {
  try {
    sh("sh", ["-c", `command -v ${cmd}`]);
  } catch {
    throw new Error(`${cmd} is not installed: apt-get install ${pkg}`);
  }
}

/** The base image, made once with debootstrap and kept (under the project's state folder). */
function baseImage(cacheDir: string, log: (s: string) => void): string {
  const base = join(cacheDir, "bookworm-base");
  if (existsSync(join(base, "etc", "os-release"))) return base;
  rmSync(base, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  log(`making the Debian 12 base image: debootstrap (${BOOTSTRAP_PACKAGES.join(", ")}), then apt (${BASE_PACKAGES.join(", ")})`);
  const partial = `${base}.partial`;
  rmSync(partial, { recursive: true, force: true });
  sh("debootstrap", ["--variant=minbase", `--include=${BOOTSTRAP_PACKAGES.join(",")}`, "bookworm", partial, MIRROR]);
  sh("systemd-nspawn", [
    "--register=no",
    "--keep-unit",
    "--quiet",
    "-D",
    partial,
    "--pipe",
    "sh",
    "-c",
    `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${BASE_PACKAGES.join(" ")} >/dev/null && apt-get clean`,
  ]);
  renameSync(partial, base);
  return base;
}

/** A copy of the base with the seed cloud-init reads, as one VM's disk. */
function vmRoot(base: string, work: string, vm: string, userData: string): string {
  const root = join(work, vm);
  // cp -a: the image holds device nodes, which Node's copy does not.
  sh("cp", ["-a", base, root]);
  const seed = join(root, "var/lib/cloud/seed/nocloud");
  mkdirSync(seed, { recursive: true });
  writeFileSync(join(seed, "user-data"), userData);
  writeFileSync(join(seed, "meta-data"), `instance-id: ${vm}-${randomBytes(4).toString("hex")}\nlocal-hostname: ${vm}\n`);
  // The image's own settings, as Azure's image has its own: the seed is the datasource; the host owns the network.
  writeFileSync(join(root, "etc/cloud/cloud.cfg.d/90-boot-check.cfg"), "datasource_list: [NoCloud, None]\nnetwork: {config: disabled}\n");
  writeFileSync(join(root, "etc/hostname"), `${vm}\n`);
  // Azure's provisioning makes the admin user before cloud-init's modules run.
  sh("chroot", [root, "useradd", "--create-home", "--shell", "/bin/bash", ADMIN]);
  // This machine's own added CAs (an egress proxy's, where there is one), as an image made for its network would trust them.
  const extra = "/usr/local/share/ca-certificates";
  if (existsSync(extra)) {
    for (const f of readdirSync(extra).filter((n) => n.endsWith(".crt"))) cpSync(join(extra, f), join(root, extra, `host-${f}`));
    sh("chroot", [root, "update-ca-certificates"]);
  }
  return root;
}

interface Container {
  nspawn: ChildProcess;
  /** Runs a command inside, as root, through the container's init. */
  exec(cmd: string, opts?: { user?: string; timeoutS?: number }): { code: number; out: string };
  stop(): Promise<void>;
}

async function boot(root: string, vm: string, binds: string[]): Promise<Container> {
  const nspawn = spawn(
    "systemd-nspawn",
    ["--register=no", "--keep-unit", "--quiet", "-D", root, `--machine=${vm}`, ...binds.map((b) => `--bind=${b}`), "--boot"],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  let leader = "";
  for (let i = 0; i < 300 && !leader; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      leader = sh("pgrep", ["-P", String(nspawn.pid)])
        .trim()
        .split("\n")[0];
    } catch {
      // not yet
    }
  }
  if (!leader) throw new Error(`${vm}: systemd-nspawn started no init`);
  const exec = (cmd: string, opts: { user?: string; timeoutS?: number } = {}) => {
    const inner = opts.user ? ["runuser", "-u", opts.user, "--", "sh", "-c", cmd] : ["sh", "-c", cmd];
    try {
      const out = execFileSync(
        "timeout",
        [
          String(opts.timeoutS ?? 900),
          "nsenter",
          "-t",
          leader,
          "-a",
          "--",
          "env",
          "-i",
          "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
          "HOME=/root",
          ...inner,
        ],
        { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 26 },
      );
      return { code: 0, out };
    } catch (err) {
      const e = err as { status?: number; stdout?: string; stderr?: string };
      return { code: e.status ?? 1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
    }
  };
  return {
    nspawn,
    exec,
    async stop() {
      if (nspawn.exitCode !== null) return;
      exec("systemctl poweroff", { timeoutS: 10 });
      const gone = new Promise((r) => nspawn.once("exit", r));
      const timer = setTimeout(() => nspawn.kill("SIGKILL"), 30_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** Every unit `systemctl --failed` lists, and whether each named unit is active. */
function unitChecks(c: Container, units: string[]): Check[] {
  const failed = c.exec("systemctl --failed --no-legend --plain").out.trim();
  return [
    { name: "no failed unit", ok: failed === "", detail: failed.split("\n").join("; ") },
    ...units.map((u) => {
      const r = c.exec(`systemctl is-active ${u}`);
      return {
        name: `${u} active`,
        ok: r.out.trim() === "active",
        detail:
          r.out.trim() === "active"
            ? ""
            : `${r.out.trim()}; ${c.exec(`journalctl -u ${u} --no-pager -n 8`).out.trim().split("\n").join(" | ").slice(0, 500)}`,
      };
    }),
  ];
}

/** A CA and a server certificate for 127.0.0.1 (the check's Postgres), with openssl. */
function testCa(dir: string): { ca: string; cert: string; key: string } {
  const p = (f: string) => join(dir, f);
  sh("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=actor-bench boot check CA",
    "-keyout",
    p("ca.key"),
    "-out",
    p("ca.crt"),
  ]);
  sh("openssl", [
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    p("server.key"),
    "-out",
    p("server.csr"),
  ]);
  writeFileSync(p("san.cnf"), "subjectAltName=IP:127.0.0.1\n");
  sh("openssl", [
    "x509",
    "-req",
    "-in",
    p("server.csr"),
    "-CA",
    p("ca.crt"),
    "-CAkey",
    p("ca.key"),
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    p("san.cnf"),
    "-out",
    p("server.crt"),
  ]);
  sh("chown", ["postgres:postgres", p("server.key"), p("server.crt")]);
  sh("chmod", ["0600", p("server.key")]);
  return { ca: p("ca.crt"), cert: p("server.crt"), key: p("server.key") };
}

/** Engine VM 1's image: its rendered cloud-config on a loopback plan, against a local Postgres over TLS. */
async function checkEngine(base: string, work: string, log: (s: string) => void): Promise<Check[]> {
  const certs = testCa(work);
  sh("chmod", ["0711", work]);
  const pgDir = join(work, "pg");
  mkdirSync(pgDir);
  const pg = await startLocalPostgres({
    workDir: pgDir,
    host: "127.0.0.1",
    port: 45432,
    timeoutMs: 60_000,
    tls: { certFile: certs.cert, keyFile: certs.key },
  });
  const plan: ClusterPlan = {
    nodes: ["127.0.3.11", "127.0.3.12", "127.0.3.13"].map((host, i) => ({
      name: `engine-${i + 1}`,
      host,
      ports: { gateway: CLOUD_PORTS.gateway, apiPeer: CLOUD_PORTS.apiPeer, metrics: CLOUD_PORTS.metrics },
      natsClientPort: CLOUD_PORTS.natsClient,
      natsClusterPort: CLOUD_PORTS.natsCluster,
    })),
    gatewayUrl: `http://127.0.3.100:${CLOUD_PORTS.gateway}`,
    datacenter: { name: "default", label: 1 },
  };
  const secret = () => randomBytes(20).toString("hex");
  const userData = renderEngineCloudInit(plan, 0, engineRelease(packageVersion("@rivetkit/engine-cli")), `${pg.url}?sslmode=require`, {
    adminToken: secret(),
    natsPassword: secret(),
    natsRoutePassword: secret(),
  });
  const root = vmRoot(base, work, "engine-1", userData);
  // The stand-in Postgres's CA, in the image's bundle (Azure's is in Debian's already).
  cpSync(certs.ca, join(root, "usr/local/share/ca-certificates/boot-check.crt"));
  sh("chroot", [root, "update-ca-certificates"]);
  // The local NVMe disk: an ext4 image the script finds by its model, where Azure's disk would be.
  const disk = join(work, "nvme");
  mkdirSync(join(disk, "sys/nvme0n1/device"), { recursive: true });
  writeFileSync(join(disk, "sys/nvme0n1/device/model"), `${LOCAL_NVME_MODEL}                      \n`);
  mkdirSync(join(disk, "dev"));
  sh("truncate", ["-s", "64M", join(disk, "dev/nvme0n1")]);
  sh("mkfs.ext4", ["-q", "-F", "-L", "rivet-nvme", join(disk, "dev/nvme0n1")]);
  mkdirSync(join(disk, "data"));
  mkdirSync(join(root, "etc/systemd/system/cloud-final.service.d"), { recursive: true });
  writeFileSync(
    join(root, "etc/systemd/system/cloud-final.service.d/boot-check-nvme.conf"),
    "[Service]\nEnvironment=SYS_BLOCK=/var/lib/boot-check/sys DEV_DIR=/var/lib/boot-check/dev\n",
  );
  log("engine-1: booting");
  const c = await boot(root, "engine-1", [
    `${join(disk, "sys")}:/var/lib/boot-check/sys`,
    `${join(disk, "dev")}:/var/lib/boot-check/dev`,
    `${join(disk, "data")}:${ENGINE_PATHS.dataDir}`,
  ]);
  try {
    const ready = c.exec(READY_COMMAND.replace(">&2", ">&1"), { timeoutS: 900 });
    const status = c.exec("cloud-init status --long");
    const checks = [
      bootStatus(`${status.out}\n${ready.out}`, ready.code),
      ...unitChecks(c, ["actor-bench-nats.service", "rivet-engine.service"]),
    ];
    let health = "";
    for (let i = 0; i < 60 && !health.includes("ok"); i++) {
      health = c.exec(`curl -fsS http://${plan.nodes[0].host}:${CLOUD_PORTS.gateway}/health`).out;
      if (!health.includes("ok")) await new Promise((r) => setTimeout(r, 1000));
    }
    checks.push({ name: "the Engine answers /health", ok: health.includes("ok"), detail: health.trim().slice(0, 200) });
    return checks;
  } finally {
    await c.stop();
    await pg.process.stop();
  }
}

/** The runner's image: its rendered cloud-config, then the deploy's install of the shipped bundle. */
async function checkRunner(base: string, work: string, projectDir: string, log: (s: string) => void): Promise<Check[]> {
  const keyDir = mkdtempSync(join(work, "hostkey-"));
  sh("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(keyDir, "key")]);
  const hostKey = { privateKey: sh("cat", [join(keyDir, "key")]), publicKey: sh("cat", [join(keyDir, "key.pub")]).trim() };
  const userData = renderRunnerCloudInit(REFERENCE_NODE_VERSION, "http://127.0.3.11:6420", ADMIN, randomBytes(20).toString("hex"), hostKey);
  const root = vmRoot(base, work, "runner", userData);
  const bundle = writeBundleArchive(projectDir, join(work, BUNDLE_FILE));
  log("runner: booting");
  const c = await boot(root, "runner", []);
  try {
    const ready = c.exec(READY_COMMAND.replace(">&2", ">&1"), { timeoutS: 900 });
    const status = c.exec("cloud-init status --long");
    const checks = [bootStatus(`${status.out}\n${ready.out}`, ready.code), ...unitChecks(c, ["ssh.service"])];
    const key = c.exec("cat /etc/ssh/ssh_host_ed25519_key.pub").out.trim();
    checks.push({
      name: "sshd presents the stack's host key, and no other",
      ok:
        key.split(/\s+/)[1] === hostKey.publicKey.split(/\s+/)[1] &&
        c.exec("ls /etc/ssh/ssh_host_*_key").out.trim().split("\n").length === 1,
      detail: key.slice(0, 80),
    });
    cpSync(bundle, join(root, RUNNER_PATHS.appDir, BUNDLE_FILE));
    c.exec(`chown ${ADMIN}:${ADMIN} ${RUNNER_PATHS.appDir}/${BUNDLE_FILE}`);
    log("runner: npm ci of the shipped bundle");
    // Node keeps its own CA list: behind this machine's egress proxy, npm must be told of the image's bundle (on Azure, no proxy, no need).
    const proxyCa = existsSync("/usr/local/share/ca-certificates") ? "export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt\n" : "";
    const install = c.exec(`${proxyCa}${installCommand(RUNNER_PATHS.appDir, `${RUNNER_PATHS.nodeDir}/bin/node`)}`, {
      user: ADMIN,
      timeoutS: 900,
    });
    const app = c.exec(
      `test -f ${RUNNER_PATHS.appDir}/node_modules/rivetkit/package.json && ${RUNNER_PATHS.nodeDir}/bin/node -e 'require("${RUNNER_PATHS.appDir}/node_modules/rivetkit/package.json")' && echo loaded`,
      { user: ADMIN },
    );
    checks.push({
      name: "the deploy's npm ci of the shipped bundle works, as the admin user",
      ok: install.code === 0 && app.out.includes("loaded"),
      detail: install.code === 0 ? "" : install.out.trim().split("\n").slice(-5).join(" | "),
    });
    const sudo = c.exec(`sudo -n -l -U ${ADMIN}`);
    checks.push({
      name: "the admin user's sudo is the app unit's commands only",
      ok:
        sudo.code === 0 &&
        sudo.out.includes("systemctl enable --now rivetkit-app") &&
        !/\(ALL[^)]*\) (NOPASSWD: )?ALL\b/.test(sudo.out.replace(/!ALL/g, "")),
      detail: sudo.out.trim().split("\n").slice(-3).join(" | "),
    });
    return checks;
  } finally {
    await c.stop();
  }
}

async function main(argv: string[]): Promise<number> {
  const keep = argv.includes("--keep");
  const which = argv.filter((a) => a !== "--keep")[0] ?? "all";
  if (!["all", "engine", "runner"].includes(which) || argv.filter((a) => a !== "--keep").length > 1) {
    process.stderr.write("usage: npm run check:vm -- [engine|runner] [--keep]\n");
    return 2;
  }
  if (process.getuid?.() !== 0) throw new Error("the VM boot check needs root (debootstrap, chroot, systemd-nspawn)");
  need("debootstrap", "debootstrap");
  need("systemd-nspawn", "systemd-container");
  need("nsenter", "util-linux");
  const projectDir = resolve(__dirname, "../../..");
  const log = (s: string) => process.stdout.write(`${s}\n`);
  const t0 = Date.now();
  const base = baseImage(join(projectDir, ".actor-bench", "vm-image"), log);
  log(`base image ready after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const work = mkdtempSync(join(tmpdir(), "vm-boot-check-"));
  // The check's Postgres runs as its own user and must reach its folder inside.
  chmodSync(work, 0o711);
  let failed = 0;
  try {
    for (const [vm, run] of [
      ["engine", () => checkEngine(base, join(work, "e"), log)],
      ["runner", () => checkRunner(base, join(work, "r"), projectDir, log)],
    ] as const) {
      if (which !== "all" && which !== vm) continue;
      mkdirSync(join(work, vm === "engine" ? "e" : "r"));
      const t = Date.now();
      const checks = await run();
      failed += checks.filter((c) => !c.ok).length;
      log(renderChecks(vm, checks, (Date.now() - t) / 1000));
    }
  } finally {
    if (keep) log(`kept the images' disks in ${work} (each VM's /var/log/cloud-init-output.log is there)`);
    else rmSync(work, { recursive: true, force: true });
  }
  log(`VM boot check: ${failed ? `${failed} checks FAILED` : "every check passed"}, ${((Date.now() - t0) / 1000).toFixed(0)} s in all`);
  return failed ? 1 : 0;
}

if (require.main === module) {
  guardArguments(process.argv.slice(2), {
    command: "check:vm",
    usage: "usage: npm run check:vm -- [engine|runner] [--keep]",
    flags: ["--keep"],
  });
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`check:vm: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
