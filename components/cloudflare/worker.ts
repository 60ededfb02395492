import * as pulumi from "@pulumi/pulumi";
import * as cloudflare from "@pulumi/cloudflare";
import * as random from "@pulumi/random";
import { createHash } from "node:crypto";
import { DO_BINDING, DO_CLASS, TOKEN_BINDING, WORKER_UPLOAD } from "../../workloads/sides/cloudflare/upload";

export { DO_BINDING, DO_CLASS, TOKEN_BINDING };
/** The one migration (workloads/sides/cloudflare/upload.ts): it creates the SQLite-backed class. */
const MIGRATION = WORKER_UPLOAD.migrations;

/**
 * The script's name carries the bundle's digest. A changed Worker is a new
 * script (created, then the old one deleted) whose one migration applies to
 * a fresh namespace, never a migration re-sent to a script that already has
 * tag v1, which Cloudflare refuses ("Migration tag precondition failed").
 */
export function workerScriptName(stack: string, bundle: string): string {
  const digest = createHash("sha256").update(bundle).digest("hex").slice(0, 8);
  return `actor-bench-${stack
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 40)}-${digest}`;
}

/** The WorkersScript's inputs, as a pure function of the bundle and the token: the upload local workerd runs (WORKER_UPLOAD). */
export function workerScriptInputs(
  accountId: string,
  scriptName: string,
  bundle: string,
  token: pulumi.Input<string>,
): cloudflare.WorkersScriptArgs {
  if (!/^[0-9a-f]{32}$/.test(accountId))
    throw new Error(`config actor-bench:cloudflareAccountId: "${accountId}" is not a 32-character hex account id`);
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(scriptName))
    throw new Error(`Worker script name "${scriptName}": lower-case letters, digits and dashes, at most 63`);
  return {
    accountId,
    scriptName,
    content: bundle,
    mainModule: WORKER_UPLOAD.mainModule,
    compatibilityDate: WORKER_UPLOAD.compatibilityDate,
    bindings: WORKER_UPLOAD.bindings.map((b) => (b.type === "secret_text" ? { ...b, text: pulumi.secret(token) } : { ...b })),
    migrations: { newTag: MIGRATION.newTag, newSqliteClasses: [...MIGRATION.newSqliteClasses] },
    // The script implements its DO namespace: Cloudflare refuses to delete such a script without force
    // (https://developers.cloudflare.com/api/resources/workers/subresources/scripts/methods/delete/).
    force: true,
  };
}

interface CloudflareWorkerArgs {
  stack: string;
  accountId: string;
  /** The account's API token: a secret (config actor-bench:cloudflareApiToken). */
  apiToken: pulumi.Input<string>;
  /** The bundled Worker (dist/worker/index.js, ES module). */
  bundle: string;
  /** The account's workers.dev subdomain (config actor-bench:cloudflareWorkersSubdomain). */
  workersDevSubdomain: string;
  /** Nothing is asked of Cloudflare before this resolves (the pass's checks); a rejection stops it there. */
  gate?: pulumi.Input<unknown>;
}

/**
 * The bench Worker with its SQLite Durable Object on the account's
 * workers.dev route, and a bench token that only the stack knows.
 */
export class CloudflareWorker extends pulumi.ComponentResource {
  readonly scriptName: string;
  readonly url: pulumi.Output<string>;
  /** The bench token: a secret, never a plain output. */
  readonly token: pulumi.Output<string>;

  constructor(name: string, args: CloudflareWorkerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("actor-bench:cloudflare:Worker", name, {}, opts);
    const apiToken = pulumi.all([args.apiToken, args.gate ?? true]).apply(([t]) => t);
    const provider = new cloudflare.Provider(`${name}-provider`, { apiToken: pulumi.secret(apiToken) }, { parent: this });
    const parent = { parent: this, provider };
    this.scriptName = workerScriptName(args.stack, args.bundle);
    const token = new random.RandomPassword(
      `${name}-token`,
      { length: 48, special: false },
      { parent: this, additionalSecretOutputs: ["result"] },
    );
    this.token = pulumi.secret(token.result);
    const script = new cloudflare.WorkersScript(
      `${name}-script`,
      workerScriptInputs(args.accountId, this.scriptName, args.bundle, this.token),
      parent,
    );
    const route = new cloudflare.WorkersScriptSubdomain(
      `${name}-workers-dev`,
      { accountId: args.accountId, scriptName: script.scriptName, enabled: true, previewsEnabled: false },
      parent,
    );
    this.url = pulumi.interpolate`https://${route.scriptName}.${args.workersDevSubdomain}.workers.dev`;
    this.registerOutputs({ url: this.url, token: this.token });
  }
}
