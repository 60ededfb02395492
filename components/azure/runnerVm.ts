import * as pulumi from "@pulumi/pulumi";
import type * as compute from "@pulumi/azure-native/compute";
import * as network from "@pulumi/azure-native/network";
import * as tls from "@pulumi/tls";
import { remote } from "@pulumi/command";
import { APP_UNIT_COMMANDS, renderRunnerCloudInit, RUNNER_PATHS } from "../../cluster/cloudInit";
import { CLOUD_NETWORK } from "../../cluster/topology";
import { BUNDLE_FILE, credentialsCommand, installCommand, probeCommand, READY_COMMAND } from "../../workloads/runner/commands";
import { parseProbe, type ProbeResult, type RunnerCredentials } from "../../workloads/runner/runner";
import { DIAL, type RunnerConnection } from "../remoteRunner";
import { ADMIN_USER, linuxVm } from "./linuxVm";

interface RunnerVmArgs {
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
  /** The bundle archive (writeBundleArchive) and its sha256: a new build redeploys. */
  bundleArchive: string;
  bundleDigest: string;
  /** The Node release the runner installs (this machine's, so both ends run the same). */
  nodeVersion: string;
  /** The Engine cluster's admin token (a secret): the app registers with it. */
  adminToken: pulumi.Input<string>;
  /** What the runs read from the credentials file (secrets): the upload SAS, and the Worker's token when Cloudflare runs. */
  credentials: pulumi.Input<RunnerCredentials>;
}

export const RUNNER_NODE_BIN = `${RUNNER_PATHS.nodeDir}/bin/node`;

// The Engine VMs may still be in their first boot when the runner is up.
const PROBE_TIMEOUT_S = 600;

/**
 * The load driver's VM: a public address for SSH only (the NSG admits the
 * configured source alone), an SSH host key from the stack, Node verified
 * against its pinned hash, and the app and driver deployed with
 * @pulumi/command: wait for the first boot, copy the bundle, install it from
 * the lock, write the credentials file, (re)start the app, probe the gateway.
 */
export class RunnerVm extends pulumi.ComponentResource {
  readonly vm: compute.VirtualMachine;
  readonly publicIp: pulumi.Output<string>;
  readonly hostKey: tls.PrivateKey;
  readonly connection: pulumi.Output<RunnerConnection>;
  readonly ready: remote.Command;
  readonly copy: remote.CopyToRemote;
  readonly install: remote.Command;
  readonly credentials: remote.Command;
  readonly app: remote.Command;
  readonly probe: remote.Command;
  readonly probeResult: pulumi.Output<ProbeResult>;

  constructor(name: string, args: RunnerVmArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:azure:RunnerVm", name, {}, opts);
    const parent = { parent: this };
    const zone = String(args.zone);
    const ip = new network.PublicIPAddress(
      `${name}-ip`,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        sku: { name: "Standard", tier: "Regional" },
        publicIPAllocationMethod: "Static",
        publicIPAddressVersion: "IPv4",
        zones: [zone],
      },
      parent,
    );
    // sshd's only host key; a replaced VM gets the same one from the stack, so nobody edits known_hosts.
    this.hostKey = new tls.PrivateKey(
      `${name}-host-key`,
      { algorithm: "ED25519" },
      { ...parent, additionalSecretOutputs: ["privateKeyOpenssh", "privateKeyPem", "privateKeyPemPkcs8"] },
    );
    const hostKey = { privateKey: this.hostKey.privateKeyOpenssh, publicKey: this.hostKey.publicKeyOpenssh };
    const { vm } = linuxVm(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        zone,
        size: args.size,
        subnetId: args.subnetId,
        privateAddress: CLOUD_NETWORK.runnerAddress,
        // Holds the admin token and the host's private key: a secret.
        userData: pulumi.secret(
          pulumi
            .all([args.gatewayUrl, args.adminToken, hostKey])
            .apply(([url, token, key]) => renderRunnerCloudInit(args.nodeVersion, url, ADMIN_USER, token, key)),
        ),
        sshPublicKey: args.sshPublicKey,
        publicIpId: ip.id,
      },
      parent,
    );
    this.vm = vm;
    this.publicIp = ip.ipAddress.apply((a) => a ?? "");
    this.connection = pulumi.output({
      host: this.publicIp,
      port: 22,
      user: ADMIN_USER,
      privateKey: pulumi.secret(args.sshPrivateKey),
      hostKey: this.hostKey.publicKeyOpenssh.apply((k) => k.trim()),
      ...DIAL,
    });
    const connection = this.connection;
    const { appDir } = RUNNER_PATHS;
    const after = (...dependsOn: pulumi.Resource[]) => ({ parent: this, dependsOn });
    this.ready = new remote.Command(`${name}-ready`, { connection, create: READY_COMMAND, triggers: [vm.id] }, after(vm));
    this.copy = new remote.CopyToRemote(
      `${name}-bundle`,
      {
        connection,
        source: new pulumi.asset.FileAsset(args.bundleArchive),
        remotePath: `${appDir}/${BUNDLE_FILE}`,
        triggers: [vm.id, args.bundleDigest],
      },
      after(this.ready),
    );
    this.install = new remote.Command(
      `${name}-install`,
      { connection, create: installCommand(appDir, RUNNER_NODE_BIN), triggers: [vm.id, args.bundleDigest] },
      after(this.copy),
    );
    this.credentials = new remote.Command(
      `${name}-credentials`,
      {
        connection,
        // No delete step: the file goes with the VM's disk, and a destroy must not need SSH (the operator's address may have changed).
        create: credentialsCommand(appDir),
        stdin: pulumi.secret(pulumi.output(args.credentials).apply((c) => JSON.stringify(c))),
        triggers: [vm.id],
        logging: "none",
        addPreviousOutputInEnv: false,
      },
      after(this.ready),
    );
    this.app = new remote.Command(
      `${name}-app`,
      {
        connection,
        // Exactly the commands the runner's sudoers allows its admin user (APP_UNIT_COMMANDS), nothing else as root.
        create: `sudo ${APP_UNIT_COMMANDS[0]} && sudo ${APP_UNIT_COMMANDS[1]}`,
        triggers: [vm.id, args.bundleDigest, args.gatewayUrl],
      },
      after(this.install),
    );
    this.probe = new remote.Command(
      `${name}-probe`,
      {
        connection,
        create: pulumi.output(args.gatewayUrl).apply((url) => probeCommand(appDir, RUNNER_NODE_BIN, url, PROBE_TIMEOUT_S)),
        triggers: [this.app.id],
      },
      { ...after(this.app), customTimeouts: { create: `${PROBE_TIMEOUT_S / 60 + 5}m` } },
    );
    this.probeResult = this.probe.stdout.apply(parseProbe);
    this.registerOutputs({ publicIp: this.publicIp, probe: this.probeResult });
  }
}
