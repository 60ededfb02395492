import * as pulumi from "@pulumi/pulumi";
import * as compute from "@pulumi/azure-native/compute";
import * as network from "@pulumi/azure-native/network";
import { APP_UNIT_COMMANDS, renderRunnerCloudInit, RUNNER_PATHS } from "../../cluster/cloudInit";
import { CLOUD_NETWORK } from "../../cluster/topology";
import { RunnerDeploy, type SshArgs } from "../remoteRunner";
import { ADMIN_USER, linuxVm } from "./linuxVm";

export interface RunnerVmArgs {
  stack: string;
  resourceGroupName: pulumi.Input<string>;
  location: string;
  /** The first of the stack's zones: the reference's runner shares a zone with one Engine node. */
  zone: number;
  size: string;
  subnetId: pulumi.Input<string>;
  gatewayUrl: pulumi.Input<string>;
  sshPublicKey: pulumi.Input<string>;
  /** The matching private key: a secret. */
  sshPrivateKey: pulumi.Input<string>;
  knownHostsFile: string;
  projectDir: string;
  bundleDigest: string;
  /** The Node release the runner installs (this machine's, so both ends run the same). */
  nodeVersion: string;
  /** The Engine cluster's admin token (a secret): the app registers with it. */
  adminToken: pulumi.Input<string>;
}

export const RUNNER_NODE_BIN = `${RUNNER_PATHS.nodeDir}/bin/node`;

/**
 * The load driver's VM: a public address for SSH only (the NSG admits the
 * configured source alone), Node verified against the release's SHASUMS256,
 * and the app and driver deployed by a RunnerDeploy that probes the gateway.
 */
export class RunnerVm extends pulumi.ComponentResource {
  readonly vm: compute.VirtualMachine;
  readonly publicIp: pulumi.Output<string>;
  readonly deploy: RunnerDeploy;
  readonly ssh: pulumi.Output<SshArgs>;

  constructor(name: string, args: RunnerVmArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:azure:RunnerVm", name, {}, opts);
    const parent = { parent: this };
    const zone = String(args.zone);
    const ip = new network.PublicIPAddress(
      `${name}-ip`,
      { resourceGroupName: args.resourceGroupName, location: args.location, sku: { name: "Standard", tier: "Regional" }, publicIPAllocationMethod: "Static", publicIPAddressVersion: "IPv4", zones: [zone] },
      parent,
    );
    const { vm } = linuxVm(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        zone,
        size: args.size,
        subnetId: args.subnetId,
        privateAddress: CLOUD_NETWORK.runnerAddress,
        // Holds the admin token: a secret.
        userData: pulumi.secret(pulumi.all([args.gatewayUrl, args.adminToken]).apply(([url, token]) => renderRunnerCloudInit(args.nodeVersion, url, ADMIN_USER, token))),
        sshPublicKey: args.sshPublicKey,
        publicIpId: ip.id,
      },
      parent,
    );
    this.vm = vm;
    this.publicIp = ip.ipAddress.apply((a) => a ?? "");
    this.ssh = pulumi.secret(pulumi.all([this.publicIp, args.sshPrivateKey]).apply(([host, privateKey]) => ({ host, port: 22, user: ADMIN_USER, privateKey })));
    this.deploy = new RunnerDeploy(
      `${name}-deploy`,
      {
        stack: args.stack,
        projectDir: args.projectDir,
        ssh: this.ssh,
        knownHostsFile: args.knownHostsFile,
        appDir: RUNNER_PATHS.appDir,
        nodeBin: RUNNER_NODE_BIN,
        gatewayUrl: args.gatewayUrl,
        bundleDigest: args.bundleDigest,
        readyCommand: "cloud-init status --wait >/dev/null",
        // Exactly the commands the runner's sudoers allows its admin user (APP_UNIT_COMMANDS), nothing else as root.
        startAppCommand: `sudo ${APP_UNIT_COMMANDS[0]} && sudo ${APP_UNIT_COMMANDS[1]}`,
        stopAppCommand: `sudo ${APP_UNIT_COMMANDS[2]}`,
      },
      { parent: this, dependsOn: [vm] },
    );
    this.registerOutputs({ publicIp: this.publicIp, probe: this.deploy.probe });
  }
}
