import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { runDirsUnder } from "../analysis/contract/runDirContract";
import { verifyRunDir } from "../analysis/contract/verify";

const ROOT = join(__dirname, "..", "results");

function bytesUnder(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? bytesUnder(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );
}

describe("the committed results", () => {
  const runs = runDirsUnder(ROOT);

  it("are runs that each verify against the hashes they were made with", () => {
    expect(runs.length).toBeGreaterThanOrEqual(10);
    for (const { dir } of runs) expect(() => verifyRunDir(dir), dir).not.toThrow();
  });

  it("keep raw samples gzip-compressed, so the checkout's results/ stays under 80 MB", () => {
    for (const { dir } of runs) {
      const plain = readdirSync(join(dir, "raw")).filter((f) => f.endsWith(".jsonl"));
      expect(plain, `${dir}: run npm run compress-results`).toEqual([]);
    }
    expect(bytesUnder(ROOT)).toBeLessThan(80e6);
  });
});

describe("results/README.md", () => {
  const page = readFileSync(join(ROOT, "README.md"), "utf8");
  it("lists every committed run with the machine, preset and groups its manifest records", () => {
    for (const { dir, manifest } of runDirsUnder(ROOT).map((r) => ({ dir: r.dir, manifest: verifyRunDir(r.dir) }))) {
      const id = `\`${relative(ROOT, dir)}\``;
      const row = page.split("\n").find((l) => l.startsWith(`| ${id} |`));
      expect(row, `${id} is not in results/README.md`).toBeDefined();
      const [, machine, preset, groups] = row!.split(" | ");
      const mach = manifest.machine as { cpus: number; cpuModel: string };
      expect(machine).toBe(`${mach.cpus} x ${mach.cpuModel.startsWith("AMD") ? "AMD EPYC" : "Intel Xeon"}`);
      expect(preset).toBe(manifest.preset);
      expect(groups).toBe((manifest.config.groups as string[]).join(", "));
    }
  });
});
