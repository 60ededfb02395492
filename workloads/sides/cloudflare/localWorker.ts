import { chmodSync, createWriteStream, existsSync, mkdirSync, readFileSync, watch, writeFileSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { basename, dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { randomBytes } from "node:crypto";
import { Miniflare } from "miniflare";
import workerdPath, { version as workerdVersion } from "workerd";
import { WORKER_BUNDLE, WORKER_BUNDLE_DIR } from "./bundle";
import { assertPortFree, freePort } from "../../host/ports";
import { packageVersion } from "../../host/versions";
import { miniflareBindings, TOKEN_BINDING, WORKER_UPLOAD } from "./upload";
import { hardOpenFileLimit, liveDoLimit } from "./openFiles";
import type { WatchedProcess } from "../../host/runtimeWatch";
import { plantText, type Plant } from "../plantSpec";

interface LocalWorkerOptions {
  /** Directory for the DO SQLite files and the workerd wrapper (created). */
  workDir: string;
  port?: number;
  /** Bench token; a random one when absent. Never printed. */
  token?: string;
  /** workerd's open-file limit (soft and hard); absent: raised to this process's hard limit. */
  openFileLimit?: number;
  /** A planted delay, microseconds by operation (--plant-delay-us); the DO waits whole ms of it, rounded up. */
  plant?: Plant;
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
  /** workerd itself: its pid and its end (code or signal), for the run's watch on the runtime. */
  process: WatchedProcess;
  stop(): Promise<void>;
}

/**
 * A wrapper Miniflare runs instead of workerd (MINIFLARE_WORKERD_PATH): the same
 * binary with its open-file limit, under a parent-death signal (the wrapper too,
 * so a killed run leaves no workerd behind). It writes workerd's pid and, when
 * workerd ends, its wait status, so the run knows at once that workerd is gone
 * and how (Miniflare keeps the process handle to itself).
 */
function workerdWrapper(dir: string, openFiles: number): { wrapper: string; pidFile: string; statusFile: string } {
  const wrapper = join(dir, "workerd-wrapper.sh");
  const pidFile = join(dir, "workerd.pid");
  const statusFile = join(dir, "workerd.status");
  const setpriv = "/usr/bin/setpriv";
  const q = (p: string) => `'${p.replace(/'/g, "'\\''")}'`;
  const guard = existsSync(setpriv) ? `${setpriv} --pdeathsig KILL -- ` : "";
  const body = [
    "#!/bin/sh",
    ...(guard ? [`if [ -z "$ACTOR_BENCH_WRAPPED" ]; then ACTOR_BENCH_WRAPPED=1 exec ${guard}"$0" "$@"; fi`] : []),
    // Every SQLite DO holds files open (its database, WAL, shared memory): the limit is set where workerd starts.
    `ulimit -n ${openFiles}`,
    // Miniflare writes the config on stdin and reads the ports on fd 3. A command run with & gets
    // /dev/null for stdin, so stdin is passed on through fd 4; fd 3 is inherited as it is.
    "exec 4<&0",
    `${guard}${q(workerdPath)} "$@" <&4 4<&- &`,
    `echo "$!" > ${q(pidFile)}`,
    `wait "$!"`,
    `status=$?`,
    `echo "$status" > ${q(statusFile)}.tmp && mv ${q(statusFile)}.tmp ${q(statusFile)}`,
    `exit "$status"`,
    "",
  ].join("\n");
  writeFileSync(wrapper, body);
  chmodSync(wrapper, 0o755);
  return { wrapper, pidFile, statusFile };
}

/** Pure: a shell's wait status as an exit code or a signal (128 + its number). */
function waitStatus(text: string): { code: number | null; signal: string | null } {
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < 0) return { code: null, signal: null };
  if (n > 128) {
    const name = Object.entries(osConstants.signals).find(([, v]) => v === n - 128)?.[0];
    if (name) return { code: null, signal: name };
  }
  return { code: n, signal: null };
}

/** workerd's end, from the wrapper's status file (watched), or its pid's disappearance if the wrapper itself was killed. */
function workerdExit(pid: number, statusFile: string): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    const done = (r: { code: number | null; signal: string | null }) => {
      clearInterval(poll);
      watcher.close();
      resolve(r);
    };
    const status = () => (existsSync(statusFile) ? waitStatus(readFileSync(statusFile, "utf8")) : null);
    const look = () => {
      const s = status();
      if (s) done(s);
      // The wrapper itself killed: no status will come; a last look once it could have been written.
      else if (!existsSync(`/proc/${pid}`)) setTimeout(() => done(status() ?? { code: null, signal: null }), 100);
    };
    const watcher = watch(dirname(statusFile), (_e, name) => {
      if (name === basename(statusFile)) look();
    });
    const poll = setInterval(look, 1000);
    poll.unref();
    watcher.unref();
    look();
  });
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
  const wrapped = workerdWrapper(opts.workDir, openFiles);
  process.env.MINIFLARE_WORKERD_PATH = wrapped.wrapper;
  const logFile = join(opts.workDir, "workerd.log");
  const log = createWriteStream(logFile, { flags: "a" });
  const uploaded = miniflareBindings(WORKER_UPLOAD, { [TOKEN_BINDING]: token });
  const mf = new Miniflare({
    modules: true,
    scriptPath: WORKER_BUNDLE,
    modulesRoot: WORKER_BUNDLE_DIR,
    // The bindings and migrations the stack uploads (upload.ts), with this run's token.
    ...uploaded,
    durableObjectsPersist: persistDir,
    bindings: { ...uploaded.bindings, ...(opts.plant ? { BENCH_PLANT: plantText(opts.plant) } : {}) },
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
  const pid = Number(readFileSync(wrapped.pidFile, "utf8").trim());
  let stopping = false;
  const exited = workerdExit(pid, wrapped.statusFile);
  return {
    url: url.origin,
    token,
    persistDir,
    logFile,
    limits: { openFiles, liveDos: liveDoLimit(openFiles) },
    versions: { workerd: workerdVersion, miniflare: packageVersion("miniflare") },
    process: { name: "workerd", pid, exited },
    stop: async () => {
      if (stopping) return;
      stopping = true;
      await mf.dispose();
      log.end();
    },
  };
}
