import * as pulumi from "@pulumi/pulumi";
import type * as compute from "@pulumi/azure-native/compute";
import * as dbforpostgresql from "@pulumi/azure-native/dbforpostgresql";
import * as privatedns from "@pulumi/azure-native/privatedns";
import * as random from "@pulumi/random";
import { renderEngineCloudInit } from "../../cluster/cloudInit";
import { engineRelease } from "../../cluster/engineRelease";
import { cloudClusterPlan, nodeUrls, topologyFor, CLOUD_PORTS } from "../../cluster/topology";
import { engineVmPlan } from "./networkRules";
import { linuxVm } from "./linuxVm";
import { fixedNames } from "./names";
import type { ClusterCredentials } from "../../cluster/topology";

export interface EngineClusterArgs {
  /** The stack: the private DNS zone's name carries it (names.ts). */
  stack: string;
  resourceGroupName: pulumi.Input<string>;
  location: string;
  zones: number[];
  vmSize: string;
  engineVersion: string;
  subnetId: pulumi.Input<string>;
  postgresSubnetId: pulumi.Input<string>;
  vnetId: pulumi.Input<string>;
  backendPoolId: pulumi.Input<string>;
  sshPublicKey: pulumi.Input<string>;
  /** The Engines' admin token and the NATS passwords (secrets): they go into each VM's secret user data. */
  credentials: pulumi.Input<ClusterCredentials>;
}

/** The managed Postgres of the 2.3.x topology: General Purpose, zone-redundant HA across the first two zones. */
export const POSTGRES_SETTINGS = {
  version: "15",
  sku: { name: "Standard_D4ds_v5", tier: "GeneralPurpose" },
  storage: { storageSizeGB: 128, autoGrow: "Disabled" },
  backup: { backupRetentionDays: 7, geoRedundantBackup: "Disabled" },
} as const;

/** What an Engine VM says about itself in plain tags: its role and the URLs its config gives for its datacenter. */
function engineVmTags(node: Parameters<typeof nodeUrls>[0]): Record<string, string> {
  const urls = nodeUrls(node);
  return { "actor-bench-role": "engine", "actor-bench-public-url": urls.public_url, "actor-bench-peer-url": urls.peer_url };
}

/**
 * Three Engine VMs, one per zone, each with its local NVMe mounted, an Engine
 * of the stack's pinned version (sha256-checked) and a NATS member, behind
 * the network's internal load balancer; for 2.3.x, a zone-redundant Postgres
 * Flexible Server reachable only from the VNet (delegated subnet, private DNS).
 */
export class EngineCluster extends pulumi.ComponentResource {
  readonly vms: compute.VirtualMachine[] = [];
  readonly postgres: dbforpostgresql.Server;
  readonly gatewayUrl: pulumi.Output<string>;
  readonly engineVersion: string;

  constructor(name: string, args: EngineClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:azure:EngineCluster", name, {}, opts);
    const parent = { parent: this };
    topologyFor(args.engineVersion);
    const release = engineRelease(args.engineVersion);
    const vmPlan = engineVmPlan(args.zones);
    const plan = cloudClusterPlan();
    this.engineVersion = release.version;

    const zone = new privatedns.PrivateZone(
      `${name}-pg-dns`,
      { resourceGroupName: args.resourceGroupName, location: "global", privateZoneName: fixedNames(args.stack).postgresDnsZone },
      parent,
    );
    const link = new privatedns.VirtualNetworkLink(
      `${name}-pg-dns-link`,
      {
        resourceGroupName: args.resourceGroupName,
        location: "global",
        privateZoneName: zone.name,
        registrationEnabled: false,
        virtualNetwork: { id: args.vnetId },
      },
      parent,
    );
    // Letters and digits only: it goes into a URL unescaped.
    const password = new random.RandomPassword(`${name}-pg-password`, { length: 32, special: false }, parent);
    this.postgres = new dbforpostgresql.Server(
      `${name}-pg`,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        ...POSTGRES_SETTINGS,
        administratorLogin: "rivet",
        administratorLoginPassword: pulumi.secret(password.result),
        availabilityZone: vmPlan[0].zone,
        highAvailability: { mode: "ZoneRedundant", standbyAvailabilityZone: vmPlan[1].zone },
        network: {
          delegatedSubnetResourceId: args.postgresSubnetId,
          privateDnsZoneArmResourceId: zone.id,
          publicNetworkAccess: "Disabled",
        },
      },
      { ...parent, dependsOn: [link] },
    );
    const database = new dbforpostgresql.Database(
      `${name}-pg-rivet`,
      { resourceGroupName: args.resourceGroupName, serverName: this.postgres.name, databaseName: "rivet" },
      parent,
    );
    const postgresUrl = pulumi.secret(
      pulumi.interpolate`postgresql://rivet:${password.result}@${this.postgres.fullyQualifiedDomainName}:${CLOUD_PORTS.postgres}/${database.name}?sslmode=require`,
    );

    vmPlan.forEach((node, i) => {
      const { vm } = linuxVm(
        `${name}-${node.name}`,
        {
          resourceGroupName: args.resourceGroupName,
          location: args.location,
          zone: node.zone,
          size: args.vmSize,
          subnetId: args.subnetId,
          privateAddress: node.address,
          backendPoolId: args.backendPoolId,
          userData: pulumi.secret(
            pulumi.all([postgresUrl, args.credentials]).apply(([url, creds]) => renderEngineCloudInit(plan, i, release, url, creds)),
          ),
          sshPublicKey: args.sshPublicKey,
          tags: engineVmTags(plan.nodes[i]),
        },
        { ...parent, dependsOn: [database] },
      );
      this.vms.push(vm);
    });
    this.gatewayUrl = pulumi.output(plan.gatewayUrl);
    this.registerOutputs({ gatewayUrl: this.gatewayUrl, postgresFqdn: this.postgres.fullyQualifiedDomainName });
  }
}
