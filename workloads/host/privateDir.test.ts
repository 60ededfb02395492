import { describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateDir } from "./privateDir";

const mode = (p: string) => statSync(p).mode & 0o777;

describe("privateDir", () => {
  it("creates the stack's state folders readable by their owner only, and tightens ones that existed", () => {
    const project = mkdtempSync(join(tmpdir(), "ab-private-"));
    chmodSync(project, 0o755);
    mkdirSync(join(project, ".actor-bench", "eastus2"), { recursive: true, mode: 0o755 });
    const blobs = privateDir(join(project, ".actor-bench", "eastus2", "blobs", "eastus2"));
    for (const p of [".actor-bench", ".actor-bench/eastus2", ".actor-bench/eastus2/blobs", ".actor-bench/eastus2/blobs/eastus2"])
      expect(mode(join(project, p)), p).toBe(0o700);
    expect(blobs).toBe(join(project, ".actor-bench", "eastus2", "blobs", "eastus2"));
    // The project folder above it is not touched.
    expect(mode(project)).toBe(0o755);
  });
});
