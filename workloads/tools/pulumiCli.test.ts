import { describe, expect, it } from "vitest";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CliBuildError, cliBinDir, cliVersion, requiredVersion } from "./pulumiCli";

const ROOT = resolve(__dirname, "..", "..");

/** A copy of the two modules' go.mod files (the version checks read nothing else). */
function modules(): string {
  const dir = mkdtempSync(join(tmpdir(), "ab-pulumi-cli-"));
  for (const m of ["tools/pulumi", "third_party/pulumi-language-nodejs"])
    cpSync(join(ROOT, m, "go.mod"), join(dir, m, "go.mod"), { recursive: true });
  return dir;
}

describe("the Pulumi CLI's pinned version", () => {
  it("reads a module's version from a require block or a one-line require", () => {
    const block =
      "module x\n\nrequire (\n\tgithub.com/pulumi/pulumi/pkg/v3 v3.260.0\n\tgithub.com/pulumi/pulumi/sdk/v3 v3.260.0 // indirect\n)\n";
    expect(requiredVersion(block, "github.com/pulumi/pulumi/pkg/v3")).toBe("v3.260.0");
    expect(requiredVersion(block, "github.com/pulumi/pulumi/sdk/v3")).toBe("v3.260.0");
    expect(requiredVersion("require github.com/a/b v1.2.3\n", "github.com/a/b")).toBe("v1.2.3");
    // Another module whose path starts the same is not it.
    expect(requiredVersion("require github.com/a/bc v1.2.3\n", "github.com/a/b")).toBe("");
  });

  it("is the committed modules' one version, read from tools/pulumi/go.mod", () => {
    expect(cliVersion(ROOT)).toMatch(/^v3\.\d+\.\d+$/);
    expect(cliVersion(ROOT)).toBe(
      requiredVersion(readFileSync(join(ROOT, "tools/pulumi/go.mod"), "utf8"), "github.com/pulumi/pulumi/pkg/v3"),
    );
  });

  it("refuses a language host pinned to another release than the CLI, naming both", () => {
    const dir = modules();
    const host = join(dir, "third_party/pulumi-language-nodejs/go.mod");
    writeFileSync(host, readFileSync(host, "utf8").replace(/(pulumi\/pkg\/v3) v\S+/, "$1 v3.276.0"));
    expect(() => cliVersion(dir)).toThrow(CliBuildError);
    expect(() => cliVersion(dir)).toThrow(
      /third_party\/pulumi-language-nodejs\/go.mod requires github.com\/pulumi\/pulumi\/pkg\/v3 v3.276.0; the CLI is v3.260.0/,
    );
  });

  it("builds into a cache folder named by version and by what it is built from", () => {
    const dir = modules();
    const before = cliBinDir(dir);
    expect(before).toMatch(/actor-bench\/pulumi\/v3\.260\.0-[0-9a-f]{16}\/bin$/);
    writeFileSync(join(dir, "tools/pulumi/go.sum"), "changed\n");
    expect(cliBinDir(dir)).not.toBe(before);
  });
});
