import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The repository root: the nearest directory above this file whose package.json is actor-bench's (works from source and from dist/). */
export function repoRoot(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const pj = join(dir, "package.json");
    if (existsSync(pj) && (JSON.parse(readFileSync(pj, "utf8")) as { name?: string }).name === "actor-bench") return dir;
    if (dirname(dir) === dir) throw new Error(`actor-bench's package.json not found above ${from}`);
  }
}
