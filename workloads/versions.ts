import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

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
