import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
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

  it("keep raw samples gzip-compressed, so the checkout's results/ stays under 60 MB", () => {
    for (const { dir } of runs) {
      const plain = readdirSync(join(dir, "raw")).filter((f) => f.endsWith(".jsonl"));
      expect(plain, `${dir}: run npm run compress-results`).toEqual([]);
    }
    expect(bytesUnder(ROOT)).toBeLessThan(60e6);
  });
});
