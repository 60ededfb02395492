/**
 * The Azure stack's network rules as data: who may reach what. Pure, so the
 * rules are tested without Azure: SSH from the one configured source to the
 * runner only; the gateway from inside the VNet; the Engines' peer API, NATS
 * and Postgres from the Engine VMs only; the load balancer's health probe;
 * everything else (SSH to the Engines included) denied.
 */
import { validateSshSource } from "../benchmarkConfig";
import { CLOUD_NETWORK, CLOUD_PORTS } from "../../cluster/topology";

export interface SecurityRule {
  name: string;
  priority: number;
  direction: "Inbound";
  access: "Allow" | "Deny";
  protocol: "Tcp" | "*";
  sourceAddressPrefix: string;
  sourcePortRange: "*";
  destinationAddressPrefix: string;
  /** One port, or "*": Azure's list field refuses "*", so a rule with one port uses the single field. */
  destinationPortRange?: string;
  /** Two or more ports, never "*". */
  destinationPortRanges?: string[];
}

/** The ports a rule opens, whichever field holds them. */
export function portsOf(r: SecurityRule): string[] {
  return r.destinationPortRange !== undefined ? [r.destinationPortRange] : (r.destinationPortRanges ?? []);
}

function rule(
  name: string,
  priority: number,
  access: SecurityRule["access"],
  source: string,
  destination: string,
  ports: Array<number | string>,
  protocol: SecurityRule["protocol"] = "Tcp",
): SecurityRule {
  if (ports.length > 1 && ports.includes("*")) throw new Error(`NSG rule ${name}: "*" stands alone, never in a list of ports`);
  return {
    name,
    priority,
    direction: "Inbound",
    access,
    protocol,
    sourceAddressPrefix: source,
    sourcePortRange: "*",
    destinationAddressPrefix: destination,
    // The list field takes no "*" (NSG security rules: https://learn.microsoft.com/azure/virtual-network/network-security-groups-overview#security-rules).
    ...(ports.length === 1 ? { destinationPortRange: String(ports[0]) } : { destinationPortRanges: ports.map(String) }),
  };
}

/** The NSG of both subnets. `sshSource` is validated again here: this is where it would open a port. */
export function securityRules(sshSource: string, allowWide = false): SecurityRule[] {
  const source = validateSshSource(sshSource, allowWide);
  const n = CLOUD_NETWORK;
  const p = CLOUD_PORTS;
  return [
    rule("ssh-to-runner-from-operator", 100, "Allow", source, `${n.runnerAddress}/32`, [22]),
    // The gateway (actor calls, and the API behind the admin token) from the VNet: the runner reaches it.
    rule("gateway-from-vnet", 200, "Allow", n.vnet, n.subnet, [p.gateway]),
    // The peer API and metrics cannot authenticate in Engine 2.3.19, and NATS is not encrypted: only the Engine VMs
    // reach them, never the runner (the one host open to the internet).
    ...n.engineAddresses.map((a, i) =>
      rule(`engine-peer-nats-from-engine-${i + 1}`, 201 + i, "Allow", `${a}/32`, n.subnet, [
        p.apiPeer,
        p.metrics,
        p.natsClient,
        p.natsCluster,
      ]),
    ),
    // Postgres from the Engines alone: the runner (open to the operator's SSH) has no business with the Engines' database.
    ...n.engineAddresses.map((a, i) => rule(`postgres-from-engine-${i + 1}`, 211 + i, "Allow", `${a}/32`, n.postgresSubnet, [p.postgres])),
    // Zone-redundant HA: the primary and its standby replicate inside their delegated subnet.
    rule("postgres-ha-within-subnet", 225, "Allow", n.postgresSubnet, n.postgresSubnet, ["*"], "*"),
    // No SSH inside the VNet: the Engine VMs are set up by cloud-init alone, so nothing (the runner least) logs in to them.
    rule("lb-health-probe", 240, "Allow", "AzureLoadBalancer", "*", [p.gateway]),
    // Replaces Azure's default AllowVnetInBound: inside the VNet only the ports above are open.
    rule("deny-everything-else", 4000, "Deny", "*", "*", ["*"], "*"),
  ];
}

/** Engine VM i of three: its zone and its static address. */
export function engineVmPlan(zones: number[]): Array<{ name: string; zone: string; address: string }> {
  if (zones.length !== 3 || new Set(zones).size !== 3 || zones.some((z) => z < 1 || z > 3)) {
    throw new Error(`the Engine cluster needs three distinct Azure zones from 1 to 3, got ${zones.join(",")}`);
  }
  return zones.map((z, i) => ({ name: `engine-${i + 1}`, zone: String(z), address: CLOUD_NETWORK.engineAddresses[i] }));
}
