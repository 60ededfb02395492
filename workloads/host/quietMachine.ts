/**
 * Before each side of a repetition starts its runtime, the machine is
 * brought to the same state: the previous side's dirty pages are written
 * out (`sync`, so their writeback does not land in the next side's fsyncs)
 * and the run waits, within a bound, for a window in which the CPUs are
 * nearly idle (a stopped runtime's exit, a removed data directory and the
 * kernel's own work after them). What it waited is recorded per repetition.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** CPU time counters of /proc/stat's first line, in clock ticks. */
type CpuTicks = number[];

export function readCpuTicks(text: string = readFileSync("/proc/stat", "utf8")): CpuTicks | null {
  const line = text.split("\n").find((l) => l.startsWith("cpu "));
  return line ? line.trim().split(/\s+/).slice(1).map(Number) : null;
}

/** The share of CPU time idle (idle + iowait) between two readings; null when no time passed. */
export function idleShare(before: CpuTicks, after: CpuTicks): number | null {
  const d = after.map((x, i) => x - (before[i] ?? 0));
  const total = d.reduce((s, x) => s + x, 0);
  return total > 0 ? ((d[3] ?? 0) + (d[4] ?? 0)) / total : null;
}

interface QuietOutcome {
  /** How long `sync` took. */
  syncMs: number;
  /** How long the run waited for a quiet window (not counting the sync). */
  waitedMs: number;
  /** The idle share of the last window measured; null where /proc/stat cannot be read. */
  idleShare: number | null;
  /** Whether a window reached the wanted idle share before the bound. */
  quiet: boolean;
}

const QUIET = { idleShare: 0.9, windowMs: 500, maxWaitMs: 15_000 } as const;

/** Brings the machine to rest before a side starts (see the file's comment). `read` and `sleep` are replaceable for tests. */
export async function quietMachine(
  o: {
    idleShare?: number;
    windowMs?: number;
    maxWaitMs?: number;
    read?: () => CpuTicks | null;
    sleep?: (ms: number) => Promise<void>;
    sync?: () => void;
  } = {},
): Promise<QuietOutcome> {
  const want = o.idleShare ?? QUIET.idleShare;
  const windowMs = o.windowMs ?? QUIET.windowMs;
  const maxWaitMs = o.maxWaitMs ?? QUIET.maxWaitMs;
  const read =
    o.read ??
    (() => {
      try {
        return readCpuTicks();
      } catch {
        return null;
      }
    });
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const s0 = performance.now();
  (o.sync ?? (() => execFileSync("sync", { stdio: "ignore" })))();
  const syncMs = performance.now() - s0;
  let waitedMs = 0;
  let share: number | null = null;
  let prev = read();
  if (prev === null) return { syncMs, waitedMs, idleShare: null, quiet: false };
  while (waitedMs < maxWaitMs) {
    await sleep(windowMs);
    waitedMs += windowMs;
    const now = read();
    if (now === null) break;
    share = idleShare(prev, now);
    prev = now;
    if (share !== null && share >= want) return { syncMs, waitedMs, idleShare: share, quiet: true };
  }
  return { syncMs, waitedMs, idleShare: share, quiet: false };
}
