import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { measure, type Outcome } from "./measure";
import { createProgress } from "./progress";
import { RunDir } from "./runDir";

describe("measure", () => {
  it("keeps at most `concurrency` calls in flight, writes every call's sample once, and each sample is on disk before its worker's call after next", async () => {
    const root = mkdtempSync(join(tmpdir(), "ab-measure-"));
    try {
      const run = new RunDir(root, "local", "quick", {});
      const ctx = { run, progress: createProgress(process.stderr, true) };
      const file = join(run.dir, "raw/t.m.jsonl");
      let inFlight = 0;
      let most = 0;
      const started: number[] = [];
      const onDiskAtStart: number[] = [];
      const call = async (i: number): Promise<Outcome> => {
        started.push(i);
        onDiskAtStart[i] = readFileSync(file, "utf8").split("\n").filter(Boolean).length;
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 1 + (i % 3)));
        inFlight--;
        return i % 5 === 4 ? { ok: false, ms: i, error: `failed ${i}` } : { ok: true, ms: i, reply: { cold: i === 0, actorMs: null, sqlMs: null } };
      };
      await measure({ ctx, side: "t", metric: "m", n: 20, concurrency: 3, call });
      expect(most).toBe(3);
      expect(started).toHaveLength(20);
      const samples = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { seq: number; ok: boolean; ms: number; cold: boolean | null });
      expect(samples.map((s) => s.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      // Each sample is the outcome of its own call.
      for (const s of samples) expect([s.ms, s.ok, s.cold]).toEqual([s.seq, s.seq % 5 !== 4, s.seq % 5 === 4 ? null : s.seq === 0]);
      expect(run.manifest.stages["t.m"]).toMatchObject({ attempts: 20, errors: 4, concurrency: 3 });
      // A worker sends its next call, then writes the sample just taken: by the time that worker
      // starts the call after, every call started two rounds earlier has its line on disk.
      for (let k = 6; k < 20; k++) expect(onDiskAtStart[started[k]]).toBeGreaterThanOrEqual(k - 6);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
