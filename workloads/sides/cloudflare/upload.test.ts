import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { miniflareBindings, WORKER_UPLOAD, type WorkerUpload } from "./upload";

/** wrangler.jsonc with its comments taken out: the config `wrangler deploy` reads. */
export function wranglerConfig(): {
  compatibility_date: string;
  durable_objects: { bindings: Array<{ name: string; class_name: string }> };
  migrations: Array<{ tag: string; new_sqlite_classes: string[] }>;
} {
  const text = readFileSync(join(__dirname, "wrangler.jsonc"), "utf8")
    .replace(/^\s*\/\/.*$/gm, "")
    .replace(/\s\/\/[^"\n]*$/gm, "");
  return JSON.parse(text);
}

describe("the Worker's upload, written once", () => {
  it("local workerd gets each DO binding with its class, SQLite-backed as the migration makes it, and each secret its value", () => {
    expect(miniflareBindings(WORKER_UPLOAD, { BENCH_TOKEN: "t" })).toEqual({
      compatibilityDate: WORKER_UPLOAD.compatibilityDate,
      durableObjects: { BENCH: { className: "BenchObject", useSQLite: true } },
      bindings: { BENCH_TOKEN: "t" },
    });
    const kv: WorkerUpload = { ...WORKER_UPLOAD, migrations: { newTag: "v1", newSqliteClasses: [] } };
    expect(miniflareBindings(kv, { BENCH_TOKEN: "t" }).durableObjects.BENCH.useSQLite).toBe(false);
    expect(() => miniflareBindings(WORKER_UPLOAD, {})).toThrow(/BENCH_TOKEN binding has no value/);
  });

  it("wrangler.jsonc (for `wrangler deploy`) says the same bindings, migration and compatibility date", () => {
    const w = wranglerConfig();
    expect(w.compatibility_date).toBe(WORKER_UPLOAD.compatibilityDate);
    expect(w.durable_objects.bindings).toEqual(
      WORKER_UPLOAD.bindings.filter((b) => b.type === "durable_object_namespace").map((b) => ({ name: b.name, class_name: b.className })),
    );
    expect(w.migrations).toEqual([{ tag: WORKER_UPLOAD.migrations.newTag, new_sqlite_classes: WORKER_UPLOAD.migrations.newSqliteClasses }]);
  });
});
