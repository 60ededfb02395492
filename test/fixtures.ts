import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunDir } from "../workloads/runDir";

/** Small counts (`--samples`), the same for every e2e run of the stage plan. */
export const TINY_SAMPLES = "createPing=3,createRead=3,createWrite=3,wake=2,warm=10,sqliteRead=5,sqliteWrite=5,sqliteScan=3,burstAttempts=8,seqWrite=10,openSeconds=1";

export type S = { ms: number; ok?: boolean; cold?: boolean | null; clientMs?: number; actorMs?: number; sqlMs?: number };

/** A run directory written through the same RunDir/SampleFile code the driver uses. */
export function fixture(
  stages: Record<string, { samples: S[]; concurrency?: number; wallMs?: number }>,
  o: { root?: string; preset?: string; at?: Date; config?: Record<string, unknown>; settings?: Record<string, unknown> } = {},
): string {
  const root = o.root ?? mkdtempSync(join(tmpdir(), "ab-report-"));
  const preset = o.preset ?? "quick";
  const run = new RunDir(root, "local", preset, { preset, sides: [...new Set(Object.keys(stages).map((k) => k.split(".")[0]))], ...o.config }, o.at ?? new Date(Date.UTC(2026, 11, 2, 13, 5)));
  for (const [key, st] of Object.entries(stages)) {
    const [side, ...rest] = key.split(".");
    const metric = rest.join(".");
    const f = run.rawFile(side, metric);
    st.samples.forEach((s, i) => f.write({ seq: i, at: 1_796_000_000_000 + i, ok: s.ok ?? true, ms: s.ms, cold: s.ok === false ? null : (s.cold ?? false), clientMs: s.clientMs, actorMs: s.actorMs, sqlMs: s.sqlMs, ...(s.ok === false ? { error: "HTTP 504" } : {}) }));
    f.close();
    run.recordStage({ side, metric, file: `raw/${side}.${metric}.jsonl`, attempts: st.samples.length, errors: st.samples.filter((s) => s.ok === false).length, wallMs: st.wallMs ?? 1000, concurrency: st.concurrency ?? 1, startedAt: "2026-12-02T13:05:00.000Z" });
  }
  if (o.settings) run.manifest.settings = o.settings;
  run.manifest.finishedAt = "2026-12-02T13:06:00.000Z";
  run.manifest.status = "complete";
  run.rehash();
  run.save();
  return run.dir;
}
