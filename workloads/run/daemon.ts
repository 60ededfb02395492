/**
 * A long-lived local runtime for the Pulumi `local` stack, any side's:
 * started by the side's own launch (the one `npm start` uses), kept running
 * after the process that started it (the dynamic-provider host) is gone.
 *
 *   node dist/workloads/run/daemon.js <side> <stateDir>   (options JSON on stdin)
 *
 * The options are the side's run settings and the secrets the stack holds for
 * it. When ready it writes <stateDir>/ready.json: the target as the side's
 * package describes it without its secrets, each secret it made in a file
 * only the owner reads (named there), and the pids of its processes. SIGTERM
 * stops its children and exits 0; a child that dies on its own ends the
 * daemon with exit 1, so a refresh sees it gone. Children run under a
 * parent-death signal: even a SIGKILLed daemon leaves none behind.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stopAll } from "../host/processes";
import { SIDE_REGISTRY, sideOf } from "../sides/registry";
import type { SideRunSettings } from "../sides/side";

/** What a stack's provider sends a daemon on stdin. */
export interface DaemonOptions {
  settings: SideRunSettings;
  /** Secrets the stack holds for the runtime (a token its runtime checks): never in argv, never written by the daemon. */
  secrets?: Record<string, string>;
}

function writeReady(stateDir: string, ready: Record<string, unknown>): void {
  const path = join(stateDir, "ready.json");
  writeFileSync(`${path}.tmp`, `${JSON.stringify({ ...ready, daemonPid: process.pid }, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

async function main(kind: string | undefined, stateDir: string | undefined): Promise<void> {
  if (!stateDir || !kind)
    throw new Error(
      `usage: daemon.js <side> <stateDir> (options JSON on stdin); sides: ${SIDE_REGISTRY.map((d) => d.profile.id).join(", ")}`,
    );
  const side = sideOf(SIDE_REGISTRY, kind);
  if (!side.daemonTarget) throw new Error(`${kind}: the side has no daemon for a stack (its package gives no daemonTarget)`);
  const o = JSON.parse(readFileSync(0, "utf8")) as DaemonOptions;
  const launched = await side.launch(o.settings, stateDir, o.secrets);
  let stopping = false;
  const stop = () => {
    stopping = true;
    void launched.stop().finally(() => process.exit(0));
  };
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, stop);
  for (const p of launched.processes) {
    void p.exited.then(({ code, signal }) => {
      if (stopping) return;
      console.error(`${p.name} exited (code ${code}, signal ${signal}); stopping`);
      void stopAll().finally(() => process.exit(1));
    });
  }
  const { target, secrets, endpoint, health } = side.daemonTarget(launched.target);
  // Each secret stays on this machine in a file only the owner reads, never in Pulumi's state.
  const secretFiles = Object.fromEntries(
    Object.entries(secrets).map(([name, value]) => {
      const file = join(stateDir, `secret-${name}`);
      writeFileSync(file, value, { mode: 0o600 });
      return [name, file];
    }),
  );
  writeReady(stateDir, {
    kind,
    target,
    endpoint,
    health,
    secretFiles,
    pids: launched.processes.map((p) => p.pid).filter((p) => typeof p === "number"),
  });
  console.error(`actor-bench ${kind} daemon ready (pid ${process.pid})`);
}

main(process.argv[2], process.argv[3]).catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  void stopAll().finally(() => process.exit(1));
});
