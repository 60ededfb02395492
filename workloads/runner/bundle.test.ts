import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundleDigest, requireClosure, runnerCodeDigest } from "./bundle";

/** A compiled project in miniature: the runner and the app, what they require, and files they do not. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "bundle-"));
  const files: Record<string, string> = {
    "package.json": "{}",
    "package-lock.json": '{"lockfileVersion":3}',
    "dist/workloads/runner/runner.js": 'require("node:fs"); require("../run/groupRun"); require("./blobStore");',
    "dist/workloads/runner/blobStore.js": 'require("undici");',
    "dist/workloads/run/groupRun.js": 'require("../../analysis/contract");',
    "dist/analysis/contract/index.js": "module.exports = 1;",
    "dist/workloads/sides/rivet/app.js": 'require("./actors");',
    "dist/workloads/sides/rivet/actors.js": "module.exports = 2;",
    "dist/site/run.js": "console.log('site');",
    "dist/analysis/report/report.js": "module.exports = 3;",
  };
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  return dir;
}

describe("what re-runs a group on the runner", () => {
  it("the runner's closure: its entries and every relative require, nothing else", () => {
    expect(requireClosure(project())).toEqual([
      "dist/analysis/contract/index.js",
      "dist/workloads/run/groupRun.js",
      "dist/workloads/runner/blobStore.js",
      "dist/workloads/runner/runner.js",
      "dist/workloads/sides/rivet/actors.js",
      "dist/workloads/sides/rivet/app.js",
    ]);
  });

  it("changes with the code a run loads and the lock, not with the site's or the report's scripts", () => {
    const dir = project();
    const before = runnerCodeDigest(dir);
    const wholeBefore = bundleDigest(dir);
    writeFileSync(join(dir, "dist/site/run.js"), "console.log('new site');");
    writeFileSync(join(dir, "dist/analysis/report/report.js"), "module.exports = 4;");
    expect(runnerCodeDigest(dir)).toBe(before);
    expect(bundleDigest(dir)).not.toBe(wholeBefore);
    writeFileSync(join(dir, "dist/workloads/sides/rivet/actors.js"), "module.exports = 5;");
    const afterApp = runnerCodeDigest(dir);
    expect(afterApp).not.toBe(before);
    writeFileSync(join(dir, "package-lock.json"), '{"lockfileVersion":3,"packages":{}}');
    expect(runnerCodeDigest(dir)).not.toBe(afterApp);
  });

  it("a missing required file says to build first", () => {
    const dir = project();
    writeFileSync(join(dir, "dist/workloads/runner/runner.js"), 'require("./gone");');
    expect(() => runnerCodeDigest(dir)).toThrow(/gone is missing: run `npm run build` before `pulumi up`/);
  });
});
