/**
 * The run-directory contract, in one place: what a sample, a stage record and
 * a manifest hold, how their files are named, and the one digest that pins
 * them. docs/run-directory.md describes the format for readers.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { parseJsonLines } from "./jsonLines";
import { GROUPS, sideMeasures } from "./catalog";
import { captureOf, otlpOf } from "./hops";
import { sideBookOf, type SideBook, type SideProfile } from "./sideProfile";

export const MANIFEST_SCHEMA = 1;

/** A run directory that cannot be read as one: missing, changed after the run, or malformed. */
export class RunDirError extends Error {}

/** One measured sample, one JSON line in raw/<side>.<metric>.jsonl. */
export interface Sample {
  seq: number;
  /** The repetition the sample was taken in (the manifest's repetitions[].rep); absent in a run without repetitions. */
  rep?: number;
  /** Wall-clock ms (Date.now()) when the sample's request was sent. */
  at: number;
  ok: boolean;
  /** The in-system round trip in ms, the primary figure (the side's clock, see catalog SIDE_CLOCKS). */
  ms: number;
  /** The actor's own proof of a fresh instance: true on the first request an instance served. null: no actor answered. */
  cold: boolean | null;
  actorMs?: number | null;
  sqlMs?: number | null;
  /** The driver's own round trip where `ms` is timed elsewhere (the DO side). */
  clientMs?: number | null;
  /** Where the Worker ran (Cloudflare's data center code), when the runtime says. */
  colo?: string;
  /** SQLite rows the call read and wrote, as the runtime's own SQL cursors counted them (the Durable Object's billed units); absent where the runtime does not count them. */
  rowsRead?: number;
  rowsWritten?: number;
  /** An alarm's lateness: when its handler began less when it was due, on the actor's own clock (Date.now()), ms. */
  lateMs?: number | null;
  error?: string;
}

/** One repetition's part of a stage: its own attempts, errors, wall time and notes. */
export interface RepStage {
  rep: number;
  attempts: number;
  errors: number;
  wallMs: number;
  startedAt: string;
  notes?: Record<string, unknown>;
  /** "failed" when the stage ended early: its runtime was lost (a process ended, named in `failure`). */
  status?: "failed";
  failure?: string;
}

/**
 * One measured stage. Written to stages/<side>.<metric>.json (hashed) and copied into the manifest.
 * In a run with repetitions, attempts, errors and wallMs are the sums over `repetitions`, which
 * holds each repetition's own part (its notes too); without, the record is the one repetition.
 */
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
  repetitions?: RepStage[];
  /** "failed" when the stage (in any repetition) ended early; `failure` says why. */
  status?: "failed";
  failure?: string;
}

/** A stage's parts, one per repetition: its `repetitions`, or the record itself as repetition 0. */
export function stageReps(st: StageRecord): RepStage[] {
  if (st.repetitions) return st.repetitions;
  return [
    {
      rep: 0,
      attempts: st.attempts,
      errors: st.errors,
      wallMs: st.wallMs,
      startedAt: st.startedAt,
      ...(st.notes ? { notes: st.notes } : {}),
      ...(st.status ? { status: st.status } : {}),
      ...(st.failure ? { failure: st.failure } : {}),
    },
  ];
}

/** One repetition of a run's plan: every side's runtime started afresh, the sides in `order`. */
export interface Repetition {
  rep: number;
  startedAt: string;
  finishedAt: string | null;
  order: string[];
  /** What the repetition recorded about itself besides its stages (how the machine was brought to rest before each side). */
  notes?: Record<string, unknown>;
}

export interface FileDigest {
  sha256: string;
  lines: number;
}

/** The manifest as the report reads it. */
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
  /** The code that made the run: its git commit and whether the tree had uncommitted changes. */
  code?: { commit: string | null; dirty: boolean | null; source: string };
  stages: Record<string, StageRecord>;
  files: Record<string, FileDigest>;
  /** The repetitions of the plan, in the order they ran; absent in a run made as one (a cloud group run, an older run). */
  repetitions?: Repetition[];
  /** The machine's calibration at the run's start (analysis/stats/calibration.ts); absent in older runs. Read through readCalibration. */
  calibration?: unknown;
  /** Each side's profile, as its package declared it, in the registry's order; absent in runs before 2026-12-05 (read through sideBookOf). */
  sideProfiles?: SideProfile[];
}

/** A run id: the UTC minute a run started, with -2, -3, ... when that minute was taken. */
export const RUN_ID = /^\d{8}T\d{4}Z(-\d{1,4})?$/;

/**
 * A name a manifest may list: raw/<side>.<metric>.jsonl or
 * stages/<side>.<metric>.json in a plain character set. Nothing else reaches
 * a path, so no listed name can leave the run directory.
 */
