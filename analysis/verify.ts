import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export class RunDirError extends Error {}

/** One measured stage as the manifest records it. */
export interface StageRecord {
  side: string;
  metric: string;
  file: string;
  attempts: number;
  errors: number;
  /** Wall time of the stage's measured part, hrtime-based. */
  wallMs: number;
  concurrency: number;
  startedAt: string;
  /** Extra facts a stage reports (e.g. idle time before wakes, CPU of the processes under test). */
  notes?: Record<string, unknown>;
}

/** The manifest contract (docs/design.md) as the report reads it. */
export interface ManifestLike {
  schema: number;
  stack: string;
  runId: string;
  startedAt: string;
  finishedAt: string | null;
  preset: string;
  status?: string;
  /** What failed, when status is "failed". */
  failure?: string;
  versions: Record<string, string>;
  machine: Record<string, unknown>;
  config: Record<string, unknown>;
  settings?: Record<string, unknown>;
  stages: Record<string, StageRecord>;
  files: Record<string, { sha256: string; lines: number }>;
}

/**
 * Reads a run directory's manifest and checks every raw file it lists (sha256
 * and line count) before anything is computed. Throws RunDirError naming the
 * directory or file and what to do.
 */
export function verifyRunDir(dir: string): ManifestLike {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new RunDirError(`${dir}: no such run directory (expected results/<stack>/<runId>/ with manifest.json and raw/)`);
  }
  const mPath = join(dir, "manifest.json");
  if (!existsSync(mPath)) throw new RunDirError(`${dir}: no manifest.json; is this a run directory (results/<stack>/<runId>/)?`);
  let m: ManifestLike;
  try {
    m = JSON.parse(readFileSync(mPath, "utf8")) as ManifestLike;
  } catch (err) {
    throw new RunDirError(`${mPath}: not valid JSON (${(err as Error).message})`);
  }
  if (m.schema !== 1) throw new RunDirError(`${mPath}: schema ${String(m.schema)} is not supported (this report reads schema 1)`);
  if (!m.files || typeof m.files !== "object" || !m.stages) throw new RunDirError(`${mPath}: has no "files" or "stages"`);
  for (const [file, want] of Object.entries(m.files)) {
    const path = join(dir, file);
    if (!existsSync(path)) throw new RunDirError(`${file}: listed in the manifest but missing from ${dir}; the run directory is incomplete`);
    const buf = readFileSync(path);
    const sha = createHash("sha256").update(buf).digest("hex");
    if (sha !== want.sha256) {
      throw new RunDirError(`${file}: sha256 ${sha} does not match the manifest's ${want.sha256}; the raw file was changed after the run. Restore it (e.g. git checkout) instead of editing samples`);
    }
    let lines = 0;
    for (const b of buf) if (b === 10) lines++;
    if (lines !== want.lines) throw new RunDirError(`${file}: ${lines} lines, the manifest says ${want.lines}`);
  }
  for (const [key, st] of Object.entries(m.stages)) {
    if (!m.files[st.file]) throw new RunDirError(`stage ${key}: its file ${st.file} is not listed (with a hash) in the manifest's files`);
  }
  return m;
}
