import { ClusterConfigError } from "./clusterConfigError";

/**
 * Engine builds a run may use (`--engine-version` locally, the stack's
 * engineVersion on the cloud VMs), pinned by the sha256 of the
 * `rivet-engine` binary inside npm's `@rivetkit/engine-cli-linux-x64-musl`
 * tarball. A test checks the entry of the installed version against the binary
 * in node_modules, so a pin cannot drift from what the local runs measure.
 * 2.3.18's binary reports itself as "Rivet 2.3.17" (`rivet-engine --version`,
 * and its /health): the package's number is the release's name here.
 */
export const ENGINE_BINARY_SHA256: Record<string, string> = {
  "2.3.18": "a7754e8206e7dc183e16d724e138bf5c794993690d48e2ae845151a1e17e8e09",
  "2.3.19": "52cd39b79bfb448ebaea776bc351e4caa7b30ca61732d45ec08ee9b3e108a3ff",
};

/** The npm package that ships the Linux x64 Engine binary. */
export const ENGINE_PACKAGE = "@rivetkit/engine-cli-linux-x64-musl";

export interface EngineRelease {
  version: string;
  tarballUrl: string;
  binarySha256: string;
}

export function engineRelease(version: string): EngineRelease {
  const binarySha256 = ENGINE_BINARY_SHA256[version];
  if (!binarySha256) {
    throw new ClusterConfigError(
      `config actor-bench:engineVersion: "${version}" has no pinned binary sha256; pinned: ${Object.keys(ENGINE_BINARY_SHA256).join(", ")}. ` +
        "Install that version locally, check it, and add its hash to cluster/engineRelease.ts",
    );
  }
  return {
    version,
    tarballUrl: `https://registry.npmjs.org/${ENGINE_PACKAGE}/-/engine-cli-linux-x64-musl-${version}.tgz`,
    binarySha256,
  };
}

/**
 * Whether a stack's Engine and the runner's RivetKit are one release, said in
 * the words the manifest records. The runner installs exactly the checkout's
 * lock (every tarball checked against its integrity), so RivetKit follows the
 * Engine only through the lock: an Engine-release stack measures the pair it
 * names, and says so when the two differ.
 */
export function rivetkitPairing(engineVersion: string, rivetkitVersion: string): string {
  if (engineVersion === rivetkitVersion) return `RivetKit ${rivetkitVersion} with Engine ${engineVersion}: one release`;
  return (
    `RivetKit ${rivetkitVersion} (this checkout's lock) with Engine ${engineVersion}: the runner installs exactly the lock, so RivetKit follows the Engine ` +
    `only through it (npm install rivetkit@${engineVersion} in the checkout this stack runs from pairs them); this stack measures the mixed pair`
  );
}