const LISTED = /^(raw\/[a-z][a-z0-9-]*\.[A-Za-z0-9][A-Za-z0-9.-]*\.jsonl|stages\/[a-z][a-z0-9-]*\.[A-Za-z0-9][A-Za-z0-9.-]*\.json)$/;
const LISTED_WORDS =
  "not raw/<side>.<metric>.jsonl, raw/<side>.<metric>.rep<N>.pcap, raw/<side>.otlp.rep<N>.grpc or stages/<side>.<metric>.json";

/** Why `name` may not be listed in a manifest, or null. */
export function listedNameProblem(name: string): string | null {
  return LISTED.test(name) || captureOf(name) || otlpOf(name) ? null : LISTED_WORDS;
}

/**
 * The stricter rule for a benchmark run's files, which may come from another
 * machine: a known side and a catalog metric that side measures, or the
 * analytics file of a known group.
 */
function benchmarkFileProblem(name: string, sides: SideBook): string | null {
  const analytics = /^raw\/cloudflare\.analytics\.([a-z]+)\.jsonl$/.exec(name);
  if (analytics) return (GROUPS as readonly string[]).includes(analytics[1]) ? null : `"${analytics[1]}" is not a stage group`;
  const otlp = otlpOf(name);
  if (otlp) return sides.order.includes(otlp.side) ? null : `"${otlp.side}" is not a side of the run (${sides.order.join(", ")})`;
  const m = /^(?:raw\/([a-z]+)\.(.+)\.jsonl|stages\/([a-z]+)\.(.+)\.json)$/.exec(name);
  const capture = captureOf(name);
  if (!m && !capture) return LISTED_WORDS;
  const side = capture?.side ?? m![1] ?? m![3];
  const metric = capture?.metric ?? m![2] ?? m![4];
  if (!sides.order.includes(side)) return `"${side}" is not a side of the run (${sides.order.join(", ")})`;
  if (!sideMeasures(sides.get(side), metric))
    return `"${metric}" is not a metric the ${side} side measures (analysis/contract/catalog.ts and its profile)`;
  return null;
}

/** Throws RunDirError naming the first entry of a benchmark run's manifest that may not be written. */
export function checkBenchmarkFiles(m: Pick<ManifestLike, "files" | "stages" | "sideProfiles">, where: string): void {
  const sides = sideBookOf(m);
  for (const name of Object.keys(m.files)) {
    const p = benchmarkFileProblem(name, sides);
    if (p) throw new RunDirError(`${where}: lists "${name}", which a benchmark run may not hold (${p}); nothing was written`);
  }
}

export const stageKey = (side: string, metric: string) => `${side}.${metric}`;
export const rawFileName = (side: string, metric: string) => `raw/${side}.${metric}.jsonl`;
export const stageFileName = (side: string, metric: string) => `stages/${side}.${metric}.json`;

/** sha256 and newline count of a file's bytes: the digest the manifest pins every file with. */
export function digestBytes(buf: Buffer): FileDigest {
  let lines = 0;
  for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) lines++;
  return { sha256: createHash("sha256").update(buf).digest("hex"), lines };
}

export function fileDigest(path: string): FileDigest {
  return digestBytes(readFileSync(path));
}

const optNumber = (x: unknown) => x === undefined || x === null || (typeof x === "number" && Number.isFinite(x));

/** Why a parsed line is not a sample, or null when it is one. */
function sampleProblem(s: unknown): string | null {
  if (typeof s !== "object" || s === null || Array.isArray(s)) return "not a JSON object";
  const x = s as Record<string, unknown>;
  if (typeof x.ok !== "boolean") return '"ok" must be true or false';
  if (typeof x.ms !== "number" || !Number.isFinite(x.ms)) return '"ms" must be a number';
  if (x.cold !== undefined && x.cold !== null && typeof x.cold !== "boolean") return '"cold" must be true, false or null';
  for (const k of ["actorMs", "sqlMs", "clientMs", "lateMs"]) if (!optNumber(x[k])) return `"${k}" must be a number or null`;
  if (x.rep !== undefined && !(Number.isInteger(x.rep) && (x.rep as number) >= 0)) return '"rep" must be a whole number from 0';
  if (x.colo !== undefined && (typeof x.colo !== "string" || !/^[A-Z]{3,4}$/.test(x.colo)))
    return '"colo" must be a data center code such as IAD';
  for (const k of ["rowsRead", "rowsWritten"])
    if (x[k] !== undefined && !(Number.isInteger(x[k]) && (x[k] as number) >= 0)) return `"${k}" must be a whole number from 0`;
  return null;
}

