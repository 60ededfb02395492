import * as pulumi from "@pulumi/pulumi";
import * as compute from "@pulumi/azure-native/compute";
import * as network from "@pulumi/azure-native/network";
import { NVME_ONLY_SIZE } from "./azureFacts";

export const VM_IMAGE = { publisher: "Debian", offer: "debian-12", sku: "12-gen2", version: "latest" } as const;
export const ADMIN_USER = "bench";

interface LinuxVmArgs {
  resourceGroupName: pulumi.Input<string>;
  location: string;
  zone: string;
  size: string;
  subnetId: pulumi.Input<string>;
  privateAddress: string;
  /** cloud-config text; base64-encoded into customData and kept secret. */
  userData: pulumi.Input<string>;
  sshPublicKey: pulumi.Input<string>;
  backendPoolId?: pulumi.Input<string>;
  publicIpId?: pulumi.Input<string>;
  /** Plain facts about the VM's role (no secret): the policy pack reads them at preview, when the user data is not known yet. */
  tags?: Record<string, string>;
}

/** One Debian 12 VM in one zone, with a static private address, SSH key only, no password. */
export function linuxVm(name: string, args: LinuxVmArgs, opts: pulumi.CustomResourceOptions) {
  const nic = new network.NetworkInterface(
    `${name}-nic`,
    {
      resourceGroupName: args.resourceGroupName,
      location: args.location,
      enableAcceleratedNetworking: true,
      ipConfigurations: [
        {
          name: "primary",
          primary: true,
          subnet: { id: args.subnetId },
          privateIPAllocationMethod: "Static",
          privateIPAddress: args.privateAddress,
          ...(args.backendPoolId ? { loadBalancerBackendAddressPools: [{ id: args.backendPoolId }] } : {}),
          ...(args.publicIpId ? { publicIPAddress: { id: args.publicIpId } } : {}),
        },
      ],
    },
    opts,
  );
  const vm = new compute.VirtualMachine(
    name,
    {
      resourceGroupName: args.resourceGroupName,
      location: args.location,
      zones: [args.zone],
      hardwareProfile: { vmSize: args.size },
      ...(args.tags ? { tags: args.tags } : {}),
      osProfile: {
        computerName: name,
        adminUsername: ADMIN_USER,
        customData: pulumi.secret(pulumi.output(args.userData).apply((u) => Buffer.from(u, "utf8").toString("base64"))),
        linuxConfiguration: {
          disablePasswordAuthentication: true,
          ssh: { publicKeys: [{ path: `/home/${ADMIN_USER}/.ssh/authorized_keys`, keyData: args.sshPublicKey }] },
        },
      },
      storageProfile: {
        imageReference: VM_IMAGE,
        osDisk: { createOption: "FromImage", deleteOption: "Delete", managedDisk: { storageAccountType: "Premium_LRS" } },
        // Sizes that attach disks over NVMe only say so explicitly (NVME_ONLY_SIZE's source); the image is Gen2 and NVMe-tagged.
        ...(NVME_ONLY_SIZE.value.test(args.size) ? { diskControllerType: "NVMe" } : {}),
      },
      networkProfile: { networkInterfaces: [{ id: nic.id, primary: true, deleteOption: "Delete" }] },
      diagnosticsProfile: { bootDiagnostics: { enabled: true } },
    },
    opts,
  );
  return { vm, nic };
}
