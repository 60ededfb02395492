import { existsSync, lstatSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { manifestShapeProblem } from "./manifestShape";
import {
  COMPRESSED_SUFFIX,
  digestBytes,
  listedFilePath,
  listedNameProblem,
  MANIFEST_SCHEMA,
  parseSamples,
  readListed,
  RunDirError,
  stageFileName,
  stageKey,
  unendedRepetition,
  type ManifestLike,
  type Sample,
  type StageRecord,
} from "./runDirContract";

export { RunDirError, type ManifestLike, type StageRecord } from "./runDirContract";

/** A listed path must be a plain relative path inside the run directory: no "..", no absolute path, no backslash. */
function plainRelativePath(p: string): boolean {
  return typeof p === "string" && p.length > 0 && !isAbsolute(p) && !p.includes("\\") && normalize(p) === p && !p.split("/").includes("..");
}

/** The first differing top-level field of two stage records, for the error message. */
function firstDifference(a: StageRecord, b: StageRecord): string {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])] as Array<keyof StageRecord>;
  const k = keys.find((key) => !isDeepStrictEqual(a[key], b[key]));
  return k ? `${k}: manifest ${JSON.stringify(a[k])}, recorded ${JSON.stringify(b[k])}` : "?";
}

/**
 * Reads a run directory's manifest and checks, before anything is computed,
 * every file it lists (sha256 and line count), every sample line, and every
 * stage record: the manifest's copy must equal the hashed stages/<key>.json,
 * and its attempts and errors must equal what the raw file holds. Throws
 * RunDirError naming the file, line or stage and what to do.
 */
export function verifyRunDir(dir: string): ManifestLike {
  const { m, mPath } = readManifest(dir);
  const reps = repetitionsOf(m, mPath);
  const bytes = new Map<string, Buffer>();
  for (const [file, want] of Object.entries(m.files)) bytes.set(file, verifiedFile(dir, mPath, m, file, want));
  for (const [key, st] of Object.entries(m.stages)) verifyStage(m, key, st, bytes, reps);
  return m;
}

/** The manifest, parsed and of the shape the driver writes, in a directory whose raw/ and stages/ are plain folders. */
function readManifest(dir: string): { m: ManifestLike; mPath: string } {
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
  if (m.schema !== MANIFEST_SCHEMA)
    throw new RunDirError(`${mPath}: schema ${String(m.schema)} is not supported (this report reads schema ${MANIFEST_SCHEMA})`);
  if (!m.files || typeof m.files !== "object" || !m.stages || typeof m.stages !== "object")
    throw new RunDirError(`${mPath}: has no "files" or "stages"`);
  const shape = manifestShapeProblem(m);
  if (shape) throw new RunDirError(`${mPath}: ${shape}; this is not a manifest the driver writes, so nothing of the run is read`);
  for (const folder of ["raw", "stages"]) {
    const p = join(dir, folder);
    if (existsSync(p) && !lstatSync(p).isDirectory())
      throw new RunDirError(`${p}: not a plain folder (a link or a file); a run directory holds its files itself`);
  }
  return { m, mPath };
}

/** A listed file's bytes (uncompressed), once its name, kind, sha256 and line count are the manifest's. */
function verifiedFile(dir: string, mPath: string, m: ManifestLike, file: string, want: { sha256: string; lines: number }): Buffer {
  if (!plainRelativePath(file))
    throw new RunDirError(`${mPath}: lists "${file}", which is not a plain relative path inside the run directory`);
  const problem = listedNameProblem(file);
  if (problem) throw new RunDirError(`${mPath}: lists "${file}", which a run directory does not hold (${problem})`);
  const at = listedFilePath(dir, file);
  if (!at) throw new RunDirError(`${file}: listed in the manifest but missing from ${dir}; the run directory is incomplete`);
  if (!lstatSync(at.path).isFile())
    throw new RunDirError(
      `${file}${at.compressed ? COMPRESSED_SUFFIX : ""}: not a regular file (a link or a folder); a run directory holds plain files only`,
    );
  let buf = readListed(dir, file);
  let got = digestBytes(buf);
  // A run whose driver was killed: its last stage's samples went on after the last checkpoint. The hashed lines stand; the rest are not read.
  if (m.status === "running" && file.startsWith("raw/") && got.sha256 !== want.sha256 && got.lines > want.lines) {
    const prefix = buf.subarray(0, endOfLine(buf, want.lines));
    const head = digestBytes(prefix);
    if (head.sha256 === want.sha256) {
      buf = prefix;
      got = head;
    }
  }
  if (got.sha256 !== want.sha256) {
    throw new RunDirError(
      `${file}: sha256 ${got.sha256} does not match the manifest's ${want.sha256}; the file was changed after the run. Restore it (e.g. git checkout) instead of editing it`,
    );
  }
  if (got.lines !== want.lines) throw new RunDirError(`${file}: ${got.lines} lines, the manifest says ${want.lines}`);
  return buf;
}

