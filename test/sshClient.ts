/**
 * OpenSSH's client, playing @pulumi/command's connection in the tests: the
 * client key exists only as a 0600 file in a private temp directory for the
 * length of one call, and the server must present exactly the pinned host
 * key (a known_hosts file written from it, StrictHostKeyChecking=yes), as
 * remote.Command's `connection.hostKey` demands.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { textTail } from "../workloads/host/waitFor";

export interface SshTarget {
  host: string;
  port: number;
  user: string;
  /** OpenSSH private key text (a secret: never logged, never in argv). */
  privateKey: string;
  /** The one host key the server may present, in authorized_keys form ("ssh-ed25519 AAAA..."). */
  hostKey: string;
}

export interface SshResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The known_hosts line that pins `hostKey` for host:port (OpenSSH writes a non-22 port as [host]:port). */
export function knownHostsLine(host: string, port: number, hostKey: string): string {
  const [type, blob] = hostKey.trim().split(/\s+/);
  return `${port === 22 ? host : `[${host}]:${port}`} ${type} ${blob}\n`;
}

function sshOptions(t: Omit<SshTarget, "privateKey">, dir: string, keyFile: string): string[] {
  const known = join(dir, "known_hosts");
  writeFileSync(known, knownHostsLine(t.host, t.port, t.hostKey));
  return [
    "-i",
    keyFile,
    "-o",
    "BatchMode=yes",
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "StrictHostKeyChecking=yes",
    "-o",
    `UserKnownHostsFile=${known}`,
    "-o",
    "GlobalKnownHostsFile=/dev/null",
    "-o",
    "ConnectTimeout=15",
    "-o",
    "ServerAliveInterval=15",
    "-o",
    "ServerAliveCountMax=8",
    "-o",
    "LogLevel=ERROR",
  ];
}

export function sshArgv(t: Omit<SshTarget, "privateKey">, dir: string, keyFile: string, command: string): string[] {
  return ["ssh", ...sshOptions(t, dir, keyFile), "-p", String(t.port), `${t.user}@${t.host}`, command];
}

/** Runs `fn` with the key in a temp file, and removes it afterwards whatever happens. */
export async function withKeyFile<T>(privateKey: string, fn: (keyFile: string, dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "actor-bench-ssh-"));
  const keyFile = join(dir, "id");
  writeFileSync(keyFile, privateKey.endsWith("\n") ? privateKey : `${privateKey}\n`, { mode: 0o600 });
  try {
    return await fn(keyFile, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `command` on the target, `stdin` sent in as remote.Command's stdin is.
 * Resolves with the exit code and output; rejects only when ssh itself cannot start.
 */
export function sshExec(
  t: SshTarget,
  command: string,
  opts: { stdin?: string; timeoutMs?: number; onStderr?: (chunk: string) => void; cut?: AbortSignal } = {},
): Promise<SshResult> {
  return withKeyFile(t.privateKey, (keyFile, dir) => {
    const [cmd, ...args] = sshArgv(t, dir, keyFile, command);
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.end(opts.stdin ?? "");
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      opts.onStderr?.(d.toString("utf8"));
    });
    const timer = opts.timeoutMs ? setTimeout(() => child.kill("SIGTERM"), opts.timeoutMs) : undefined;
    // A cut connection: the client is gone at once, as when a laptop sleeps or its address changes.
    opts.cut?.addEventListener("abort", () => child.kill("SIGKILL"));
    return new Promise<SshResult>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code) => {
        if (timer) clearTimeout(timer);
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

/** Copies one file over SFTP, the protocol remote.CopyToRemote uses, with the same host key pinning. */
export function sftpPut(t: SshTarget, localFile: string, remotePath: string): Promise<SshResult> {
  return withKeyFile(t.privateKey, (keyFile, dir) => {
    const child = spawn("sftp", [...sshOptions(t, dir, keyFile), "-P", String(t.port), "-b", "-", `${t.user}@${t.host}`], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end(`put "${localFile}" "${remotePath}"\n`);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    return new Promise<SshResult>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code) => resolve({ code, stdout, stderr }));
    });
  });
}
