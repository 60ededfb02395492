/**
 * A throwaway PostgreSQL from Debian's packages on one loopback address: the
 * Engine cluster's shared database for the local twin and the VM boot check.
 * It takes only scram-sha-256 with a random password made for it (trust would
 * make any local user its superuser), runs as the postgres user when started
 * as root (Postgres refuses root), and serves TLS when given a certificate.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { spawnManaged, type Managed } from "../../host/processes";
import { waitUntil } from "../../host/waitFor";

/** Debian's Postgres server binaries (postgresql-NN), newest first; a clear error when none is installed. */
export function postgresBinDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "postgres"))) : [];
  if (versions.length === 0) throw new Error("no PostgreSQL server found under /usr/lib/postgresql: apt-get install postgresql");
  versions.sort((a, b) => Number(b) - Number(a));
  return join(root, versions[0], "bin");
}

export function requireCommand(path: string, pkg: string): string {
  if (!existsSync(path)) throw new Error(`${path} not found: apt-get install ${pkg}`);
  return path;
}

/** argv that runs as the `postgres` user when we are root (Postgres refuses to run as root). */
function asPostgres(argv: string[]): string[] {
  return process.getuid?.() === 0 ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--", ...argv] : argv;
}

interface LocalPostgres {
  process: Managed;
  port: number;
  /** postgresql://postgres:<password>@<host>:<port>/rivet (the database is made). */
  url: string;
}

export async function startLocalPostgres(o: {
  workDir: string;
  host: string;
  port: number;
  timeoutMs: number;
  tls?: { certFile: string; keyFile: string };
}): Promise<LocalPostgres> {
  const pgBin = postgresBinDir();
  const w = o.workDir;
  const pgData = join(w, "postgres");
  mkdirSync(pgData, { recursive: true });
  const pgPassword = randomBytes(24).toString("hex");
  const pwFile = join(w, "postgres.pw");
  writeFileSync(pwFile, `${pgPassword}\n`, { mode: 0o600 });
  if (process.getuid?.() === 0) {
    // Postgres runs as its own user: it must be able to reach its data dir and, once, the password file.
    chmodSync(w, 0o711);
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    chownSync(pgData, id("-u"), id("-g"));
    chownSync(pwFile, id("-u"), id("-g"));
  }
  const [initdb, ...initdbArgs] = asPostgres([
    join(pgBin, "initdb"),
    "-D",
    pgData,
    "--auth=scram-sha-256",
    `--pwfile=${pwFile}`,
    "-U",
    "postgres",
    "--no-sync",
  ]);
  try {
    execFileSync(initdb, initdbArgs, { stdio: "pipe" });
  } finally {
    rmSync(pwFile, { force: true });
  }
  const pgLog = join(w, "postgres.log");
  const tls = o.tls ? ["-c", "ssl=on", "-c", `ssl_cert_file=${o.tls.certFile}`, "-c", `ssl_key_file=${o.tls.keyFile}`] : [];
  const [pgCmd, ...pgArgs] = asPostgres([
    join(pgBin, "postgres"),
    "-D",
    pgData,
    "-p",
    String(o.port),
    "-k",
    pgData,
    "-c",
    `listen_addresses=${o.host}`,
    "-c",
    "fsync=on",
    ...tls,
  ]);
  const postgres = spawnManaged({ name: "postgres", command: pgCmd, args: pgArgs, env: process.env, cwd: w, logFile: pgLog });
  try {
    await waitUntil("accepting connections", postgres, pgLog, o.timeoutMs, () => {
      try {
        execFileSync(join(pgBin, "pg_isready"), ["-h", o.host, "-p", String(o.port), "-q"]);
        return true;
      } catch {
        return false;
      }
    });
    execFileSync(join(pgBin, "createdb"), ["-h", o.host, "-p", String(o.port), "-U", "postgres", "rivet"], {
      env: { ...process.env, PGPASSWORD: pgPassword },
    });
  } catch (err) {
    await postgres.stop();
    throw err;
  }
  const postgresUrl = `postgresql://postgres:${pgPassword}@${o.host}:${o.port}/rivet`;
  return { process: postgres, port: o.port, url: postgresUrl };
}
