import { chmodSync, createWriteStream, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { randomBytes } from "node:crypto";
import { Miniflare } from "miniflare";
import workerdPath, { version as workerdVersion } from "workerd";
import { WORKER_BUNDLE, WORKER_BUNDLE_DIR } from "./bundle";
import { assertPortFree, freePort } from "../ports";
import { packageVersion } from "../versions";
import { COMPATIBILITY_DATE } from "./compatibility";
import { hardOpenFileLimit, liveDoLimit } from "./openFiles";

export interface LocalWorkerOptions {
  /** Directory for the DO SQLite files and the workerd wrapper (created). */
  workDir: string;
  port?: number;
  /** Bench token; a random one when absent. Never printed. */
  token?: string;
  /** workerd's open-file limit (soft and hard); absent: raised to this process's hard limit. */
  openFileLimit?: number;
}

export interface LocalWorker {
  url: string;
  token: string;
  persistDir: string;
  /** workerd's own output (its errors name what an "internal error; reference = ..." was). */
  logFile: string;
  /** The limits workerd runs under, for the manifest: its open-file limit and the live DOs that allows. */
  limits: { openFiles: number; liveDos: number };
  versions: { workerd: string; miniflare: string };
  stop(): Promise<void>;
}

/**
 * A wrapper Miniflare runs instead of workerd (MINIFLARE_WORKERD_PATH): the same
 * binary, under a parent-death signal, so a killed run leaves no workerd behind.
 */
function workerdWrapper(dir: string, openFiles: number): string {
  const wrapper = join(dir, "workerd-pdeathsig.sh");
  const setpriv = "/usr/bin/setpriv";
  // Every SQLite DO holds files open (its database, journal, WAL): the limit is set where workerd starts.
  const limit = `ulimit -n ${openFiles}`;
  const body = existsSync(setpriv)
    ? `#!/bin/sh\n${limit}\nexec ${setpriv} --pdeathsig KILL -- "${workerdPath}" "$@"\n`
    : `#!/bin/sh\n${limit}\nexec "${workerdPath}" "$@"\n`;
  writeFileSync(wrapper, body);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

/** Starts the Worker and its SQLite DO on real workerd (through Miniflare 4) on 127.0.0.1. */
export async function startLocalWorker(opts: LocalWorkerOptions): Promise<LocalWorker> {
  if (!existsSync(WORKER_BUNDLE)) throw new Error(`The Worker is not bundled (${WORKER_BUNDLE} missing): run \`npm run build\` first.`);
  mkdirSync(opts.workDir, { recursive: true });
  const port = opts.port ?? (await freePort());
  if (opts.port) await assertPortFree(port, "127.0.0.1", "Worker port");
  const persistDir = join(opts.workDir, "do-sqlite");
  const token = opts.token ?? randomBytes(24).toString("hex");
  const openFiles = opts.openFileLimit ?? hardOpenFileLimit();
  process.env.MINIFLARE_WORKERD_PATH = workerdWrapper(opts.workDir, openFiles);
  const logFile = join(opts.workDir, "workerd.log");
  const log = createWriteStream(logFile, { flags: "a" });
  const mf = new Miniflare({
    modules: true,
    scriptPath: WORKER_BUNDLE,
    modulesRoot: WORKER_BUNDLE_DIR,
    compatibilityDate: COMPATIBILITY_DATE,
    durableObjects: { BENCH: { className: "BenchObject", useSQLite: true } },
    durableObjectsPersist: persistDir,
    bindings: { BENCH_TOKEN: token },
    host: "127.0.0.1",
    port,
    cf: false,
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.pipe(log, { end: false });
      stderr.pipe(log, { end: false });
    },
  });
  let url: URL;
  try {
    url = await mf.ready;
  } catch (err) {
    await mf.dispose().catch(() => undefined);
    throw new Error(`local workerd did not start: ${(err as Error).message}`);
  }
  return {
    url: url.origin,
    token,
    persistDir,
    logFile,
    limits: { openFiles, liveDos: liveDoLimit(openFiles) },
    versions: { workerd: workerdVersion, miniflare: packageVersion("miniflare") },
    stop: async () => {
      await mf.dispose();
      log.end();
    },
  };
}
