/**
 * The cloud's Engine topology on one machine: Postgres and three NATS members
 * from Debian, three Engine processes with the configs the cloud renders, and
 * haproxy (TCP mode) where Azure has its internal load balancer. The app talks
 * to the load balancer only, as on the runner VM.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { spawnManaged, type Managed } from "../../host/processes";
import { freePorts } from "../../host/ports";
import { waitUntil } from "../../host/waitFor";
import { startWithRestarts } from "../../host/startWithRestarts";
import { ENGINE_RESTART } from "../../../cluster/cloudInit";
import { engineEnv, type EngineSettings } from "../../../cluster/engineConfig";
import { engineBinaryPath, healthy, startLocalRivet, startRivetApp, type LocalRivet } from "./localRivet";
import { postgresBinDir, requireCommand, startLocalPostgres } from "./localPostgres";
import {
  NATS_USERS,
  renderClusterEngineConfig,
  renderHaproxyConfig,
  renderNatsConfig,
  type ClusterCredentials,
  type ClusterPlan,
} from "../../../cluster/topology";
import type { Plant } from "../plantSpec";

const HOST = "127.0.0.1";
/**
 * Addresses of the twin's "VMs" on the loopback, as the VNet has one per VM:
 * each Engine and its NATS member on its own, the load balancer on another,
 * so the load balancer can tell a backend's connection from a client's.
 */
const TWIN_ADDRESSES = { engines: ["127.0.1.11", "127.0.1.12", "127.0.1.13"], loadBalancer: "127.0.1.100" } as const;

export interface LocalCluster extends LocalRivet {
  plan: ClusterPlan;
  /** Failed starts of each Engine before it came up (they start together, as on the VMs). */
  engineRestarts: number[];
  /** Each node's own gateway, bypassing the load balancer. */
  nodeUrls: string[];
  engines: Managed[];
  postgres: Managed;
  /** Where Postgres listens on loopback; it takes only scram-sha-256 with the run's random password. */
  postgresPort: number;
  nats: Managed[];
  /** What an Engine connects to NATS with; a client without it is refused. */
  natsCredentials: { user: string; password: string };
  loadBalancer: Managed;
  /** SIGKILLs node `index`'s Engine and waits until it is gone. */
  killEngine(index: number): Promise<void>;
}

interface LocalClusterOptions {
  workDir: string;
  settings: EngineSettings;
  actorSleepTimeoutMs?: number;
  plant?: Plant;
  engineBinary?: string;
  startTimeoutMs?: number;
}

/** What every step of a cluster's start shares: its folder, its timeout, and the processes started so far (stopped on a failure). */
interface StartContext {
  w: string;
  timeout: number;
  started: Managed[];
  opts: LocalClusterOptions;
}

/** Ports and addresses of every node and of the load balancer. */
async function planCluster(): Promise<{ plan: ClusterPlan; pgPort: number }> {
  const ports = await freePorts(2 + 3 * 5);
  const [lbGateway, pgPort] = ports;
  const nodes = [0, 1, 2].map((i) => {
    const [gateway, apiPeer, metrics, natsClientPort, natsClusterPort] = ports.slice(2 + i * 5, 7 + i * 5);
    return {
      name: `engine-${i + 1}`,
      host: TWIN_ADDRESSES.engines[i],
      ports: { gateway, apiPeer, metrics },
      natsClientPort,
      natsClusterPort,
    };
  });
  const plan = { nodes, gatewayUrl: `http://${TWIN_ADDRESSES.loadBalancer}:${lbGateway}`, datacenter: { name: "default", label: 1 } };
  return { plan, pgPort };
}

