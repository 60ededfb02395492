/**
 * The Worker's upload, written once: the bindings and migrations the Pulumi
 * stack sends Cloudflare (components/cloudflare/worker.ts builds the
 * WorkersScript's inputs from it) and that local workerd is started with
 * (localWorker.ts derives Miniflare's options from it), so the Worker that is
 * tested is the one that is uploaded. Pure, no Pulumi.
 */
import { COMPATIBILITY_DATE } from "./compatibility";

interface UploadBinding {
  name: string;
  type: "durable_object_namespace" | "secret_text";
  className?: string;
}

export interface WorkerUpload {
  mainModule: string;
  compatibilityDate: string;
  /** The bindings, with no values: the token's is the stack's secret, or the local run's. */
  bindings: UploadBinding[];
  migrations: { newTag: string; newSqliteClasses: string[] };
}

/** The Durable Object class and binding the Worker's code exports and uses. */
export const DO_CLASS = "BenchObject";
export const DO_BINDING = "BENCH";
export const TOKEN_BINDING = "BENCH_TOKEN";

/**
 * The one migration creates the SQLite-backed class. Its tag is a constant, so
 * a second `up` sends the same migration and plans no change to it.
 */
export const WORKER_UPLOAD: WorkerUpload = {
  mainModule: "index.js",
  compatibilityDate: COMPATIBILITY_DATE,
  bindings: [
    { name: DO_BINDING, type: "durable_object_namespace", className: DO_CLASS },
    { name: TOKEN_BINDING, type: "secret_text" },
  ],
  migrations: { newTag: "v1", newSqliteClasses: [DO_CLASS] },
};

/**
 * Miniflare's options for the same upload: each DO binding with its class,
 * SQLite-backed when a migration makes it so; each secret with its value
 * (`secrets`, by binding name; a missing one is refused).
 */
export function miniflareBindings(u: WorkerUpload, secrets: Record<string, string>) {
  const durableObjects: Record<string, { className: string; useSQLite: boolean }> = {};
  const bindings: Record<string, string> = {};
  for (const b of u.bindings) {
    if (b.type === "durable_object_namespace")
      durableObjects[b.name] = { className: b.className!, useSQLite: u.migrations.newSqliteClasses.includes(b.className!) };
    else if (secrets[b.name] === undefined) throw new Error(`the Worker's ${b.name} binding has no value`);
    else bindings[b.name] = secrets[b.name];
  }
  return { compatibilityDate: u.compatibilityDate, durableObjects, bindings };
}
