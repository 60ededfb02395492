import * as pulumi from "@pulumi/pulumi";
import * as authorization from "@pulumi/azure-native/authorization";
import * as storage from "@pulumi/azure-native/storage";
import * as random from "@pulumi/random";
import { storageAccountName } from "./names";
import { delegatingProvider, withOutputs } from "../delegatingProvider";
import { BLOB_ROLES, NO_SHARED_KEY } from "./azureFacts";
import { ACCESS_LIFE, RESULT_GRANTS, ROLE_PROPAGATION, STORAGE_TOKEN_AUDIENCE } from "../../workloads/runner/resultAccess";

interface ColdStoreArgs {
  /** The stack: the account's name is built from it (names.ts). */
  stack: string;
  resourceGroupName: pulumi.Input<string>;
  location: string;
}

interface ResultAccessArgs {
  containerUrl: pulumi.Input<string>;
  accountName: pulumi.Input<string>;
  /** An Entra token for Azure Storage of the identity `pulumi up` runs as (a secret): it asks for the delegation key. */
  token: pulumi.Input<string>;
  /** Each holder's SAS permission letters (RESULT_GRANTS). */
  grants: Record<string, string>;
  lifetimeHours: number;
  renewBelowHours: number;
  /** How long to wait for new role assignments to take effect. */
  waitMinutes: number;
}

/** The result container's user delegation SAS, one per holder (`sas`, a secret), renewed by an `up` as they run low. */
export class ResultAccess extends pulumi.dynamic.Resource {
  declare readonly sas: pulumi.Output<Record<string, string>>;
  constructor(name: string, args: ResultAccessArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      delegatingProvider("resultAccess"),
      name,
      withOutputs({ ...args, token: pulumi.secret(args.token) }, ["expiresOn", "sas"]),
      { ...opts, additionalSecretOutputs: ["token", "sas"] },
      "actor-bench",
      "ResultAccess",
    );
  }
}

const COLD_STORE_SETTINGS = {
  kind: "StorageV2",
  sku: { name: "Standard_LRS" },
  accessTier: "Hot",
  allowBlobPublicAccess: false,
  enableHttpsTrafficOnly: true,
  minimumTlsVersion: "TLS1_2",
  // No account key at all: access is by Entra identity (NO_SHARED_KEY.source).
  allowSharedKeyAccess: NO_SHARED_KEY.value,
} as const;

/**
 * Azure Blob: a private container for the Engine's cold data (the reference's
 * cold tier; Engine 2.3.x has no cold store and leaves it empty) and one for
 * the runs' result blobs. The account allows no account key. The identity
 * `pulumi up` runs as gets Storage Blob Delegator on the account and Storage
 * Blob Data Contributor on the result container alone, and signs two user
 * delegation SAS of that container (workloads/runner/resultAccess.ts): the
 * runner's may create and write, this machine's may read, both for
 * ACCESS_LIFE. Destroying the role assignments revokes both.
 */
export class ColdStore extends pulumi.ComponentResource {
  readonly accountName: pulumi.Output<string>;
  readonly resultContainer: pulumi.Output<string>;
  readonly engineContainer: pulumi.Output<string>;
  /** https://<account>.blob.core.windows.net/<results> */
  readonly resultContainerUrl: pulumi.Output<string>;
  /** The runner's user delegation SAS of the result container (create, write): a secret. */
  readonly uploadSas: pulumi.Output<string>;
  /** This machine's user delegation SAS of the result container (read): a secret. */
  readonly downloadSas: pulumi.Output<string>;

  constructor(name: string, args: ColdStoreArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:azure:ColdStore", name, {}, opts);
    const parent = { parent: this };
    // Storage account names are global: 8 random characters kept in the stack's state make this one unique.
    const suffix = new random.RandomString(
      `${name}-sa-suffix`,
      { length: 8, upper: false, special: false, numeric: true, lower: true },
      parent,
    );
    const accountName = suffix.result.apply((s) => storageAccountName(args.stack, s));
    const account = new storage.StorageAccount(
      `${name}sa`,
      { accountName, resourceGroupName: args.resourceGroupName, location: args.location, ...COLD_STORE_SETTINGS },
      parent,
    );
    const container = (id: string, containerName: string) =>
      new storage.BlobContainer(
        `${name}-${id}`,
        { resourceGroupName: args.resourceGroupName, accountName: account.name, containerName, publicAccess: "None" },
        parent,
      );
    const engine = container("engine", "engine-cold");
    const results = container("results", "results");
    this.accountName = account.name;
    this.engineContainer = engine.name;
    this.resultContainer = results.name;
    this.resultContainerUrl = pulumi.interpolate`https://${account.name}.blob.core.windows.net/${results.name}`;
    const me = authorization.getClientConfigOutput(parent);
    const role = (id: string, roleId: string, scope: pulumi.Input<string>) =>
      new authorization.RoleAssignment(
        `${name}-${id}`,
        {
          principalId: me.objectId,
          roleDefinitionId: pulumi.interpolate`/subscriptions/${me.subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/${roleId}`,
          scope,
        },
        parent,
      );
    const roles = [
      role("key-delegator", BLOB_ROLES.value.delegator, account.id),
      role("results-data", BLOB_ROLES.value.dataContributor, results.id),
    ];
    const token = authorization.getClientTokenOutput({ endpoint: STORAGE_TOKEN_AUDIENCE }, parent).token;
    const access = new ResultAccess(
      `${name}-result-access`,
      {
        containerUrl: this.resultContainerUrl,
        accountName: account.name,
        token,
        grants: { ...RESULT_GRANTS },
        lifetimeHours: ACCESS_LIFE.hours,
        renewBelowHours: ACCESS_LIFE.renewBelowHours,
        waitMinutes: ROLE_PROPAGATION.waitMinutes,
      },
      { parent: this, dependsOn: roles },
    );
    this.uploadSas = pulumi.secret(access.sas.apply((s) => s.upload));
    this.downloadSas = pulumi.secret(access.sas.apply((s) => s.download));
    this.registerOutputs({ accountName: this.accountName, resultContainerUrl: this.resultContainerUrl });
  }
}
