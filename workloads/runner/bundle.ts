/**
 * What the runner VM gets: the built project (dist/) and the lock file it is
 * installed from, so the runner measures with exactly the code and package
 * versions of this checkout.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { gzipSync } from "node:zlib";

const BUNDLE_ENTRIES = ["package.json", "package-lock.json", "dist"] as const;

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
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

/**
 * Writes the bundle as a gzipped tar whose bytes depend only on the files:
 * names sorted, times, owners and modes fixed, no gzip timestamp. So an
 * unchanged build gives the same archive, and CopyToRemote (which compares
 * the archive's hash) copies nothing. Returns the archive's path.
 */
export function writeBundleArchive(projectDir: string, outFile: string): string {
  for (const entry of BUNDLE_ENTRIES) {
    if (!existsSync(join(projectDir, entry)))
      throw new Error(`${join(projectDir, entry)} is missing: run \`npm run build\` before \`pulumi up\``);
  }
  const tar = execFileSync(
    "tar",
    [
      "--sort=name",
      "--mtime=@0",
      "--owner=0",
      "--group=0",
      "--numeric-owner",
      "--mode=u+rwX,go+rX,go-w",
      "--format=gnu",
      "-cf",
      "-",
      ...BUNDLE_ENTRIES,
    ],
    { cwd: projectDir, maxBuffer: 1 << 30 },
  );
  mkdirSync(dirname(outFile), { recursive: true, mode: 0o700 });
  const tmp = `${outFile}.${process.pid}.tmp`;
  writeFileSync(tmp, gzipSync(tar, { level: 9 }));
  renameSync(tmp, outFile);
  return outFile;
}

/** The compiled entry points the runner VM executes: the driver's runner and the RivetKit app. */
const RUNNER_ENTRIES = ["dist/workloads/runner/runner.js", "dist/workloads/sides/rivet/app.js"] as const;

/** The project files `entry` loads: itself and every relative require, followed through the compiled tree. */
export function requireClosure(projectDir: string, entries: readonly string[] = RUNNER_ENTRIES): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` before \`pulumi up\``);
    seen.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(/\brequire\("(\.{1,2}\/[^"]+)"\)/g)) {
      const target = resolve(dirname(file), m[1]);
      visit(existsSync(`${target}.js`) ? `${target}.js` : existsSync(join(target, "index.js")) ? join(target, "index.js") : target);
    }
  };
  for (const e of entries) visit(join(projectDir, e));
  return [...seen].map((f) => relative(projectDir, f)).sort();
}

/**
 * What a run on the runner measures with: the code it loads (requireClosure)
 * and the locked dependencies. A run re-runs when this changes, not when
 * anything else in the bundle does (the site's scripts, the report's).
 */
export function runnerCodeDigest(projectDir: string): string {
  const h = createHash("sha256");
  for (const file of [...requireClosure(projectDir), "package-lock.json"])
    h.update(file)
      .update("\0")
      .update(readFileSync(join(projectDir, file)))
      .update("\0");
  return h.digest("hex");
}
