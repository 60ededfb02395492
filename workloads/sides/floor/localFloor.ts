import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../host/ports";
import { spawnManaged, type Managed } from "../../host/processes";
import { waitUntil } from "../../host/waitFor";
import { plantText, type Plant } from "../plantSpec";

export interface LocalFloor {
  url: string;
  server: Managed;
  dataDir: string;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts the floor server (server.ts) for one run: its own Node process on
 * 127.0.0.1, SQLite files under `workDir`. `idleCloseMs` is the actor sleep
 * timeout the Rivet app gets, so an idle floor "actor" closes when an idle
 * Rivet Actor would sleep. `plant` (a planted change) is spun in the actions it names before their reply.
 */
export async function startLocalFloor(o: { workDir: string; idleCloseMs: number; plant?: Plant }): Promise<LocalFloor> {
  const dataDir = join(o.workDir, "floor-data");
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const logFile = join(o.workDir, "floor.log");
  // From the compiled tree: next to this file when it runs from dist/, else dist/ of the checkout (under vitest).
  const entry = [join(__dirname, "server.js"), join(__dirname, "..", "..", "..", "dist", "workloads", "sides", "floor", "server.js")].find(
    (f) => existsSync(f),
  );
  if (!entry) throw new Error(`the floor server is not built (no ${join(__dirname, "server.js")}): run \`npm run build\` first`);
  const server = spawnManaged({
    name: "floor-server",
    command: process.execPath,
    args: [entry, String(port), dataDir, String(o.idleCloseMs), plantText(o.plant ?? {})],
    env: process.env,
    logFile,
  });
  await waitUntil("the floor server listening", server, logFile, 15_000, () => readFileSync(logFile, "utf8").includes("listening"));
  return { url: `http://127.0.0.1:${port}`, server, dataDir, logFile, stop: () => server.stop() };
}
