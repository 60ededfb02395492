/**
 * A part's attempts on the runner: a part (one planned run of a pass) may take
 * several, when one is stopped by its time limit or the runner stopped under
 * it. Each attempt's run directory goes to the store whatever became of it;
 * the next attempt measures only the tasks no attempt finished, and the part's
 * result is the merge of what each attempt finished.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { metricEntry } from "../../analysis/contract/catalog";
import { verifyRunDir } from "../../analysis/contract/verify";
import { COMPRESSED_SUFFIX, listedFilePath } from "../../analysis/contract/runDirContract";
import { taskLabel, type Task } from "../experiment/passPlan";
import { writeAtomic, type Manifest } from "../experiment/runDir";

/** partDir/attempts.json: one line per attempt, in order. */
export interface Attempt {
  runId: string;
  runDir: string;
  /** sha256 of the attempt's manifest as stored. */
  sha256: string;
  blobPrefix: string;
  status: "complete" | "failed";
  failure?: string;
  tasksDone: string[];
}

export const PART_FILES = { request: "request.json", attempts: "attempts.json", current: "current", result: "result.json" } as const;

export function readAttempts(partDir: string): Attempt[] {
  const file = join(partDir, PART_FILES.attempts);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Attempt[]) : [];
}

export function recordAttempt(partDir: string, a: Attempt): void {
  const all = [...readAttempts(partDir).filter((x) => x.runId !== a.runId), a];
  writeAtomic(join(partDir, PART_FILES.attempts), `${JSON.stringify(all, null, 2)}\n`);
}

/** The requested tasks no attempt finished, in the request's order. */
export function remainingTasks(requested: readonly Task[], attempts: readonly Attempt[]): Task[] {
  const done = new Set(attempts.flatMap((a) => a.tasksDone));
  return requested.filter((t) => !done.has(taskLabel(t)));
}

/** The task a stage belongs to (its taskLabel), from the stage's record; undefined for a stage of no catalog group. */
export function taskOfStage(rec: { side: string; metric: string }): string | undefined {
  const group = metricEntry(rec.metric)?.group;
  return group ? taskLabel({ side: rec.side, group }) : undefined;
}

/**
 * A copy of an attempt holding only the tasks it finished (its manifest's
 * tasksDone): their stages and files. An attempt that was stopped may hold part
 * of a task the next attempt measures again; the copy leaves that part out, so
 * the merged result has each stage once. The stopped attempt itself stays in
 * the store, whole, under its own hash. The copy says where it came from.
 */
export function finishedPart(runDir: string, dest: string): string {
  const m = verifyRunDir(runDir) as Manifest;
  const kept = new Set(m.tasksDone ?? []);
  const stages = Object.fromEntries(Object.entries(m.stages).filter(([, rec]) => kept.has(taskOfStage(rec) ?? "")));
  const stageOfFile = (f: string) => basename(f).replace(/\.jsonl(\.gz)?$|\.json$/, "");
  const files = Object.fromEntries(Object.entries(m.files).filter(([f]) => stages[stageOfFile(f)] !== undefined));
  rmSync(dest, { recursive: true, force: true });
  for (const f of Object.keys(files)) {
    mkdirSync(dirname(join(dest, f)), { recursive: true });
    const at = listedFilePath(runDir, f)!;
    copyFileSync(at.path, join(dest, f) + (at.compressed ? COMPRESSED_SUFFIX : ""));
  }
  const out: Manifest = {
    ...m,
    stages,
    files,
    tasksDone: [...kept],
    status: "complete",
    settings: {
      ...m.settings,
      resumedFrom: { runId: m.runId, status: m.status, ...(m.failure ? { failure: m.failure } : {}), tasksKept: [...kept] },
    },
  };
  delete out.failure;
  writeFileSync(join(dest, "manifest.json"), `${JSON.stringify(out, null, 2)}\n`);
  return dest;
}
