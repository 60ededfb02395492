import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { netnsAvailable, netnsScript, nsenterArgv, unshareFlags, type Loopback } from "../host/netns";
import { logTail } from "../host/waitFor";
import { privateDir } from "../host/privateDir";

/** The side whose runtime a daemon holds. */
type DaemonKind = string;

/** What identifies a running daemon across processes: its pid and the kernel's start time for that pid. */
export interface DaemonHandle {
  kind: DaemonKind;
  pid: number;
  /** Field 22 of /proc/<pid>/stat: guards against a reused pid. */
  startTime: string;
  /** True when the daemon runs in its own network namespace (quickack loopback); reach it with nsenter. */
  netns: boolean;
  stateDir: string;
  log: string;
  /** What the daemon wrote to ready.json. */
  ready: Record<string, unknown>;
}

class DaemonError extends Error {}

/** State (R, S, Z, ...), process group (field 5) and start time (field 22) of a process from /proc/<pid>/stat, or null when there is none. */
function procStat(pid: number): { state: string; pgrp: number; startTime: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces; fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0], pgrp: Number(fields[2]), startTime: fields[19] };
  } catch {
    return null;
  }
}

/** The live (not zombie) processes of a process group: a detached daemon leads its own, and its children stay in it. */
export function groupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      const st = procStat(pid);
      return st !== null && st.pgrp === pgid && st.state !== "Z";
    });
}

/** Start time of a process, or null when there is none with that pid. */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.startTime ?? null;
}

/** Whether a process with this pid exists and has not exited (a zombie has). */
function running(pid: number): boolean {
  const st = procStat(pid);
  return st !== null && st.state !== "Z";
}

/** Whether the process a handle names is still the same one, and not a zombie. */
export function daemonAlive(h: Pick<DaemonHandle, "pid" | "startTime">): boolean {
  const st = procStat(h.pid);
  return st !== null && st.startTime === h.startTime && st.state !== "Z";
}

function daemonEntryPath(): string {
  const p = join(__dirname, "daemon.js");
  if (!existsSync(p)) throw new DaemonError(`${p} is missing: run \`npm run build\` first.`);
  return p;
}

interface StartDaemonOptions {
  kind: DaemonKind;
  /** Emptied and created: the runtime's data and logs live here. */
  stateDir: string;
  /** Passed on stdin (never in argv or the environment, so a token stays out of `ps`). */
  options: object;
  /** quickack: a private network namespace whose loopback has delayed ACKs off, as `npm start` uses. */
  loopback: Loopback;
  timeoutMs?: number;
}

/**
 * Starts a daemon in its own session, so it outlives the caller, and waits
 * until it reports ready (or fails, with its log's tail in the error).
 */
export async function startDaemon(o: StartDaemonOptions): Promise<DaemonHandle> {
  rmSync(o.stateDir, { recursive: true, force: true });
  privateDir(o.stateDir);
  const log = join(o.stateDir, "daemon.log");
  const entry = [process.execPath, daemonEntryPath(), o.kind, o.stateDir];
  let netns = false;
  let argv = entry;
  if (o.loopback === "quickack") {
    const avail = netnsAvailable();
    if (!avail.ok)
      throw new DaemonError(`loopback quickack needs a private network namespace: ${avail.reason}. Set actor-bench:loopback to host.`);
    // No parent-death signal here: the daemon must outlive the provider host that starts it.
    argv = ["unshare", ...unshareFlags(), "sh", "-c", netnsScript({ pdeathsig: false }), "sh", ...entry];
    netns = true;
  }
  const fd = openSync(log, "a");
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ["pipe", fd, fd], env: process.env });
  closeSync(fd);
  child.stdin!.end(JSON.stringify(o.options));
  let exit: string | null = null;
  child.once("exit", (code, signal) => (exit = `exit code ${code}, signal ${signal}`));
  child.once("error", (err) => (exit = err.message));
  const pid = child.pid;
  child.unref();
  const readyPath = join(o.stateDir, "ready.json");
  const deadline = Date.now() + (o.timeoutMs ?? 120_000);
  while (!existsSync(readyPath)) {
    if (exit !== null || pid === undefined)
      throw new DaemonError(`${o.kind} daemon failed to start (${exit}); ${log}:\n${logTail(log, 30)}`);
    if (Date.now() > deadline) {
      if (pid !== undefined) process.kill(-pid, "SIGKILL");
      throw new DaemonError(`${o.kind} daemon not ready within ${o.timeoutMs ?? 120_000} ms; ${log}:\n${logTail(log, 30)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const startTime = processStartTime(pid!);
  if (startTime === null) throw new DaemonError(`${o.kind} daemon exited right after reporting ready; ${log}:\n${logTail(log, 30)}`);
  const ready = JSON.parse(readFileSync(readyPath, "utf8")) as Record<string, unknown>;
  return { kind: o.kind, pid: pid!, startTime, netns, stateDir: o.stateDir, log, ready };
}

/** The pids a daemon owns (itself and the children it reported), for a no-orphan check. */
function ownedPids(h: DaemonHandle): number[] {
  const pids = Array.isArray(h.ready.pids) ? h.ready.pids : [];
  return [h.pid, ...pids].filter((p): p is number => typeof p === "number");
}

/**
 * Stops a daemon: SIGTERM, then SIGKILL to its whole process group after the
 * grace time. Resolves once it, the children it reported and every process
 * left in its process group are gone (a runtime's own children exit after
 * the daemon does). A daemon that is already gone is not an error.
 */
export async function stopDaemon(h: DaemonHandle, graceMs = 15_000): Promise<void> {
  if (daemonAlive(h)) {
    process.kill(h.pid, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (daemonAlive(h) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (daemonAlive(h)) {
      try {
        process.kill(-h.pid, "SIGKILL");
      } catch {
        process.kill(h.pid, "SIGKILL");
      }
    }
  }
  const deadline = Date.now() + 10_000;
  const alive = () => [...new Set([...ownedPids(h).filter((p) => p !== h.pid && running(p)), ...groupMembers(h.pid)])];
  // Past the grace time, what is left of the group is killed too.
  const killLeft = setTimeout(() => {
    for (const p of alive()) safeKill(p);
  }, 5_000);
  while ((daemonAlive(h) || alive().length > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  clearTimeout(killLeft);
  const left = alive();
  if (daemonAlive(h) || left.length > 0)
    throw new DaemonError(`${h.kind} daemon ${h.pid} left processes running: ${[h.pid, ...left].join(", ")}`);
}

function safeKill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone already
  }
}

/** argv that runs a command where the daemon's endpoints are reachable. */
export function reachArgv(h: Pick<DaemonHandle, "pid" | "netns">, argv: readonly string[]): string[] {
  return h.netns ? nsenterArgv(h.pid, argv) : [...argv];
}

/**
 * Whether the daemon answers HTTP at `url` (any status below 500 counts: a
 * runtime may answer 401 without its token). Runs the probe where the daemon's
 * loopback is.
 */
export function daemonAnswers(h: DaemonHandle, url: string, timeoutMs = 5000): boolean {
  if (!daemonAlive(h)) return false;
  const probe = `fetch(${JSON.stringify(url)},{signal:AbortSignal.timeout(${timeoutMs})}).then(r=>process.exit(r.status<500?0:1),()=>process.exit(1))`;
  const argv = reachArgv(h, [process.execPath, "-e", probe]);
  const r = spawnSync(argv[0], argv.slice(1), { timeout: timeoutMs + 5000, stdio: "ignore" });
  return r.status === 0;
}
