/**
 * What the runner VM gets: the built project (dist/) and the lock file it is
 * installed from, so the runner measures with exactly the code and package
 * versions of this checkout.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { shq } from "./ssh";

export const BUNDLE_ENTRIES = ["package.json", "package-lock.json", "dist"] as const;

function walk(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** sha256 over every bundled file's path and bytes: a changed build changes it (and redeploys). */
export function bundleDigest(projectDir: string): string {
  const h = createHash("sha256");
  for (const entry of BUNDLE_ENTRIES) {
    const p = join(projectDir, entry);
    if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run build\` before \`pulumi up\``);
    for (const file of statSync(p).isDirectory() ? walk(p) : [p]) {
      h.update(relative(projectDir, file)).update("\0").update(readFileSync(file)).update("\0");
    }
  }
  return h.digest("hex");
}

/** The tar that streams the bundle to the runner (its stdout goes into ssh). */
export function bundleTarArgv(): string[] {
  return ["tar", "-czf", "-", ...BUNDLE_ENTRIES];
}

/**
 * On the runner: replace the old dist/ with the streamed bundle, then install
 * production dependencies from the lock, every tarball checked against its
 * integrity there. No package's install script runs (--ignore-scripts): the
 * ones in the tree would fetch an unpinned prebuilt binary (better-sqlite3's
 * prebuild-install, which rivetkit pulls in and the app never loads) or only
 * check versions (protobufjs, esbuild, cbor-extract, whose prebuilt comes in
 * its own locked package).
 */
export function installCommand(appDir: string, nodeBin: string): string {
  const npm = nodeBin.replace(/node$/, "npm");
  return [
    "set -e",
    `mkdir -p ${shq(appDir)}`,
    `cd ${shq(appDir)}`,
    "rm -rf dist",
    "tar -xzf -",
    `PATH=${shq(nodeBin.replace(/\/node$/, ""))}:"$PATH" ${shq(npm)} ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error`,
  ].join("\n");
}

export function runnerCommand(appDir: string, nodeBin: string, args: string[]): string {
  return `cd ${shq(appDir)} && ${shq(nodeBin)} dist/workloads/remote/runner.js ${args.map(shq).join(" ")}`;
}
