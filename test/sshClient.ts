/**
 * OpenSSH's client, driven with a key that exists only as a 0600 file in a
 * private temp directory for the length of one call. Host keys are trusted on
 * first use and pinned in a per-stack known_hosts file after that.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { textTail } from "../waitFor";

export interface SshTarget {
  host: string;
  port: number;
  user: string;
  /** OpenSSH private key text (a secret: never logged, never in argv). */
  privateKey: string;
  /** known_hosts file of this stack (created on first use). */
  knownHostsFile: string;
}

export interface SshResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Quotes one word for a POSIX shell. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function sshArgv(t: Omit<SshTarget, "privateKey">, keyFile: string, command: string): string[] {
  return [
    "ssh",
    "-i", keyFile,
    "-p", String(t.port),
    "-o", "BatchMode=yes",
    "-o", "IdentitiesOnly=yes",
    "-o", "StrictHostKeyChecking=accept-new",
    "-o", `UserKnownHostsFile=${t.knownHostsFile}`,
    "-o", "ConnectTimeout=15",
    "-o", "ServerAliveInterval=15",
    "-o", "ServerAliveCountMax=8",
    "-o", "LogLevel=ERROR",
    `${t.user}@${t.host}`,
    command,
  ];
}

/** Runs `fn` with the key in a temp file, and removes it afterwards whatever happens. */
export async function withKeyFile<T>(privateKey: string, fn: (keyFile: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "actor-bench-ssh-"));
  const keyFile = join(dir, "id");
  writeFileSync(keyFile, privateKey.endsWith("\n") ? privateKey : `${privateKey}\n`, { mode: 0o600 });
  try {
    return await fn(keyFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `command` on the target; `stdin` is a string or a producer process
 * whose stdout is piped in (e.g. tar). Resolves with the exit code and output;
 * rejects only when ssh itself cannot start.
 */
export function sshExec(t: SshTarget, command: string, opts: { stdin?: string | { argv: string[]; cwd?: string }; timeoutMs?: number; onStderr?: (chunk: string) => void } = {}): Promise<SshResult> {
  return withKeyFile(t.privateKey, (keyFile) => {
    const [cmd, ...args] = sshArgv(t, keyFile, command);
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] });
    let producer: ReturnType<typeof spawn> | undefined;
    if (typeof opts.stdin === "string") child.stdin.end(opts.stdin);
    else if (opts.stdin) {
      producer = spawn(opts.stdin.argv[0], opts.stdin.argv.slice(1), { cwd: opts.stdin.cwd, stdio: ["ignore", "pipe", "inherit"] });
      producer.stdout!.pipe(child.stdin);
    } else child.stdin.end();
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      opts.onStderr?.(d.toString("utf8"));
    });
    const timer = opts.timeoutMs ? setTimeout(() => child.kill("SIGTERM"), opts.timeoutMs) : undefined;
    return new Promise<SshResult>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code) => {
        if (timer) clearTimeout(timer);
        producer?.kill();
        resolve({ code, stdout, stderr });
      });
    });
  });
}

/** Runs `command` and throws (with its stderr's tail) unless it exits 0. */
export async function sshRun(t: SshTarget, what: string, command: string, opts: Parameters<typeof sshExec>[2] = {}): Promise<SshResult> {
  const r = await sshExec(t, command, opts);
  if (r.code !== 0) {
    throw new Error(`${what} on ${t.user}@${t.host}:${t.port} failed (exit ${r.code}):\n${textTail(r.stderr)}`);
  }
  return r;
}

/** Retries `ssh true` until the host answers (a VM still booting), up to `timeoutMs`. */
export async function waitForSsh(t: SshTarget, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: SshResult | undefined;
  while (Date.now() < deadline) {
    last = await sshExec(t, "true", { timeoutMs: 30_000 });
    if (last.code === 0) return;
    await new Promise((r) => setTimeout(r, 5000));
  }
  throw new Error(`${t.user}@${t.host}:${t.port} did not accept SSH within ${Math.round(timeoutMs / 1000)} s: ${last?.stderr.trim() ?? ""}`);
}
