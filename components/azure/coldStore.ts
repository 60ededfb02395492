import * as pulumi from "@pulumi/pulumi";
import * as storage from "@pulumi/azure-native/storage";
import * as random from "@pulumi/random";
import { storageAccountName } from "./names";
import { delegatingProvider, withOutputs } from "../delegatingProvider";
import { ACCESS_LIFE, RESULT_POLICY_IDS, RESULT_POLICY_PERMISSIONS } from "../../workloads/runner/accessPolicies";

export interface ColdStoreArgs {
  /** The stack: the account's name is built from it (names.ts). */
  stack: string;
  resourceGroupName: pulumi.Input<string>;
  location: string;
}

export interface ContainerAccessPolicyArgs {
  containerUrl: pulumi.Input<string>;
  accountName: pulumi.Input<string>;
  /** The storage account key (a secret): only this machine uses it, to set the policies. */
  accountKey: pulumi.Input<string>;
  /** Each policy's id and permissions; the provider sets their expiry (ACCESS_LIFE) and renews it. */
  policies: pulumi.Input<Array<{ id: string; permissions: string }>>;
  lifetimeHours: number;
  renewBelowHours: number;
}

/** A container's stored access policies; deleting it revokes every SAS tied to them. */
export class ContainerAccessPolicy extends pulumi.dynamic.Resource {
  constructor(name: string, args: ContainerAccessPolicyArgs, opts?: pulumi.CustomResourceOptions) {
    super(delegatingProvider("containerAccessPolicy"), name, withOutputs({ ...args, accountKey: pulumi.secret(args.accountKey) }, ["expiresOn"]), { ...opts, additionalSecretOutputs: ["accountKey"] }, "actor-bench", "ContainerAccessPolicy");
  }
}

export const COLD_STORE_SETTINGS = {
  kind: "StorageV2",
  sku: { name: "Standard_LRS" },
  accessTier: "Hot",
  allowBlobPublicAccess: false,
  enableHttpsTrafficOnly: true,
  minimumTlsVersion: "TLS1_2",
  allowSharedKeyAccess: true,
} as const;

/**
 * Azure Blob: a private container for the Engine's cold data (the reference's
 * cold tier; Engine 2.3.x has no cold store and leaves it empty) and one for
 * the runs' result blobs. Two SAS reach the result container, each tied to a
 * stored access policy of it: the runner's may create and write blobs, this
 * machine's may read them, both for ACCESS_LIFE (renewed by an `up` once less
 * than half is left, so a preview within it is clean), and either can be
 * revoked by changing its policy instead of rotating the account key.
 */
export class ColdStore extends pulumi.ComponentResource {
  readonly accountName: pulumi.Output<string>;
  readonly resultContainer: pulumi.Output<string>;
  readonly engineContainer: pulumi.Output<string>;
  /** https://<account>.blob.core.windows.net/<results> */
  readonly resultContainerUrl: pulumi.Output<string>;
  /** The runner's SAS of the result container (create, write): a secret. */
  readonly uploadSas: pulumi.Output<string>;
  /** This machine's SAS of the result container (read): a secret. */
  readonly downloadSas: pulumi.Output<string>;

  constructor(name: string, args: ColdStoreArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:azure:ColdStore", name, {}, opts);
    const parent = { parent: this };
    // Storage account names are global: 8 random characters kept in the stack's state make this one unique.
    const suffix = new random.RandomString(`${name}-sa-suffix`, { length: 8, upper: false, special: false, numeric: true, lower: true }, parent);
    const accountName = suffix.result.apply((s) => storageAccountName(args.stack, s));
    const account = new storage.StorageAccount(`${name}sa`, { accountName, resourceGroupName: args.resourceGroupName, location: args.location, ...COLD_STORE_SETTINGS }, parent);
    const container = (id: string, containerName: string) =>
      new storage.BlobContainer(`${name}-${id}`, { resourceGroupName: args.resourceGroupName, accountName: account.name, containerName, publicAccess: "None" }, parent);
    const engine = container("engine", "engine-cold");
    const results = container("results", "results");
    this.accountName = account.name;
    this.engineContainer = engine.name;
    this.resultContainer = results.name;
    this.resultContainerUrl = pulumi.interpolate`https://${account.name}.blob.core.windows.net/${results.name}`;
    const accountKey = pulumi.secret(storage.listStorageAccountKeysOutput({ resourceGroupName: args.resourceGroupName, accountName: account.name }, parent).keys[0].value);
    const policies = new ContainerAccessPolicy(
      `${name}-result-policies`,
      { containerUrl: this.resultContainerUrl, accountName: account.name, accountKey, policies: (["upload", "download"] as const).map((k) => ({ id: RESULT_POLICY_IDS[k], permissions: RESULT_POLICY_PERMISSIONS[k] })), lifetimeHours: ACCESS_LIFE.hours, renewBelowHours: ACCESS_LIFE.renewBelowHours },
      { parent: this, dependsOn: [results] },
    );
    // A SAS tied to a policy carries only the policy's id: its permissions and expiry are the policy's.
    const sas = (identifier: string) =>
      pulumi.secret(
        storage
          .listStorageAccountServiceSASOutput(
            { resourceGroupName: args.resourceGroupName, accountName: account.name, canonicalizedResource: pulumi.interpolate`/blob/${account.name}/${results.name}`, resource: "c", identifier, protocols: "https" },
            { parent: this, dependsOn: [policies] },
          )
          .apply((r) => r.serviceSasToken),
      );
    this.uploadSas = sas(RESULT_POLICY_IDS.upload);
    this.downloadSas = sas(RESULT_POLICY_IDS.download);
    this.registerOutputs({ accountName: this.accountName, resultContainerUrl: this.resultContainerUrl });
  }
}
