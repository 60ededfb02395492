import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { runDirsUnder } from "../analysis/contract/runDirContract";
import { verifyRunDir } from "../analysis/contract/verify";
import { loadRun } from "../analysis/report/load";
import { summaryJson } from "../analysis/report/summaryJson";

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

describe("the committed run of the ceiling, payload and alarms groups", () => {
  it("has in its summary.json, per side, the rate one actor held, writes and reads at four or more sizes, and alarm lateness at three delays, awake and asleep", () => {
    const s = JSON.parse(summaryJson(loadRun(join(ROOT, "local/20261206T2222Z")))) as {
      capacity: Array<{ side: string; group: string; op: string; estimatePerSecond: number | null }>;
      payload: Array<{ side: string; bytes: number; write: { p50: number | null } | null; read: { p50: number | null } | null }>;
      alarms: Array<{ side: string; delayMs: number; asleep: boolean; n: number; p50: number | null }>;
    };
    for (const side of ["rivet", "cloudflare", "floor"]) {
      for (const op of ["warm1", "write1"])
        expect(
          s.capacity.find((c) => c.side === side && c.group === "ceiling" && c.op === op)?.estimatePerSecond,
          `${side} ${op}`,
        ).toBeGreaterThan(0);
      const sizes = s.payload.filter((p) => p.side === side && p.write?.p50 != null && p.read?.p50 != null);
      expect(sizes.length, side).toBeGreaterThanOrEqual(4);
      for (const delayMs of [100, 1000, 10_000])
        for (const asleep of [false, true])
          expect(
            s.alarms.find((a) => a.side === side && a.delayMs === delayMs && a.asleep === asleep)?.n,
            `${side} ${delayMs} ${asleep}`,
          ).toBeGreaterThan(0);
    }
  });
});
