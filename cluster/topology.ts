/**
 * The Engine cluster as data: which topology an Engine version needs, the
 * address plan, and the rendered config of each Engine, NATS member and (for
 * the local twin) the TCP load balancer. Pure: the Azure component and the
 * local three-node run render from the same functions.
 */
import { ClusterConfigError } from "./clusterConfigError";
import { ENGINE_CAPS, runtimeSection, type EnginePorts, type EngineSettings } from "./engineConfig";

/** 2.3.x: several Engines share one Postgres and talk through NATS. */
type Topology = "postgres-nats";

export function topologyFor(engineVersion: string): Topology {
  const major = Number(engineVersion.split(".")[0]);
  if (major === 2) return "postgres-nats";
  throw new ClusterConfigError(
    `config actor-bench:engineVersion: "${engineVersion}" has no cluster topology here; 2.x runs on Postgres + NATS. ` +
      "The reference's 3.x engine (partitions replicated on local NVMe, Blob cold tier) is not published on npm and its config schema could not be verified (README: Engine cluster)",
  );
}

interface ClusterNode {
  name: string;
  /** Address the node's Engine and NATS member listen on. */
  host: string;
  ports: EnginePorts;
  natsClientPort: number;
  natsClusterPort: number;
}

export interface ClusterPlan {
  nodes: ClusterNode[];
  /** What the app and the driver use: the load balancer in front of the gateways. No Engine uses it (nodeUrls). */
  gatewayUrl: string;
  datacenter: { name: string; label: number };
}

/** Ports the cloud VMs use: one Engine and one NATS member per VM, so every VM has the same. */
export const CLOUD_PORTS = { gateway: 6420, apiPeer: 6421, metrics: 6430, natsClient: 4222, natsCluster: 6222, postgres: 5432 } as const;

/** The VNet plan of the Azure stack: static addresses, so every config can be rendered before a VM exists. */
export const CLOUD_NETWORK = {
  vnet: "10.40.0.0/16",
  subnet: "10.40.1.0/24",
  postgresSubnet: "10.40.2.0/24",
  engineAddresses: ["10.40.1.11", "10.40.1.12", "10.40.1.13"],
  loadBalancerAddress: "10.40.1.100",
  runnerAddress: "10.40.1.50",
} as const;

export function cloudClusterPlan(): ClusterPlan {
  const p = CLOUD_PORTS;
  return {
    nodes: CLOUD_NETWORK.engineAddresses.map((host, i) => ({
      name: `engine-${i + 1}`,
      host,
      ports: { gateway: p.gateway, apiPeer: p.apiPeer, metrics: p.metrics },
      natsClientPort: p.natsClient,
      natsClusterPort: p.natsCluster,
    })),
    gatewayUrl: `http://${CLOUD_NETWORK.loadBalancerAddress}:${p.gateway}`,
    datacenter: { name: "default", label: 1 },
  };
}

/**
 * What the cluster authenticates with: the Engine's admin token (its public
 * API and runner registration; actor calls through the gateway stay public,
 * as the Engine has them), and the NATS passwords of its clients (the
 * Engines) and of the routes between its members.
 */
export interface ClusterCredentials {
  adminToken: string;
  natsPassword: string;
  natsRoutePassword: string;
}

/** The NATS users: the Engines connect as `client`, the members route to each other as `route`. */
export const NATS_USERS = { client: "rivet", route: "route" } as const;

/** Credentials go into JSON, NATS config and route URLs unquoted: letters and digits only, 32 to 128 of them. */
function checkCredentials(c: ClusterCredentials): ClusterCredentials {
  for (const [k, v] of Object.entries(c)) {
    if (typeof v !== "string" || !/^[A-Za-z0-9]{32,128}$/.test(v))
      throw new ClusterConfigError(`cluster credential ${k} must be 32 to 128 letters and digits`);
  }
  return c;
}

/**
 * The URLs an Engine gives for its datacenter: its own gateway and api_peer,
 * never the internal load balancer it sits behind. A backend's flow to its own
 * load balancer's frontend fails on Azure when it is mapped back to itself
 * (https://learn.microsoft.com/azure/load-balancer/load-balancer-troubleshoot-backend-traffic),
 * and every Engine of the one datacenter serves the same API, so its own is as good as any.
 */
export function nodeUrls(node: ClusterNode): { public_url: string; peer_url: string } {
  return { public_url: `http://${node.host}:${node.ports.gateway}`, peer_url: `http://${node.host}:${node.ports.apiPeer}` };
}

/**
 * The config of node `index`: shared Postgres, NATS (its own member first,
 * with the client password), the admin token, one datacenter whose public
 * and peer URLs are the node's own (nodeUrls).
 */
