import * as pulumi from "@pulumi/pulumi";
import * as network from "@pulumi/azure-native/network";
import * as resources from "@pulumi/azure-native/resources";
import { CLOUD_NETWORK, CLOUD_PORTS } from "../../cluster/topology";
import { securityRules } from "./networkRules";
import { fixedNames } from "./names";

interface BenchNetworkArgs {
  /** The stack: fixed names inside the resource group carry it (names.ts). */
  stack: string;
  location: string;
  /** Build in this existing group; when absent the component makes its own. */
  resourceGroupName?: string;
  sshSourceAddress: string;
  /** The operator means a source wider than /24 (/56). */
  sshSourceWide?: boolean;
  zones: number[];
  subscriptionId: pulumi.Input<string>;
  /** Nothing in the group is asked for before this resolves (the pass's checks); a rejection stops the pass there. */
  gate?: pulumi.Input<unknown>;
}

/**
 * The stack's network: a VNet with the bench subnet and a subnet delegated to
 * Postgres, one NSG on both (rules in networkRules.ts), a NAT gateway for the
 * VMs' outbound installs, and a zone-redundant internal load balancer in
 * front of the Engine gateways (for the runner: no Engine addresses it, cluster/topology.ts nodeUrls).
 */
export class BenchNetwork extends pulumi.ComponentResource {
  readonly resourceGroupName: pulumi.Output<string>;
  readonly vnetId: pulumi.Output<string>;
  readonly subnetId: pulumi.Output<string>;
  readonly postgresSubnetId: pulumi.Output<string>;
  readonly backendPoolId: pulumi.Output<string>;
  readonly loadBalancer: network.LoadBalancer;
  readonly securityGroup: network.NetworkSecurityGroup;

  constructor(name: string, args: BenchNetworkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:azure:Network", name, {}, opts);
    const parent = { parent: this };
    const location = args.location;
    const gate = pulumi.output(args.gate ?? true);
    this.resourceGroupName = args.resourceGroupName
      ? pulumi.all([args.resourceGroupName, gate]).apply(([rg]) => rg)
      : new resources.ResourceGroup(`${name}-rg`, { location: gate.apply(() => location) }, parent).name;
    const resourceGroupName = this.resourceGroupName;

    this.securityGroup = new network.NetworkSecurityGroup(
      `${name}-nsg`,
      { resourceGroupName, location, securityRules: securityRules(args.sshSourceAddress, args.sshSourceWide ?? false) },
      parent,
    );
    const vnet = new network.VirtualNetwork(
      `${name}-vnet`,
      { resourceGroupName, location, addressSpace: { addressPrefixes: [CLOUD_NETWORK.vnet] } },
      { ...parent, ignoreChanges: ["subnets"] },
    );
    this.vnetId = vnet.id;

    const natIp = new network.PublicIPAddress(
      `${name}-nat-ip`,
      { resourceGroupName, location, sku: { name: "Standard" }, publicIPAllocationMethod: "Static" },
      parent,
    );
    const nat = new network.NatGateway(
      `${name}-nat`,
      { resourceGroupName, location, sku: { name: "Standard" }, publicIpAddresses: [{ id: natIp.id }] },
      parent,
    );

    const subnet = new network.Subnet(
      `${name}-bench`,
      {
        resourceGroupName,
        virtualNetworkName: vnet.name,
        addressPrefix: CLOUD_NETWORK.subnet,
        networkSecurityGroup: { id: this.securityGroup.id },
        natGateway: { id: nat.id },
      },
      parent,
    );
    this.subnetId = subnet.id;
    const pgSubnet = new network.Subnet(
      `${name}-postgres`,
      {
        resourceGroupName,
        virtualNetworkName: vnet.name,
        addressPrefix: CLOUD_NETWORK.postgresSubnet,
        networkSecurityGroup: { id: this.securityGroup.id },
        delegations: [{ name: "postgres-flexible", serviceName: "Microsoft.DBforPostgreSQL/flexibleServers" }],
      },
      { ...parent, dependsOn: [subnet] },
    );
    this.postgresSubnetId = pgSubnet.id;

    const lbName = fixedNames(args.stack).loadBalancer;
    const lbId = pulumi.interpolate`/subscriptions/${args.subscriptionId}/resourceGroups/${resourceGroupName}/providers/Microsoft.Network/loadBalancers/${lbName}`;
    const frontend = { id: pulumi.interpolate`${lbId}/frontendIPConfigurations/engines` };
    const pool = { id: pulumi.interpolate`${lbId}/backendAddressPools/engines` };
    const probe = { id: pulumi.interpolate`${lbId}/probes/engine-health` };
    const lbRule = (ruleName: string, port: number) => ({
      name: ruleName,
      protocol: "Tcp",
      frontendPort: port,
      backendPort: port,
      frontendIPConfiguration: frontend,
      backendAddressPool: pool,
      probe,
      idleTimeoutInMinutes: 30,
      enableTcpReset: true,
      loadDistribution: "Default",
    });
    this.loadBalancer = new network.LoadBalancer(
      `${name}-lb`,
      {
        resourceGroupName,
        location,
        loadBalancerName: lbName,
        sku: { name: "Standard", tier: "Regional" },
        frontendIPConfigurations: [
          {
            name: "engines",
            subnet: { id: subnet.id },
            privateIPAllocationMethod: "Static",
            privateIPAddress: CLOUD_NETWORK.loadBalancerAddress,
            // A frontend in every configured zone: zone-redundant.
            zones: args.zones.map(String),
          },
        ],
        backendAddressPools: [{ name: "engines" }],
        probes: [
          {
            name: "engine-health",
            protocol: "Http",
            port: CLOUD_PORTS.gateway,
            requestPath: "/health",
            intervalInSeconds: 5,
            numberOfProbes: 2,
          },
        ],
        loadBalancingRules: [lbRule("gateway", CLOUD_PORTS.gateway)],
      },
      parent,
    );
    this.backendPoolId = pulumi.interpolate`${this.loadBalancer.id}/backendAddressPools/engines`;
    this.registerOutputs({ resourceGroupName, vnetId: this.vnetId, subnetId: this.subnetId, loadBalancerId: this.loadBalancer.id });
  }
}
