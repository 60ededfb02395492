import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "undici";
import { getEnginePath } from "@rivetkit/engine-cli";
import { spawnManaged, type Managed } from "../../host/processes";
import { assertPortFree, freePorts } from "../../host/ports";
import { waitUntil } from "../../host/waitFor";
import { engineEnv, renderEngineConfig, type EnginePorts, type EngineSettings } from "../../../cluster/engineConfig";
import { hasPlant, plantText, type Plant } from "../plantSpec";

interface LocalRivetOptions {
  /** Directory for the engine's data, config and both logs (created). */
  workDir: string;
  settings: EngineSettings;
  /** Fixed ports; free ones are chosen when absent. */
  ports?: EnginePorts;
  /** Idle time after which the app's actors sleep on their own (RivetKit's sleepTimeout). */
  actorSleepTimeoutMs?: number;
  /** A planted delay, microseconds by operation (--plant-delay-us). */
  plant?: Plant;
  /** The Engine binary to run; absent: the installed package's (engineBinaryPath). */
  engineBinary?: string;
  startTimeoutMs?: number;
  /** Keys merged over a section of the rendered config (e.g. a lower cap, to see it act); runs never set it. */
  configOverride?: Record<string, Record<string, unknown>>;
}

export interface LocalRivet {
  gatewayUrl: string;
  /** The Engine's admin token, where it requires one (the three-node cluster): its API refuses calls without it. */
  adminToken?: string;
  ports: EnginePorts;
  engineVersion: string;
  engineBinary: string;
  engineConfig: unknown;
  engine: Managed;
  app: Managed;
  engineLog: string;
  appLog: string;
  /** Starts the app again (after it was stopped or killed) and waits for it to register. */
  restartApp(): Promise<void>;
  /** Every process the runtime is made of now: a run watches them all for an exit it did not ask for. */
  processes(): Managed[];
  stop(): Promise<void>;
}

const APP_READY_LINE = "actor-bench app: registered with the engine";

/** Path of the engine binary shipped in the npm package for this platform, or a clear error. */
export function engineBinaryPath(): string {
  let path: string;
  try {
    path = getEnginePath();
  } catch (err) {
    throw new Error(
      `No Rivet Engine binary for ${process.platform}/${process.arch}: ${(err as Error).message}\n` +
        "Install with optional dependencies (npm ci --include=optional) or set RIVET_ENGINE_BINARY to a rivet-engine binary.",
    );
  }
  if (!existsSync(path)) {
    throw new Error(`Rivet Engine binary not found at ${path}. Reinstall with \`npm ci\`, or set RIVET_ENGINE_BINARY.`);
  }
  return path;
}

/** The compiled app: beside this file when running from dist/, else the build output of `npm run build`. */
function appEntryPath(): string {
  const candidates = [join(__dirname, "app.js"), join(__dirname, "..", "..", "..", "dist", "workloads", "sides", "rivet", "app.js")];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`The RivetKit app is not built (looked for ${candidates.join(", ")}): run \`npm run build\` first.`);
  return found;
}

/** The Engine's version when `url`/health answers ok, else null. */
export async function healthy(url: string): Promise<string | null> {
  try {
    const res = await request(`${url}/health`, { headersTimeout: 1000, bodyTimeout: 1000 });
    const body = (await res.body.json()) as { status?: string; version?: string };
    return res.statusCode === 200 && body.status === "ok" ? (body.version ?? "unknown") : null;
  } catch {
    return null;
  }
}

/** Environment of the RivetKit app: points it at the engine (with its admin token, when it has one), no local services, no backtraces. */
export function appEnv(
  parent: NodeJS.ProcessEnv,
  gatewayUrl: string,
  settings: EngineSettings,
  sleepTimeoutMs?: number,
  adminToken?: string,
  plant?: Plant,
) {
  const env = engineEnv(parent, settings);
  env.RIVET_ENDPOINT = gatewayUrl;
  delete env.RIVET_TOKEN;
  if (adminToken) env.RIVET_TOKEN = adminToken;
  env.RIVET_NAMESPACE = "default";
  env.RIVET_RUN_SERVICES = "0";
  env.RIVET_LOG_LEVEL = env.RIVET_LOG_LEVEL ?? "warn";
  if (sleepTimeoutMs !== undefined) env.BENCH_ACTOR_SLEEP_TIMEOUT_MS = String(sleepTimeoutMs);
  delete env.BENCH_PLANT;
  if (plant && hasPlant(plant)) env.BENCH_PLANT = plantText(plant);
  return env;
}