/** A stage: its record equals the hashed stages/<key>.json, and its attempts and errors are what its raw file holds. */
function verifyStage(
  m: ManifestLike,
  key: string,
  st: StageRecord,
  bytes: ReadonlyMap<string, Buffer>,
  reps: ReturnType<typeof repetitionsOf>,
): void {
  const recFile = stageFileName(st.side, st.metric);
  if (key !== stageKey(st.side, st.metric)) throw new RunDirError(`stage ${key}: its record names ${st.side}.${st.metric}`);
  const rec = bytes.get(recFile);
  if (!rec)
    throw new RunDirError(
      `stage ${key}: its record ${recFile} is not listed (with a hash) in the manifest's files; a run made before stage records were hashed cannot be reported, measure it again`,
    );
  let hashed: StageRecord;
  try {
    hashed = JSON.parse(rec.toString("utf8")) as StageRecord;
  } catch {
    throw new RunDirError(`${recFile}: not valid JSON`);
  }
  if (!isDeepStrictEqual(st, hashed)) {
    throw new RunDirError(
      `stage ${key}: the manifest's record differs from the hashed ${recFile} (${firstDifference(st, hashed)}); restore manifest.json instead of editing it`,
    );
  }
  const raw = bytes.get(st.file);
  if (!raw) throw new RunDirError(`stage ${key}: its file ${st.file} is not listed (with a hash) in the manifest's files`);
  const all = parseSamples(raw.toString("utf8"), st.file);
  const unended = unendedRepetition(m);
  // Samples of the repetition a run ended in, for which the stage has no part yet: a stage that never ended; not counted.
  const samples =
    unended === null || !st.repetitions ? all : all.filter((s) => s.rep !== unended || st.repetitions!.some((r) => r.rep === unended));
  const errors = samples.filter((s) => !s.ok).length;
  if (samples.length !== st.attempts || errors !== st.errors) {
    throw new RunDirError(
      `stage ${key}: records ${st.attempts} attempts and ${st.errors} errors, but ${st.file} holds ${samples.length} samples with ${errors} failures`,
    );
  }
  checkRepetitions(key, st, samples, reps);
}

/** The byte offset just past the `lines`-th newline of `buf` (its length if it has fewer). */
function endOfLine(buf: Buffer, lines: number): number {
  let at = 0;
  for (let i = 0; i < lines; i++) {
    const nl = buf.indexOf(10, at);
    if (nl < 0) return buf.length;
    at = nl + 1;
  }
  return at;
}

/** The manifest's repetition numbers, checked to be 0, 1, ... in order; null in a run made without repetitions. */
function repetitionsOf(m: ManifestLike, mPath: string): Set<number> | null {
  if (m.repetitions === undefined) return null;
  if (!Array.isArray(m.repetitions)) throw new RunDirError(`${mPath}: "repetitions" must be a list`);
  m.repetitions.forEach((r, i) => {
    if (
      typeof r !== "object" ||
      r === null ||
      r.rep !== i ||
      typeof r.startedAt !== "string" ||
      !Array.isArray(r.order) ||
      !r.order.every((x) => typeof x === "string")
    ) {
      throw new RunDirError(`${mPath}: repetitions[${i}] must be {rep: ${i}, startedAt, finishedAt, order: [sides]}`);
    }
  });
  return new Set(m.repetitions.map((r) => r.rep));
}

/**
 * Every sample names a repetition the manifest lists (or none, in a run
 * without repetitions), and each repetition's part of the stage record
 * counts exactly the samples and failures that repetition holds.
 */
function checkRepetitions(key: string, st: StageRecord, samples: readonly Sample[], reps: Set<number> | null): void {
  const stray = samples.findIndex((s) => (reps === null ? s.rep !== undefined : s.rep === undefined || !reps.has(s.rep)));
  if (stray >= 0) {
    const rep = samples[stray].rep;
    throw new RunDirError(
      `${st.file} line ${stray + 1}: ${rep === undefined ? "names no repetition" : `names repetition ${rep}`}, which the manifest does not list (${reps === null ? "a run without repetitions" : `repetitions ${[...reps].join(", ")}`})`,
    );
  }
  if (st.repetitions === undefined) {
    if (reps !== null) throw new RunDirError(`stage ${key}: has no per-repetition parts, but the run has repetitions`);
    return;
  }
  if (reps === null || !Array.isArray(st.repetitions))
    throw new RunDirError(`stage ${key}: has per-repetition parts, but the manifest lists no repetitions`);
  const seen = new Set<number>();
  for (const part of st.repetitions) {
    if (!reps.has(part.rep) || seen.has(part.rep))
      throw new RunDirError(
        `stage ${key}: a part for repetition ${String(part.rep)}, which the manifest does not list or the record lists twice`,
      );
    seen.add(part.rep);
    const own = samples.filter((s) => s.rep === part.rep);
    const errors = own.filter((s) => !s.ok).length;
    if (own.length !== part.attempts || errors !== part.errors) {
      throw new RunDirError(
        `stage ${key}: repetition ${part.rep} records ${part.attempts} attempts and ${part.errors} errors, but ${st.file} holds ${own.length} samples with ${errors} failures for it`,
      );
    }
  }
  const without = samples.find((s) => !seen.has(s.rep!));
  if (without)
    throw new RunDirError(`stage ${key}: ${st.file} holds samples of repetition ${without.rep}, which its record has no part for`);
}
