import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { engineBinaryFor, engineCacheDir } from "./engineFetch";
import { ENGINE_BINARY_SHA256 } from "../../../cluster/engineRelease";
import { packageVersion } from "../../host/versions";

describe("--engine-version: an Engine release checked against its pin", () => {
  const saved = process.env.XDG_CACHE_HOME;
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
  });

  it("the installed release is the package's own binary, its hash the pin's", async () => {
    const v = packageVersion("@rivetkit/engine-cli");
    const b = await engineBinaryFor(v);
    expect(b.sha256).toBe(ENGINE_BINARY_SHA256[v]);
    expect(b.source).toMatch(/^the installed /);
  });

  it("refuses a release with no pin, naming the pinned ones, and a cached binary whose hash is not the pin", async () => {
    await expect(engineBinaryFor("0.0.1")).rejects.toThrow(
      /^--engine-version 0\.0\.1: no pinned sha256 for that release \(pinned: .*2\.3\.18.*\)/,
    );
    const cache = mkdtempSync(join(tmpdir(), "engine-cache-"));
    process.env.XDG_CACHE_HOME = cache;
    try {
      mkdirSync(join(engineCacheDir(), "2.3.18"), { recursive: true });
      writeFileSync(join(engineCacheDir(), "2.3.18", "rivet-engine"), "#!/bin/sh\necho not an engine\n");
      await expect(engineBinaryFor("2.3.18")).rejects.toThrow(
        /rivet-engine has sha256 [0-9a-f]{64}, not the pinned a7754e82.*; delete it to fetch it again/,
      );
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
