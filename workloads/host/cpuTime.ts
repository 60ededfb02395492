import { readFileSync } from "node:fs";

/** utime + stime of a process in ms from /proc/<pid>/stat (Linux); null where it cannot be read. */
function processCpuMs(pid: number | undefined, ticksPerSecond = 100): number | null {
  if (pid === undefined) return null;
  try {
    return parseProcStatCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"), ticksPerSecond);
  } catch {
    return null;
  }
}

/**
 * Pure: fields 14 and 15 (utime, stime) of a /proc/<pid>/stat line, in ms, or
 * with `of: "children"` fields 16 and 17 (cutime, cstime: the CPU of the
 * children the process has waited for). The command may contain spaces.
 */
export function parseProcStatCpuMs(stat: string, ticksPerSecond = 100, of: "self" | "children" = "self"): number {
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state): utime is field 14, so rest[11]
  const i = of === "self" ? 11 : 13;
  return ((Number(rest[i]) + Number(rest[i + 1])) * 1000) / ticksPerSecond;
}

/**
 * Reads `read` for each named process now, and returns what reads it again
 * and combines the two (`between`): null for a process either read missed.
 */
function perProcess<T, R>(
  pids: Record<string, number | undefined>,
  read: (pid: number | undefined) => T | null,
  between: (start: T, end: T) => R,
): () => Record<string, R | null> {
  const start = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, read(p)]));
  return () =>
    Object.fromEntries(
      Object.entries(pids).map(([k, p]) => {
        const end = read(p);
        const s = start[k];
        return [k, end === null || s === null ? null : between(s, end)];
      }),
    );
}

/** CPU ms used by each named process since the snapshot was taken. */
export function cpuSnapshot(pids: Record<string, number | undefined>): () => Record<string, number | null> {
  return perProcess(pids, processCpuMs, (s, e) => e - s);
}

/** Pure: VmRSS of a /proc/<pid>/status text, in kB, or null where it has none. */
function parseStatusRssKb(status: string): number | null {
  const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return m ? Number(m[1]) : null;
}

/** A process's resident set in kB from /proc/<pid>/status (Linux); null where it cannot be read. */
function processRssKb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    return parseStatusRssKb(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return null;
  }
}

/** Each named process's resident set when the snapshot was taken and when it is read again, kB. */
export function rssSnapshot(pids: Record<string, number | undefined>): () => Record<string, { start: number; end: number } | null> {
  return perProcess(pids, processRssKb, (start, end) => ({ start, end }));
}
