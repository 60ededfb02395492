import { existsSync, readdirSync, readFileSync, rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { compressRawFiles, RAW_EXTENSIONS } from "../../analysis/contract/runDirContract";
import { hashRunFiles, RESERVE_FILE, writeAtomic, type Manifest } from "./runDir";

/** A run directory whose writer stopped before it recorded an end (its manifest still says "running"). */
export interface UnfinishedRun {
  dir: string;
  runId: string;
  startedAt: string;
  /** Complete sample lines in its raw files. */
  samples: number;
}

const readManifest = (dir: string): Manifest | null => {
  try {
    return JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Manifest;
  } catch {
    return null;
  }
};

/** The plain raw files of a run directory being written (they are compressed only once it ends). */
const plainRawFiles = (dir: string): string[] =>
  existsSync(join(dir, "raw"))
    ? readdirSync(join(dir, "raw"))
        .filter((f) => RAW_EXTENSIONS.some((ext) => f.endsWith(ext)))
        .map((f) => join(dir, "raw", f))
    : [];

const completeLines = (text: Buffer): number => text.reduce((n, b) => (b === 0x0a ? n + 1 : n), 0);

/**
 * The unfinished run directories under `stackRoot` (<blobRoot>/<stack>/): what
 * a writer killed mid-run left. Only call it where no writer can be live (a
 * stack's run folder while Pulumi holds the stack's lock).
 */
export function unfinishedRuns(stackRoot: string): UnfinishedRun[] {
  if (!existsSync(stackRoot)) return [];
  return readdirSync(stackRoot)
    .sort()
    .flatMap((runId) => {
      const dir = join(stackRoot, runId);
      const m = readManifest(dir);
      if (m?.status !== "running") return [];
      const samples = plainRawFiles(dir).reduce((n, f) => n + completeLines(readFileSync(f)), 0);
      return [{ dir, runId, startedAt: m.startedAt, samples }];
    });
}

/**
 * Ends an unfinished run as interrupted: a sample line its writer was cut off
 * in is dropped (it was never a whole sample), every complete sample and stage
 * record goes under its hash, and the manifest says "failed" with `why`. The
 * report then shows it as the partial run it is.
 */
export function endInterrupted(run: UnfinishedRun, why: string): void {
  let torn = 0;
  for (const f of plainRawFiles(run.dir)) {
    const bytes = readFileSync(f);
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end < bytes.length) {
      torn++;
      truncateSync(f, end);
    }
  }
  const m = readManifest(run.dir)!;
  rmSync(join(run.dir, RESERVE_FILE), { force: true });
  m.files = hashRunFiles(run.dir);
  m.status = "failed";
  m.finishedAt = new Date().toISOString();
  m.failure = `interrupted: ${why}; ${run.samples} samples kept${torn ? `, ${torn} sample line${torn > 1 ? "s" : ""} cut off mid-write dropped` : ""}`;
  writeAtomic(join(run.dir, "manifest.json"), `${JSON.stringify(m, null, 2)}\n`);
  compressRawFiles(run.dir, m);
}
