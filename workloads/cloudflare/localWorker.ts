import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Miniflare } from "miniflare";
import workerdPath, { version as workerdVersion } from "workerd";
import { WORKER_BUNDLE, WORKER_BUNDLE_DIR } from "./bundle";
import { assertPortFree, freePort } from "../ports";
import { packageVersion } from "../versions";
import { COMPATIBILITY_DATE } from "./compatibility";

export interface LocalWorkerOptions {
  /** Directory for the DO SQLite files and the workerd wrapper (created). */
  workDir: string;
  port?: number;
  /** Bench token; a random one when absent. Never printed. */
  token?: string;
}

export interface LocalWorker {
  url: string;
  token: string;
  persistDir: string;
  versions: { workerd: string; miniflare: string };
  stop(): Promise<void>;
}

/**
 * A wrapper Miniflare runs instead of workerd (MINIFLARE_WORKERD_PATH): the same
 * binary, under a parent-death signal, so a killed run leaves no workerd behind.
 */
function workerdWrapper(dir: string): string {
  const wrapper = join(dir, "workerd-pdeathsig.sh");
  const setpriv = "/usr/bin/setpriv";
  const body = existsSync(setpriv)
    ? `#!/bin/sh\nexec ${setpriv} --pdeathsig KILL -- "${workerdPath}" "$@"\n`
    : `#!/bin/sh\nexec "${workerdPath}" "$@"\n`;
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
  process.env.MINIFLARE_WORKERD_PATH = workerdWrapper(opts.workDir);
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
    versions: { workerd: workerdVersion, miniflare: packageVersion("miniflare") },
    stop: () => mf.dispose(),
  };
}
