/**
 * A long-lived local runtime for the Pulumi `local` stack: the Engine + app, or
 * the Worker on workerd, kept running after the process that started it (the
 * dynamic-provider host) is gone.
 *
 *   node dist/workloads/run/daemon.js rivet|cloudflare <stateDir>   (options JSON on stdin)
 *
 * When ready it writes <stateDir>/ready.json (endpoints, versions, child pids;
 * never the token). SIGTERM stops its children and exits 0; a child that dies on
 * its own ends the daemon with exit 1, so a refresh sees it gone. Children run
 * under a parent-death signal: even a SIGKILLed daemon leaves none behind.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEngineTopology } from "../sides/rivet/localCluster";
import { startLocalWorker } from "../sides/cloudflare/localWorker";
import { stopAll } from "../host/processes";
import type { EngineSettings } from "../../cluster/engineConfig";

export interface RivetDaemonOptions {
  settings: EngineSettings;
  actorSleepTimeoutMs: number;
  topology?: "single" | "cluster";
}

export interface CloudflareDaemonOptions {
  token: string;
}

function writeReady(stateDir: string, ready: Record<string, unknown>): void {
  const path = join(stateDir, "ready.json");
  writeFileSync(`${path}.tmp`, JSON.stringify({ ...ready, daemonPid: process.pid }, null, 2) + "\n");
  renameSync(`${path}.tmp`, path);
}

/** Where a rivet daemon keeps the Engine's admin token, when it has one (in its 0700 state folder). */
const ADMIN_TOKEN_FILE = "admin-token";

async function main(kind: string | undefined, stateDir: string | undefined): Promise<void> {
  if (!stateDir || (kind !== "rivet" && kind !== "cloudflare")) {
    throw new Error("usage: daemon.js rivet|cloudflare <stateDir> (options JSON on stdin)");
  }
  const options = JSON.parse(readFileSync(0, "utf8"));
  if (kind === "rivet") {
    const o = options as RivetDaemonOptions;
    const rivet = await startEngineTopology(o.topology ?? "single", { workDir: stateDir, settings: o.settings, actorSleepTimeoutMs: o.actorSleepTimeoutMs });
    let stopping = false;
    for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => (stopping = true));
    for (const m of [rivet.engine, rivet.app]) {
      void m.exited.then(({ code, signal }) => {
        if (stopping) return;
        console.error(`${m.name} exited (code ${code}, signal ${signal}); stopping`);
        void stopAll().finally(() => process.exit(1));
      });
    }
    // The cluster's admin token stays on this machine in a file only the owner reads, never in Pulumi's state.
    const adminTokenFile = rivet.adminToken ? join(stateDir, ADMIN_TOKEN_FILE) : undefined;
    if (adminTokenFile) writeFileSync(adminTokenFile, rivet.adminToken!, { mode: 0o600 });
    writeReady(stateDir, {
      kind,
      gatewayUrl: rivet.gatewayUrl,
      ...(adminTokenFile ? { adminTokenFile } : {}),
      engineVersion: rivet.engineVersion,
      engineConfig: rivet.engineConfig,
      enginePid: rivet.engine.child.pid,
      appPid: rivet.app.child.pid,
      engineLog: rivet.engineLog,
      appLog: rivet.appLog,
    });
  } else {
    const o = options as CloudflareDaemonOptions;
    if (typeof o.token !== "string" || o.token.length < 32) throw new Error("cloudflare daemon: options.token must be a string of 32+ characters");
    const worker = await startLocalWorker({ workDir: stateDir, token: o.token });
    const stop = () => void worker.stop().finally(() => process.exit(0));
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    writeReady(stateDir, { kind, url: worker.url, versions: worker.versions, persistDir: worker.persistDir });
  }
  console.error(`actor-bench ${kind} daemon ready (pid ${process.pid})`);
}

main(process.argv[2], process.argv[3]).catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  void stopAll().finally(() => process.exit(1));
});
