import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Every process below `pid` (children, theirs, ...), from pgrep. */
export function descendants(pid: number): number[] {
  let out = "";
  try {
    out = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" });
  } catch {
    return [];
  }
  const kids = out.split("\n").filter(Boolean).map(Number);
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

/** Whether a process with this pid exists and is not a zombie. */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/** A process's command line, or "" once it is gone. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}
