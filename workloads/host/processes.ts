import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, openSync, closeSync } from "node:fs";

/**
 * Every child process the run starts goes through here, so that one call (or
 * an exit, a Ctrl-C, an uncaught error) stops all of them. Children are also
 * started under `setpriv --pdeathsig KILL` where it exists, so even a
 * SIGKILLed parent leaves no orphan behind.
 */
export interface Managed {
  name: string;
  child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** File that receives stdout and stderr. */
  logFile: string;
}

const SETPRIV = "/usr/bin/setpriv";
const live = new Set<Managed>();
const interruptHooks: Array<(signal: NodeJS.Signals) => void> = [];

/** Runs (synchronously) on SIGINT/SIGTERM/SIGHUP before the children are stopped, e.g. to close a manifest. */
export function onInterrupt(hook: (signal: NodeJS.Signals) => void): () => void {
  interruptHooks.push(hook);
  return () => {
    const i = interruptHooks.indexOf(hook);
    if (i >= 0) interruptHooks.splice(i, 1);
  };
}
let hooksInstalled = false;

function killAllNow(): void {
  for (const m of live) {
    try {
      m.child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Makes SIGINT, SIGTERM and SIGHUP run the interrupt hooks (a run's manifest
 * is finished as failed) and stop the children before exiting. Installed by
 * the first spawn; a process that spawns nothing (the runner's driver, whose
 * runtimes run elsewhere) installs it itself.
 */
export function handleInterrupts(): void {
  installHooks();
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", killAllNow);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(sig, () => {
      for (const hook of interruptHooks) {
        try {
          hook(sig);
        } catch {
          // a failing hook must not keep the children alive
        }
      }
      void stopAll().finally(() => process.exit(sig === "SIGINT" ? 130 : 143));
    });
  }
}

/** argv that runs `argv` under `setpriv --pdeathsig KILL` where it exists, so the child dies with its parent. */
export function withPdeathsig(argv: readonly string[]): string[] {
  return process.platform === "linux" && existsSync(SETPRIV) ? [SETPRIV, "--pdeathsig", "KILL", "--", ...argv] : [...argv];
}

export function spawnManaged(opts: SpawnOptions): Managed {
  installHooks();
  const [command, ...args] = withPdeathsig([opts.command, ...opts.args]);
  const fd = openSync(opts.logFile, "a");
  const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: -1, signal: null }));
  });
  const m: Managed = {
    name: opts.name,
    child,
    exited,
    async stop(graceMs = 5000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await exited;
        clearTimeout(timer);
      }
      live.delete(m);
    },
  };
  live.add(m);
  void exited.then(() => live.delete(m));
  return m;
}

/** Stops every process still running, newest first (the app before the engine). */
export async function stopAll(graceMs = 5000): Promise<void> {
  const all = [...live].reverse();
  for (const m of all) await m.stop(graceMs);
}
