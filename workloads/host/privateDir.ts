import { chmodSync, mkdirSync } from "node:fs";
import { sep } from "node:path";

/**
 * Makes `path` (and any missing parent) a folder only its owner can read:
 * the stack's state under .actor-bench/<stack>/ holds pinned host keys,
 * result blobs and driver logs. From the .actor-bench folder down, every
 * folder on the way is set to 0700, also when it already existed.
 */
export function privateDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const parts = path.split(sep);
  const at = parts.lastIndexOf(".actor-bench");
  const from = at < 0 ? parts.length - 1 : at;
  for (let i = parts.length - 1; i >= from; i--) chmodSync(parts.slice(0, i + 1).join(sep) || sep, 0o700);
  return path;
}
