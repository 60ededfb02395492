import { chmodSync, copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { ENGINE_BINARY_SHA256, ENGINE_PACKAGE } from "../../../cluster/engineRelease";
import { packageVersion } from "../../host/versions";
import { engineBinaryPath } from "./localRivet";

/** An Engine release's binary on this machine, checked against its pin. */
export interface EngineBinary {
  /** The release asked for: the npm package's version. */
  version: string;
  path: string;
  sha256: string;
  /** Where it came from, in words, for the manifest. */
  source: string;
}

/** Where fetched Engine releases are kept between runs. */
export const engineCacheDir = () => join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "actor-bench", "engine");

function sha256File(path: string): Promise<string> {
  return new Promise((ok, fail) => {
    const h = createHash("sha256");
    createReadStream(path)
      .on("data", (d) => h.update(d))
      .on("end", () => ok(h.digest("hex")))
      .on("error", fail);
  });
}

/** The pin of `version`, or a one-line refusal naming the pinned ones and what to do. */
function pinOf(version: string): string {
  const pin = ENGINE_BINARY_SHA256[version];
  if (!pin) {
    throw new Error(
      `--engine-version ${version}: no pinned sha256 for that release (pinned: ${Object.keys(ENGINE_BINARY_SHA256).join(", ")}); fetch it with \`npm pack ${ENGINE_PACKAGE}@${version}\`, check its rivet-engine, and add its hash to cluster/engineRelease.ts`,
    );
  }
  return pin;
}

/**
 * The Engine binary of release `version`: the installed package's when it is
 * that release, else fetched once from the npm registry (`npm pack`) into
 * engineCacheDir(). Its sha256 is checked against the pin every time it is
 * used, so a cached file that changed is refused, not run.
 */
export async function engineBinaryFor(version: string): Promise<EngineBinary> {
  const pin = pinOf(version);
  const installed = packageVersion("@rivetkit/engine-cli") === version;
  const path = installed ? engineBinaryPath() : join(engineCacheDir(), version, "rivet-engine");
  if (!installed && !existsSync(path)) fetchRelease(version, path);
  const sha256 = await sha256File(path);
  if (sha256 !== pin)
    throw new Error(`--engine-version ${version}: ${path} has sha256 ${sha256}, not the pinned ${pin}; delete it to fetch it again`);
  return {
    version,
    path,
    sha256,
    source: installed
      ? `the installed ${ENGINE_PACKAGE}`
      : `${ENGINE_PACKAGE}@${version} from the npm registry, fetched once and kept between runs`,
  };
}

/** Fetches the package's tarball with npm and puts its rivet-engine at `dest`. */
function fetchRelease(version: string, dest: string): void {
  const tmp = mkdtempSync(join(tmpdir(), "actor-bench-engine-"));
  try {
    execFileSync("npm", ["pack", `${ENGINE_PACKAGE}@${version}`, "--pack-destination", tmp, "--silent"], {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 600_000,
    });
    const tgz = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
    if (!tgz) throw new Error(`npm pack ${ENGINE_PACKAGE}@${version} left no tarball`);
    execFileSync("tar", ["-xzf", join(tmp, tgz), "-C", tmp, "package/rivet-engine"], { stdio: "pipe" });
    mkdirSync(join(dest, ".."), { recursive: true });
    // Copied beside its place and renamed into it: a run that stops half-way leaves no half a binary under the name.
    copyFileSync(join(tmp, "package", "rivet-engine"), `${dest}.part`);
    chmodSync(`${dest}.part`, 0o755);
    renameSync(`${dest}.part`, dest);
  } catch (err) {
    throw new Error(`--engine-version ${version}: could not fetch ${ENGINE_PACKAGE}@${version} (${(err as Error).message.split("\n")[0]})`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