/** Starts the RivetKit app against `gatewayUrl` and waits until it has registered with the Engine. */
export async function startRivetApp(o: {
  gatewayUrl: string;
  workDir: string;
  appLog: string;
  settings: EngineSettings;
  actorSleepTimeoutMs?: number;
  plant?: Plant;
  timeoutMs: number;
  adminToken?: string;
}): Promise<Managed> {
  const before = existsSync(o.appLog) ? readFileSync(o.appLog, "utf8").length : 0;
  const app = spawnManaged({
    name: "rivetkit-app",
    command: process.execPath,
    args: [appEntryPath()],
    env: appEnv(process.env, o.gatewayUrl, o.settings, o.actorSleepTimeoutMs, o.adminToken, o.plant),
    cwd: o.workDir,
    logFile: o.appLog,
  });
  await waitUntil("registering with the engine", app, o.appLog, o.timeoutMs, () =>
    readFileSync(o.appLog, "utf8").slice(before).includes(APP_READY_LINE),
  );
  return app;
}

/** The ports asked for, each checked free, or three free ones. */
async function enginePorts(asked: LocalRivetOptions["ports"]): Promise<NonNullable<LocalRivetOptions["ports"]>> {
  if (!asked) {
    const [gateway, apiPeer, metrics] = await freePorts(3);
    return { gateway, apiPeer, metrics };
  }
  await assertPortFree(asked.gateway, "127.0.0.1", "Engine gateway port");
  await assertPortFree(asked.apiPeer, "127.0.0.1", "Engine api_peer port");
  await assertPortFree(asked.metrics, "127.0.0.1", "Engine metrics port");
  return asked;
}

export async function startLocalRivet(opts: LocalRivetOptions): Promise<LocalRivet> {
  const binary = opts.engineBinary ?? engineBinaryPath();
  mkdirSync(opts.workDir, { recursive: true });
  const ports = await enginePorts(opts.ports);
  const config: Record<string, unknown> = renderEngineConfig(join(opts.workDir, "engine-data"), ports, opts.settings);
  for (const [section, keys] of Object.entries(opts.configOverride ?? {}))
    config[section] = { ...(config[section] as object | undefined), ...keys };
  const configPath = join(opts.workDir, "engine.json");
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const engineLog = join(opts.workDir, "engine.log");
  const appLog = join(opts.workDir, "app.log");
  const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
  const timeout = opts.startTimeoutMs ?? 60_000;

  const engine = spawnManaged({
    name: "rivet-engine",
    command: binary,
    args: ["start", "--config", configPath],
    env: engineEnv(process.env, opts.settings),
    cwd: opts.workDir,
    logFile: engineLog,
  });
  let engineVersion = "unknown";
  try {
    await waitUntil("answering /health", engine, engineLog, timeout, async () => {
      const v = await healthy(gatewayUrl);
      if (v) engineVersion = v;
      return v !== null;
    });
  } catch (err) {
    await engine.stop();
    throw err;
  }

  const startApp = () =>
    startRivetApp({
      gatewayUrl,
      workDir: opts.workDir,
      appLog,
      settings: opts.settings,
      actorSleepTimeoutMs: opts.actorSleepTimeoutMs,
      plant: opts.plant,
      timeoutMs: timeout,
    });

  let app: Managed;
  try {
    app = await startApp();
  } catch (err) {
    await engine.stop();
    throw err;
  }

  const handle: LocalRivet = {
    gatewayUrl,
    ports,
    engineVersion,
    engineBinary: binary,
    engineConfig: config,
    engine,
    app,
    engineLog,
    appLog,
    async restartApp() {
      await handle.app.stop();
      handle.app = await startApp();
    },
    processes: () => [engine, handle.app],
    async stop() {
      await handle.app.stop();
      await engine.stop();
    },
  };
  return handle;
}
