import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nodeRelease, REFERENCE_NODE_VERSION } from "../../cluster/nodeRelease";
import { checkTarball, pinnedNode, pinnedNodeArgs } from "./pinnedNode";

const cache = mkdtempSync(join(tmpdir(), "pinned-node-"));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

describe("the suite on a pinned Node", () => {
  it("takes --node off the suite's flags, defaulting to the reference's release", () => {
    expect(pinnedNodeArgs(["--preset", "quick"])).toEqual({ version: REFERENCE_NODE_VERSION, rest: ["--preset", "quick"] });
    expect(pinnedNodeArgs(["--node", "v20.20.2", "--side", "rivet"])).toEqual({ version: "v20.20.2", rest: ["--side", "rivet"] });
    expect(() => pinnedNodeArgs(["--node"])).toThrow(/--node needs a release such as v24\.10\.0, got ""/);
  });

  it("refuses a tarball whose sha512 is not the pinned one, and a release with no pinned hash", async () => {
    const t = nodeRelease(REFERENCE_NODE_VERSION).node;
    const bytes = Buffer.from("not node");
    expect(() => checkTarball(bytes, t)).toThrow(/sha512 [0-9a-f]{16}\.\.\. is not the pinned [0-9a-f]{16}\.\.\.; nothing was unpacked/);
    expect(checkTarball(bytes, { ...t, sha512: createHash("sha512").update(bytes).digest("hex") })).toBe(bytes);
    await expect(pinnedNode("v22.1.0", cache, "https://registry.npmjs.org/")).rejects.toThrow(
      /Node v22\.1\.0 has no pinned registry integrity/,
    );
    expect(existsSync(join(cache, "v22.1.0"))).toBe(false);
  });

  // Needs the npm registry, as `npm ci` does (CI has it).
  it("fetches the reference's release from the npm registry, checks it, and runs the suite's CLI on it", async () => {
    const node = await pinnedNode(REFERENCE_NODE_VERSION, cache, "https://registry.npmjs.org/");
    expect(execFileSync(node, ["-p", "process.version"], { encoding: "utf8" }).trim()).toBe(REFERENCE_NODE_VERSION);
    const r = spawnSync(node, [join(__dirname, "..", "..", "dist", "workloads", "run", "cli.js"), "--help"], { encoding: "utf8" });
    // --help prints the usage to stdout and exits 0: the built CLI loads on this Node.
    expect(r.stdout).toContain("usage: npm start");
    expect(r.status).toBe(0);
    // A second call reuses the unpacked release.
    expect(await pinnedNode(REFERENCE_NODE_VERSION, cache, "http://127.0.0.1:9/")).toBe(node);
  }, 120_000);
});