export function renderClusterEngineConfig(
  plan: ClusterPlan,
  index: number,
  postgresUrl: string,
  settings: EngineSettings,
  creds: ClusterCredentials,
  postgresRootCert?: string,
) {
  const node = plan.nodes[index];
  if (!node) throw new Error(`no node ${index} in a ${plan.nodes.length}-node plan`);
  checkCredentials(creds);
  const own = `${node.host}:${node.natsClientPort}`;
  const others = plan.nodes.filter((n) => n !== node).map((n) => `${n.host}:${n.natsClientPort}`);
  return {
    postgres: { url: postgresUrl, ...(postgresRootCert ? { ssl: { root_cert_path: postgresRootCert } } : {}) },
    nats: { addresses: [own, ...others], username: NATS_USERS.client, password: creds.natsPassword },
    auth: { admin_token: creds.adminToken },
    telemetry: { enabled: false },
    topology: {
      datacenter_label: plan.datacenter.label,
      datacenters: {
        [plan.datacenter.name]: { datacenter_label: plan.datacenter.label, is_leader: true, ...nodeUrls(node) },
      },
    },
    guard: { host: node.host, port: node.ports.gateway, tcp_nodelay: settings.tcpNodelay, ...ENGINE_CAPS.guard },
    pegboard: { ...ENGINE_CAPS.pegboard },
    ...runtimeSection(settings),
    api_peer: { host: node.host, port: node.ports.apiPeer },
    metrics: { host: node.host, port: node.ports.metrics },
  };
}

/**
 * nats-server config of node `index`: a member of one cluster with routes to
 * the others; clients and routes both need their user's password. (The
 * Engine's NATS client has no TLS setting in 2.3.19, so the links are not
 * encrypted; they stay inside the VNet.)
 */
export function renderNatsConfig(plan: ClusterPlan, index: number, creds: ClusterCredentials): string {
  const node = plan.nodes[index];
  if (!node) throw new Error(`no node ${index} in a ${plan.nodes.length}-node plan`);
  checkCredentials(creds);
  // Quoted: nats-server reads an unquoted value that starts with a digit (a hex or random password may) as a number and refuses the file.
  const routes = plan.nodes
    .filter((n) => n !== node)
    .map((n) => `    "nats://${NATS_USERS.route}:${creds.natsRoutePassword}@${n.host}:${n.natsClusterPort}"`);
  return [
    `server_name: ${node.name}`,
    `listen: "${node.host}:${node.natsClientPort}"`,
    "authorization {",
    `  user: ${NATS_USERS.client}`,
    `  password: "${creds.natsPassword}"`,
    "}",
    "cluster {",
    "  name: actor-bench",
    `  listen: "${node.host}:${node.natsClusterPort}"`,
    "  authorization {",
    `    user: ${NATS_USERS.route}`,
    `    password: "${creds.natsRoutePassword}"`,
    "  }",
    "  routes: [",
    ...routes,
    "  ]",
    "}",
    "",
  ].join("\n");
}

interface TcpFrontend {
  name: string;
  bind: string;
  port: number;
  backends: Array<{ host: string; port: number }>;
  /** HTTP path the health check asks (a TCP connect check when absent). */
  healthPath?: string;
  /**
   * Refuse a connection that comes from a backend's own address, as Azure's
   * internal load balancer fails a backend's flow to its own frontend
   * (https://learn.microsoft.com/azure/load-balancer/load-balancer-troubleshoot-backend-traffic).
   * Azure fails it when the flow maps back to the sender; the twin refuses every one, so a test sees it each time.
   */
  refuseBackends?: boolean;
}

/**
 * haproxy in TCP mode: the local stand-in for Azure's internal load balancer
 * (layer 4, health-probed backends, round robin).
 */
export function renderHaproxyConfig(frontends: TcpFrontend[]): string {
  const lines = [
    "global",
    "  maxconn 8192",
    "defaults",
    "  mode tcp",
    "  timeout connect 2s",
    "  timeout client 120s",
    "  timeout server 120s",
    "",
  ];
  for (const f of frontends) {
    lines.push(`frontend ${f.name}`, `  bind ${f.bind}:${f.port}`);
    if (f.refuseBackends) lines.push(`  tcp-request connection reject if { src ${[...new Set(f.backends.map((b) => b.host))].join(" ")} }`);
    lines.push(`  default_backend ${f.name}_nodes`, "");
    lines.push(`backend ${f.name}_nodes`, "  balance roundrobin");
    if (f.healthPath) lines.push("  option httpchk", `  http-check send meth GET uri ${f.healthPath}`, "  http-check expect status 200");
    f.backends.forEach((b, i) => lines.push(`  server n${i + 1} ${b.host}:${b.port} check inter 500ms fall 2 rise 2`));
    lines.push("");
  }
  return lines.join("\n");
}