/** The three NATS members, each ready before it returns: an Engine that finds no NATS listening exits at once. */
async function startNats(c: StartContext, command: string, plan: ClusterPlan, creds: ClusterCredentials): Promise<Managed[]> {
  const nats = plan.nodes.map((_node, i) => {
    const conf = join(c.w, `nats-${i + 1}.conf`);
    // Holds the NATS passwords: the owner only.
    writeFileSync(conf, renderNatsConfig(plan, i, creds), { mode: 0o600 });
    const logFile = join(c.w, `nats-${i + 1}.log`);
    const m = spawnManaged({ name: `nats-${i + 1}`, command, args: ["-c", conf], env: process.env, cwd: c.w, logFile });
    c.started.push(m);
    return m;
  });
  await Promise.all(
    nats.map((m, i) => {
      const log = join(c.w, `nats-${i + 1}.log`);
      return waitUntil("ready", m, log, c.timeout, () => existsSync(log) && readFileSync(log, "utf8").includes("Server is ready"));
    }),
  );
  return nats;
}

/**
 * The three Engines, all at once, as the VMs boot: a start that loses the race on the Postgres schema is tried again
 * after RestartSec, as the VMs' unit does (ENGINE_RESTART). Once up, an Engine that dies is a fault the run names, not restarted.
 */
async function startEngines(c: StartContext, binary: string, plan: ClusterPlan, configs: object[]) {
  const startEngine = async (i: number) => {
    const conf = join(c.w, `engine-${i + 1}.json`);
    const log = join(c.w, `engine-${i + 1}.log`);
    // Holds the Postgres password and the cluster's credentials: the owner only.
    writeFileSync(conf, JSON.stringify(configs[i], null, 2), { mode: 0o600 });
    const spawn = () => {
      const env = engineEnv(process.env, c.opts.settings);
      const m = spawnManaged({
        name: `rivet-engine-${i + 1}`,
        command: binary,
        args: ["start", "--config", conf],
        env,
        cwd: c.w,
        logFile: log,
      });
      c.started.push(m);
      return m;
    };
    let version = "unknown";
    const answers = async () => {
      const v = await healthy(`http://${plan.nodes[i].host}:${plan.nodes[i].ports.gateway}`);
      if (v) version = v;
      return v !== null;
    };
    const up = await startWithRestarts(`rivet-engine-${i + 1}`, spawn, ENGINE_RESTART, answers, log, c.timeout);
    return { m: up.process, version, restarts: up.restarts.length };
  };
  return Promise.all(plan.nodes.map((_, i) => startEngine(i)));
}

/** haproxy in TCP mode where Azure has its internal load balancer, refusing a backend's own connections as Azure's does. */
async function startLoadBalancer(c: StartContext, command: string, plan: ClusterPlan): Promise<Managed> {
  const lbConf = join(c.w, "haproxy.cfg");
  const lbLog = join(c.w, "haproxy.log");
  const backends = plan.nodes.map((n) => ({ host: n.host, port: n.ports.gateway }));
  const port = Number(new URL(plan.gatewayUrl).port);
  writeFileSync(
    lbConf,
    renderHaproxyConfig([
      { name: "gateway", bind: TWIN_ADDRESSES.loadBalancer, port, healthPath: "/health", refuseBackends: true, backends },
    ]),
  );
  const lb = spawnManaged({ name: "haproxy", command, args: ["-db", "-f", lbConf], env: process.env, cwd: c.w, logFile: lbLog });
  c.started.push(lb);
  const through = async () => (await healthy(plan.gatewayUrl)) !== null;
  await waitUntil("answering /health through the load balancer", lb, lbLog, c.timeout, through);
  return lb;
}

/** What the manifest records of the cluster's Engines: their configs with the secrets' places, not their values. */
function recordedConfig(configs: ReturnType<typeof renderClusterEngineConfig>[], restarts: number[]) {
  return {
    topology:
      "postgres-nats (3 engines, each on its own loopback address; haproxy in front, refusing a backend's own connections as Azure's internal load balancer does)",
    start: `all three at once, as the VMs boot; a failed start tried again after ${ENGINE_RESTART.restartSec} s (the VMs' unit policy)`,
    startRestarts: restarts,
    nodes: configs.map((cfg) => ({
      ...cfg,
      postgres: { url: "(local Postgres, scram-sha-256)" },
      auth: { admin_token: "(random per run, never written)" },
      nats: { ...cfg.nats, password: "(random per run, never written)" },
    })),
  };
}

