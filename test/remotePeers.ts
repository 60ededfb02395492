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
  const proc = spawnManaged({
    name: "sshd",
    command: "/usr/sbin/sshd",
    args: ["-D", "-e", "-f", join(dir, "sshd_config")],
    env: process.env,
    logFile: log,
  });
  await waitUntil("listening", proc, log, 10_000, () => readFileSync(log, "utf8").includes("Server listening"));
  return {
    port,
    user: userInfo().username,
    privateKey: readFileSync(join(dir, "client"), "utf8"),
    hostKey: readFileSync(join(dir, "host_ed25519.pub"), "utf8").trim(),
    proc,
  };
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
  /** A container SAS with these letters, signed with the emulator's key (the tests' stand-in for the stack's SAS). */
  grantSas(permissions: string): string;
  /** With `entra`: the emulator's certificate (PEM), which a client must trust to reach it. */
  ca?: string;
}

/**
 * Azurite's Blob service. With `entra`, over HTTPS (a certificate made here)
 * and accepting Entra bearer tokens, as Azure does for a user delegation key;
 * then the container is made with a token, and `sas`/`container` are not set.
 */
export async function startAzurite(dir: string, containerName: string, opts: { entra?: boolean } = {}): Promise<Azurite> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const log = join(dir, "azurite.log");
  const entry = join(__dirname, "..", "node_modules", ".bin", "azurite-blob");
  const tls = opts.entra ? selfSignedCert(dir) : undefined;
  const proc = spawnManaged({
    name: "azurite-blob",
    command: entry,
    args: [
      "--blobHost",
      "127.0.0.1",
      "--blobPort",
      String(port),
      "--location",
      dir,
      "--skipApiVersionCheck",
      "--disableTelemetry",
      ...(tls ? ["--cert", tls.cert, "--key", tls.key, "--oauth", "basic"] : []),
    ],
    env: process.env,
    logFile: log,
  });
  await waitUntil("listening", proc, log, 30_000, () => readFileSync(log, "utf8").includes("successfully listens"));
  const cred = new StorageSharedKeyCredential(ACCOUNT, KEY);
  const containerUrl = `${tls ? "https" : "http"}://127.0.0.1:${port}/${ACCOUNT}/${containerName}`;
  const container = new ContainerClient(containerUrl, cred);
  const grantSas = (permissions: string) =>
    generateBlobSASQueryParameters(
      { containerName, permissions: ContainerSASPermissions.parse(permissions), expiresOn: new Date(Date.now() + 3600_000) },
      cred,
    ).toString();
  if (tls)
    return { proc, containerUrl, sas: "", container, accountName: ACCOUNT, accountKey: KEY, grantSas, ca: readFileSync(tls.cert, "utf8") };
  await container.create();
  return { proc, containerUrl, sas: grantSas("rwlc"), container, accountName: ACCOUNT, accountKey: KEY, grantSas };
}

/** A certificate for 127.0.0.1, valid a day, made with openssl. */
function selfSignedCert(dir: string): { cert: string; key: string } {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "ignore" },
  );
  return { cert, key };
}

/**
 * An Entra-shaped access token for Azure Storage (issuer, audience, lifetime,
 * object and tenant ids): what Azurite checks. Azurite does not check the
 * signature, and no Entra tenant can be reached here.
 */
export function storageToken(claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const tid = "72f988bf-86f1-41af-91ab-2d7cd011db47";
  const body = {
    aud: "https://storage.azure.com",
    iss: `https://sts.windows.net/${tid}/`,
    iat: now - 60,
    nbf: now - 60,
    exp: now + 3600,
    oid: "6b3c5f8e-8c4e-4b1e-9d55-0a1f2e3d4c5b",
    tid,
    ...claims,
  };
  return `${b64({ alg: "RS256", typ: "JWT" })}.${b64(body)}.${Buffer.from("unsigned").toString("base64url")}`;
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
