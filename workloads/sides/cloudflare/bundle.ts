import { build } from "esbuild";
import { join } from "node:path";
import { repoRoot } from "../../host/paths";

/** Source of the Worker and where its single-module bundle goes (inside the repo, as Miniflare wants). */
const WORKER_SOURCE = join(repoRoot(), "workloads", "sides", "cloudflare", "worker", "index.ts");
export const WORKER_BUNDLE_DIR = join(repoRoot(), "dist", "worker");
export const WORKER_BUNDLE = join(WORKER_BUNDLE_DIR, "index.js");

/** Bundles the Worker with esbuild, as wrangler would: one ES module, cloudflare:* left external. */
async function bundleWorker(outfile = WORKER_BUNDLE): Promise<string> {
  await build({
    entryPoints: [WORKER_SOURCE],
    outfile,
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "neutral",
    external: ["cloudflare:*"],
    logLevel: "warning",
  });
  return outfile;
}

if (require.main === module) {
  bundleWorker().then(
    (f) => console.log(`worker bundle: ${f}`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
