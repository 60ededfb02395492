import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execFileSync } from "node:child_process";
import { repoRoot } from "./paths";

/**
 * Installed version of an npm package. Walks up from its resolved entry point,
 * since packages with an `exports` map (rivetkit) do not export package.json.
 */
export function packageVersion(name: string): string {
  let dir: string;
  try {
    dir = dirname(require.resolve(name));
  } catch {
    return "not installed";
  }
  for (;;) {
    const pj = join(dir, "package.json");
    if (existsSync(pj)) {
      const p = JSON.parse(readFileSync(pj, "utf8")) as { name?: string; version?: string };
      if (p.name === name && p.version) return p.version;
    }
    const up = dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
}

interface CodeProvenance {
  commit: string | null;
  dirty: boolean | null;
  /** Where the facts came from: the git checkout, or the file a bundle carries. */
  source: string;
}

/** The file a deploy bundle carries in place of a git checkout (see workloads/runner/bundle.ts). */
export const CODE_FILE = "code.json";

/**
 * The commit of the code that runs, and whether tracked files differ from it
 * (untracked files such as new run directories do not count). On a machine
 * without the checkout (a runner VM), the bundle's code.json.
 */
export function codeProvenance(root = repoRoot()): CodeProvenance {
  const git = (args: string[]) =>
    execFileSync("git", ["-C", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  try {
    const commit = git(["rev-parse", "HEAD"]);
    const dirty = git(["status", "--porcelain", "--untracked-files=no"]) !== "";
    return { commit, dirty, source: "git checkout" };
  } catch {
    const file = join(root, "dist", CODE_FILE);
    if (existsSync(file))
      return {
        ...(JSON.parse(readFileSync(file, "utf8")) as Omit<CodeProvenance, "source">),
        source: `${CODE_FILE} of the deployed bundle`,
      };
    return { commit: null, dirty: null, source: "not a git checkout and no code.json" };
  }
}