/** A raw file's samples; throws RunDirError naming the file and line of anything that is not a sample. */
export function parseSamples(text: string, label: string): Sample[] {
  try {
    return parseJsonLines<Sample>(text, label, (s, where) => {
      const p = sampleProblem(s);
      if (p) throw new RunDirError(`${where}: not a sample (${p})`);
    });
  } catch (err) {
    throw err instanceof RunDirError ? err : new RunDirError((err as Error).message);
  }
}

export function readSamples(path: string, label = path): Sample[] {
  return parseSamples(readFileSync(path, "utf8"), label);
}

/** The repetition an unfinished run ended in (never finished: an interrupt, a killed driver), or null. */
export function unendedRepetition(m: ManifestLike): number | null {
  if (m.status === "complete" || !Array.isArray(m.repetitions)) return null;
  const last = m.repetitions.at(-1);
  return last && last.finishedAt === null ? last.rep : null;
}

/**
 * A verified stage's samples (verifyRunDir first): the lines its hash covers,
 * without those of a repetition the run ended in before this stage recorded
 * its part. For a finished run, every line of the file.
 */
export function stageSamples(dir: string, m: ManifestLike, st: StageRecord): Sample[] {
  const text = readListed(dir, st.file).toString("utf8");
  const hashed = m.files[st.file]?.lines;
  const all = parseSamples(hashed === undefined ? text : text.split("\n").slice(0, hashed).join("\n"), st.file);
  const unended = unendedRepetition(m);
  if (unended === null || !st.repetitions || st.repetitions.some((r) => r.rep === unended)) return all;
  return all.filter((s) => s.rep !== unended);
}

/**
 * A run's raw samples are stored gzip-compressed once it has ended: `<file>.gz`
 * beside the name the manifest lists, whose hash and line count are over the
 * uncompressed bytes, so a run converted after it was made verifies against
 * the hashes it was made with. A file present both ways is read plain (a
 * compression that was cut short).
 */
export const COMPRESSED_SUFFIX = ".gz";

/** The kinds of file raw/ holds: samples, packet captures (--capture), trace exports (--otel). */
export const RAW_EXTENSIONS = [".jsonl", ".pcap", ".grpc"] as const;

/** Where a listed file is on disk, plain or compressed; null when neither. */
export function listedFilePath(dir: string, file: string): { path: string; compressed: boolean } | null {
  const plain = join(dir, file);
  if (existsSync(plain)) return { path: plain, compressed: false };
  const gz = plain + COMPRESSED_SUFFIX;
  return existsSync(gz) ? { path: gz, compressed: true } : null;
}

/** A listed file's bytes, uncompressed. */
export function readListed(dir: string, file: string): Buffer {
  const at = listedFilePath(dir, file);
  if (!at) throw new RunDirError(`${file}: listed in the manifest but missing from ${dir} (nor ${file}${COMPRESSED_SUFFIX})`);
  if (!at.compressed) return readFileSync(at.path);
  try {
    return gunzipSync(readFileSync(at.path));
  } catch (err) {
    throw new RunDirError(`${file}${COMPRESSED_SUFFIX}: not a gzip file (${(err as Error).message}); restore it (e.g. git checkout)`);
  }
}

/**
 * Compresses an ended run's raw files in place (listed `raw/*` of RAW_EXTENSIONS present
 * plain): each written beside as `.gz` through a temporary name, then the
 * plain file removed. The manifest is not touched. The bytes compressed.
 */
export function compressRawFiles(dir: string, m: Pick<ManifestLike, "files">): { before: number; after: number } {
  let before = 0;
  let after = 0;
  for (const file of Object.keys(m.files).filter((f) => f.startsWith("raw/") && RAW_EXTENSIONS.some((ext) => f.endsWith(ext)))) {
    const plain = join(dir, file);
    if (!existsSync(plain)) continue;
    const buf = readFileSync(plain);
    const gz = gzipSync(buf, { level: 9 });
    const tmp = `${plain}${COMPRESSED_SUFFIX}.tmp`;
    try {
      writeFileSync(tmp, gz);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
    renameSync(tmp, `${plain}${COMPRESSED_SUFFIX}`);
    unlinkSync(plain);
    before += buf.length;
    after += gz.length;
  }
  return { before, after };
}

/** Every results/<stack>/<runId>/ folder, by stack then run. */
export function runDirsUnder(resultsRoot: string): Array<{ stack: string; runId: string; dir: string }> {
  if (!existsSync(resultsRoot)) return [];
  const out: Array<{ stack: string; runId: string; dir: string }> = [];
  for (const stack of readdirSync(resultsRoot).sort()) {
    const sdir = join(resultsRoot, stack);
    if (!statSync(sdir).isDirectory()) continue;
    for (const runId of readdirSync(sdir).sort()) {
      if (RUN_ID.test(runId) && statSync(join(sdir, runId)).isDirectory()) out.push({ stack, runId, dir: join(sdir, runId) });
    }
  }
  return out;
}
