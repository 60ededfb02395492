/**
 * Real peers for the remote-run tests: Debian's OpenSSH server on loopback
 * standing in for the runner VM, and Azurite (Microsoft's Blob emulator) for
 * the result container.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { StorageSharedKeyCredential, ContainerClient, ContainerSASPermissions, generateBlobSASQueryParameters } from "@azure/storage-blob";
import { spawnManaged, type Managed } from "../workloads/host/processes";
import { freePort } from "../workloads/host/ports";
import { waitUntil } from "../workloads/host/waitFor";

export interface Sshd {
  port: number;
  user: string;
  privateKey: string;
  /** The host key sshd presents, in authorized_keys form (what the stack's connections pin). */
  hostKey: string;
  proc: Managed;
}

export async function startSshd(dir: string): Promise<Sshd> {
  if (!existsSync("/usr/sbin/sshd")) throw new Error("/usr/sbin/sshd not found: apt-get install openssh-server");
  mkdirSync(dir, { recursive: true });
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_ed25519")]);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "actor-bench-test", "-f", join(dir, "client")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client.pub")), { mode: 0o600 });
  const port = await freePort();
  writeFileSync(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_ed25519")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      // remote.CopyToRemote copies over SFTP, as Debian's sshd offers it.
      "Subsystem sftp /usr/lib/openssh/sftp-server",
      `PidFile ${join(dir, "sshd.pid")}`,
      "StrictModes no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "PermitRootLogin prohibit-password",
      "",
    ].join("\n"),
  );
  const log = join(dir, "sshd.log");
  const proc = spawnManaged({ name: "sshd", command: "/usr/sbin/sshd", args: ["-D", "-e", "-f", join(dir, "sshd_config")], env: process.env, logFile: log });
  await waitUntil("listening", proc, log, 10_000, () => readFileSync(log, "utf8").includes("Server listening"));
  return { port, user: userInfo().username, privateKey: readFileSync(join(dir, "client"), "utf8"), hostKey: readFileSync(join(dir, "host_ed25519.pub"), "utf8").trim(), proc };
}

// Azurite's documented development account.
const ACCOUNT = "devstoreaccount1";
const KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

export interface Azurite {
  proc: Managed;
  containerUrl: string;
  /** A read/write/list/create SAS of the container, for the tests' own set-up (never what the stack hands out). */
  sas: string;
  container: ContainerClient;
  accountName: string;
  accountKey: string;
  /** A SAS tied to the container's stored access policy `identifier`, as the stack's are. */
  policySas(identifier: string): string;
}

export async function startAzurite(dir: string, containerName: string): Promise<Azurite> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const log = join(dir, "azurite.log");
  const entry = join(__dirname, "..", "node_modules", ".bin", "azurite-blob");
  const proc = spawnManaged({
    name: "azurite-blob",
    command: entry,
    args: ["--blobHost", "127.0.0.1", "--blobPort", String(port), "--location", dir, "--skipApiVersionCheck", "--disableTelemetry"],
    env: process.env,
    logFile: log,
  });
  await waitUntil("listening", proc, log, 30_000, () => readFileSync(log, "utf8").includes("successfully listens"));
  const containerUrl = `http://127.0.0.1:${port}/${ACCOUNT}/${containerName}`;
  const cred = new StorageSharedKeyCredential(ACCOUNT, KEY);
  const container = new ContainerClient(containerUrl, cred);
  await container.create();
  const sas = generateBlobSASQueryParameters(
    { containerName, permissions: ContainerSASPermissions.parse("rwlc"), expiresOn: new Date(Date.now() + 3600_000) },
    cred,
  ).toString();
  const policySas = (identifier: string) => generateBlobSASQueryParameters({ containerName, identifier }, cred).toString();
  return { proc, containerUrl, sas, container, accountName: ACCOUNT, accountKey: KEY, policySas };
}

/** A shell command that starts the app detached on the "runner" and records its pid. */
export function detachedAppCommand(appDir: string, nodeBin: string, gatewayUrl: string): string {
  return (
    // A simple command in the background (not an && list, which bash runs in a subshell that
    // keeps ssh's pipes open until the app exits): $! is the app itself.
    `cd '${appDir}' || exit 1; RIVET_ENDPOINT='${gatewayUrl}' RIVET_NAMESPACE=default RIVET_RUN_SERVICES=0 RIVET_LOG_LEVEL=warn RUST_LIB_BACKTRACE=0 ` +
    `setsid '${nodeBin}' dist/workloads/sides/rivet/app.js < /dev/null > app.log 2>&1 & echo $! > '${appDir}/app.pid'`
  );
}