/** Postgres, NATS, the Engines, the load balancer and the app, in that order; on a failure, everything started so far is stopped. */
export async function startLocalCluster(opts: LocalClusterOptions): Promise<LocalCluster> {
  const binary = opts.engineBinary ?? engineBinaryPath();
  postgresBinDir(); // names the missing package before anything starts
  const natsServer = requireCommand("/usr/sbin/nats-server", "nats-server");
  const haproxy = requireCommand("/usr/sbin/haproxy", "haproxy");
  const c: StartContext = { w: opts.workDir, timeout: opts.startTimeoutMs ?? 60_000, started: [], opts };
  mkdirSync(c.w, { recursive: true });
  const { plan, pgPort } = await planCluster();
  const stopStarted = async () => {
    for (const m of [...c.started].reverse()) await m.stop();
  };
  try {
    const pg = await startLocalPostgres({ workDir: c.w, host: HOST, port: pgPort, timeoutMs: c.timeout });
    c.started.push(pg.process);
    // The cluster authenticates: an admin token for the Engines' API, passwords for NATS clients and routes, new each run.
    const secret = () => randomBytes(24).toString("hex");
    const creds: ClusterCredentials = { adminToken: secret(), natsPassword: secret(), natsRoutePassword: secret() };
    const nats = await startNats(c, natsServer, plan, creds);
    const configs = plan.nodes.map((_, i) => renderClusterEngineConfig(plan, i, pg.url, opts.settings, creds));
    const up = await startEngines(c, binary, plan, configs);
    const engines = up.map((e) => e.m);
    const loadBalancer = await startLoadBalancer(c, haproxy, plan);
    const appLog = join(c.w, "app.log");
    const startApp = () =>
      startRivetApp({
        gatewayUrl: plan.gatewayUrl,
        workDir: c.w,
        appLog,
        settings: opts.settings,
        actorSleepTimeoutMs: opts.actorSleepTimeoutMs,
        plant: opts.plant,
        timeoutMs: c.timeout,
        adminToken: creds.adminToken,
      });
    const app = await startApp();
    c.started.push(app);
    const cluster: LocalCluster = {
      plan,
      engineRestarts: up.map((e) => e.restarts),
      gatewayUrl: plan.gatewayUrl,
      adminToken: creds.adminToken,
      natsCredentials: { user: NATS_USERS.client, password: creds.natsPassword },
      nodeUrls: plan.nodes.map((n) => `http://${n.host}:${n.ports.gateway}`),
      ports: plan.nodes[0].ports,
      engineVersion: up[0].version,
      engineBinary: binary,
      engineConfig: recordedConfig(
        configs,
        up.map((e) => e.restarts),
      ),
      engine: engines[0],
      engines,
      postgres: pg.process,
      postgresPort: pg.port,
      nats,
      loadBalancer,
      app,
      engineLog: join(c.w, "engine-1.log"),
      appLog,
      async restartApp() {
        await cluster.app.stop();
        cluster.app = await startApp();
        c.started.push(cluster.app);
      },
      processes: () => [pg.process, ...nats, ...engines, loadBalancer, cluster.app],
      async killEngine(index: number) {
        engines[index].child.kill("SIGKILL");
        await engines[index].exited;
      },
      stop: stopStarted,
    };
    return cluster;
  } catch (err) {
    await stopStarted();
    throw err;
  }
}

/** The Engine the run measures: one process on its file system, or the cloud's three-node topology. */
export function startEngineTopology(
  topology: "single" | "cluster",
  opts: { workDir: string; settings: EngineSettings; actorSleepTimeoutMs?: number; plant?: Plant; engineBinary?: string },
): Promise<LocalRivet> {
  return topology === "cluster" ? startLocalCluster(opts) : startLocalRivet(opts);
}
