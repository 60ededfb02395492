import * as pulumi from "@pulumi/pulumi";
import * as storage from "@pulumi/azure-native/storage";

export interface ColdStoreArgs {
  resourceGroupName: pulumi.Input<string>;
  location: string;
  /** When the result container's SAS expires (ISO 8601); the runs must finish before. */
  sasExpiry: string;
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
 * the runs' result blobs, which the runner uploads with a SAS scoped to that
 * container alone.
 */
export class ColdStore extends pulumi.ComponentResource {
  readonly accountName: pulumi.Output<string>;
  readonly resultContainer: pulumi.Output<string>;
  readonly engineContainer: pulumi.Output<string>;
  /** https://<account>.blob.core.windows.net/<results> */
  readonly resultContainerUrl: pulumi.Output<string>;
  /** Read/write/list SAS of the result container: a secret. */
  readonly resultSas: pulumi.Output<string>;

  constructor(name: string, args: ColdStoreArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:azure:ColdStore", name, {}, opts);
    const parent = { parent: this };
    const account = new storage.StorageAccount(`${name}sa`, { resourceGroupName: args.resourceGroupName, location: args.location, ...COLD_STORE_SETTINGS }, parent);
    const container = (id: string, containerName: string) =>
      new storage.BlobContainer(`${name}-${id}`, { resourceGroupName: args.resourceGroupName, accountName: account.name, containerName, publicAccess: "None" }, parent);
    const engine = container("engine", "engine-cold");
    const results = container("results", "results");
    this.accountName = account.name;
    this.engineContainer = engine.name;
    this.resultContainer = results.name;
    this.resultContainerUrl = pulumi.interpolate`https://${account.name}.blob.core.windows.net/${results.name}`;
    this.resultSas = pulumi.secret(
      storage
        .listStorageAccountServiceSASOutput(
          {
            resourceGroupName: args.resourceGroupName,
            accountName: account.name,
            canonicalizedResource: pulumi.interpolate`/blob/${account.name}/${results.name}`,
            resource: "c",
            permissions: "rwlc",
            protocols: "https",
            sharedAccessExpiryTime: args.sasExpiry,
          },
          parent,
        )
        .apply((r) => r.serviceSasToken),
    );
    this.registerOutputs({ accountName: this.accountName, resultContainerUrl: this.resultContainerUrl });
  }
}
