import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { cpus, totalmem, release, platform, arch, hostname } from "node:os";
import { join } from "node:path";
import { SampleFile } from "./samples";
import { codeProvenance } from "../host/versions";
import {
  COMPRESSED_SUFFIX,
  compressRawFiles,
  digestBytes,
  fileDigest,
  MANIFEST_SCHEMA,
  RAW_EXTENSIONS,
  readListed,
  rawFileName,
  stageFileName,
  stageKey,
  type FileDigest,
  type ManifestLike,
  type RepStage,
  type StageRecord,
} from "../../analysis/contract/runDirContract";

/** UTC minute id, e.g. 20261202T1305Z. */
export function formatRunId(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}T${p(d.getUTCHours())}${p(d.getUTCMinutes())}Z`;
}

export type { StageRecord } from "../../analysis/contract/runDirContract";

/** The manifest as the driver writes it: the contract's shape, with settings and status always present. */
export interface Manifest extends ManifestLike {
  settings: Record<string, unknown>;
  status: "running" | "complete" | "failed";
  failure?: string;
  /** The tasks ("<side> <group>", passPlan's taskLabel) whose group ran to its end, in the order they did: what a resumed run need not measure again. */
  tasksDone?: string[];
}

function machineInfo(): Record<string, unknown> {
  const c = cpus();
  return {
    cpus: c.length,
    cpuModel: c[0]?.model ?? "unknown",
    memory: totalmem(),
    os: `${platform()} ${release()} ${arch()}`,
    hostname: hostname(),
  };
}

/** Writes a file whole or not at all. */
export function writeAtomic(path: string, text: string): void {
  try {
    writeFileSync(`${path}.tmp`, text);
  } catch (err) {
    rmSync(`${path}.tmp`, { force: true });
    throw err;
  }
  renameSync(`${path}.tmp`, path);
}

/**
 * Space a run directory keeps for its own ending: a file of this size made
 * when the run starts and deleted when the disk fills, so that the stage in
 * progress and the manifest can still be written, "failed", with every sample
 * before it under its hash.
 */
const RESERVE_BYTES = 4 << 20;
export const RESERVE_FILE = ".space-reserve";

/** How often the manifest is saved during a stage, its samples so far hashed: what a killed driver leaves verifiable. */
export const CHECKPOINT_MS = 1000;

/**
 * A run directory: results/<stack>/<runId>/ with raw/, stages/ and
 * manifest.json (docs/run-directory.md). Each stage's record is written to
 * stages/ and hashed like its samples; the manifest is rewritten (atomically)
 * after every stage, so a crash leaves a manifest that lists and hashes every
 * stage completed before it.
 */
export class RunDir {
  readonly dir: string;
  readonly manifest: Manifest;

  constructor(resultsRoot: string, stack: string, preset: string, config: Record<string, unknown>, now = new Date()) {
    const base = formatRunId(now);
    let runId = base;
    for (let i = 2; existsSync(join(resultsRoot, stack, runId)); i++) runId = `${base}-${i}`;
    this.dir = join(resultsRoot, stack, runId);
    mkdirSync(join(this.dir, "raw"), { recursive: true });
    mkdirSync(join(this.dir, "stages"), { recursive: true });
    writeFileSync(join(this.dir, RESERVE_FILE), Buffer.alloc(RESERVE_BYTES));
    this.manifest = {
      schema: MANIFEST_SCHEMA,
      stack,
      runId,
      startedAt: now.toISOString(),
      finishedAt: null,
      preset,
      versions: { node: process.version },
      machine: machineInfo(),
      config,
      code: codeProvenance(),
      settings: {},
      stages: {},
      files: {},
      status: "running",
    };
    this.save();
  }

  private open = new Set<SampleFile>();
  /** The repetition being measured; undefined in a run made without repetitions. */
  private rep: number | undefined;
  /** The repetition being measured (0 in a run without repetitions). */
  get repetition(): number {
    return this.rep ?? 0;
  }

  /**
   * Starts repetition `rep` (the next one): the samples and stage parts
   * measured until endRepetition belong to it; `order` is the order its
   * sides run in.
   */
  beginRepetition(rep: number, order: readonly string[]): void {
    const reps = (this.manifest.repetitions ??= []);
    if (rep !== reps.length) throw new Error(`repetition ${rep} begun after ${reps.length} (they are numbered 0, 1, ... in order)`);
    reps.push({ rep, startedAt: new Date().toISOString(), finishedAt: null, order: [...order] });
    this.rep = rep;
    this.save();
  }

  /** Notes a fact of the repetition being measured (not of a stage), kept in the manifest's repetitions. */
  noteRepetition(key: string, value: unknown): void {
    const last = this.manifest.repetitions?.at(-1);
    if (!last) throw new Error(`no repetition to note "${key}" in: begin one first`);
    (last.notes ??= {})[key] = value;
    this.save();
  }

  endRepetition(): void {
    const last = this.manifest.repetitions?.at(-1);
    if (last && last.finishedAt === null) last.finishedAt = new Date().toISOString();
    this.save();
  }

  rawFile(side: string, metric: string): SampleFile {
    const f = new SampleFile(join(this.dir, rawFileName(side, metric)), this.rep);
    this.open.add(f);
    this.checkpoints ??= setInterval(() => this.checkpoint(), CHECKPOINT_MS).unref();
    return f;
  }

  private checkpoints: NodeJS.Timeout | undefined;

  /** Saves the manifest with the samples written so far hashed, while a stage is measuring. */
  private checkpoint(): void {
    for (const f of this.open) if (f.closed) this.open.delete(f);
    if (this.open.size === 0 || this.diskFull) {
      clearInterval(this.checkpoints);
      this.checkpoints = undefined;
      return;
    }
    try {
      this.rehash();
      this.save();
    } catch {
      // a checkpoint that cannot be written (a full disk) is left to the stage's own end
    }
  }

  /** Closes every raw file still open: samples completing after an interrupt are not written. */
  closeRawFiles(): void {
    for (const f of this.open) f.close();
    this.open.clear();
    clearInterval(this.checkpoints);
    this.checkpoints = undefined;
  }

  /** Set once the disk ran out of space: the reserve was spent on ending the run. */
  diskFull: string | undefined;

  /**
   * Writes a run file; on a full disk, deletes the reserve and tries once
   * more, so the run can still record how it ended.
   */
  private write(path: string, text: string): void {
    try {
      writeAtomic(path, text);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
      this.spaceRanOut(`${(err as Error).message}`);
      writeAtomic(path, text);
    }
  }

  /** The disk is full: the reserve goes, so the stage in progress and the manifest can still be written. */
  spaceRanOut(why: string): void {
    this.diskFull ??= why;
    rmSync(join(this.dir, RESERVE_FILE), { force: true });
  }

  /**
   * Records a stage. Within a repetition the record gains this repetition's
   * part, and its attempts, errors and wall time become the sums over its parts.
   */
  recordStage(part: StageRecord): void {
    const rec = this.rep === undefined ? part : this.withRepetition(part, this.rep);
    // Round-tripped through JSON so the manifest's copy equals the hashed file's, undefined fields and all.
    const text = `${JSON.stringify(rec, null, 2)}\n`;
    this.write(join(this.dir, stageFileName(rec.side, rec.metric)), text);
    this.manifest.stages[stageKey(rec.side, rec.metric)] = JSON.parse(text) as StageRecord;
    this.rehash();
    this.save();
  }

  private withRepetition(part: StageRecord, rep: number): StageRecord {
    const had = this.manifest.stages[stageKey(part.side, part.metric)];
    const own: RepStage = {
      rep,
      attempts: part.attempts,
      errors: part.errors,
      wallMs: part.wallMs,
      startedAt: part.startedAt,
      ...(part.notes ? { notes: part.notes } : {}),
      ...(part.status ? { status: part.status, failure: part.failure } : {}),
    };
    const repetitions = [...(had?.repetitions ?? []).filter((r) => r.rep !== rep), own];
    const sum = (k: "attempts" | "errors" | "wallMs") => repetitions.reduce((s, r) => s + r[k], 0);
    const failed = repetitions.filter((r) => r.status === "failed");
    return {
      side: part.side,
      metric: part.metric,
      file: part.file,
      attempts: sum("attempts"),
      errors: sum("errors"),
      wallMs: sum("wallMs"),
      concurrency: part.concurrency,
      startedAt: had?.startedAt ?? part.startedAt,
      repetitions,
      ...(failed.length
        ? { status: "failed" as const, failure: failed.map((r) => `repetition ${r.rep + 1}: ${r.failure}`).join("; ") }
        : {}),
    };
  }

  /** Digests by file, with the size and mtime they were taken at: a file unchanged since is not read again. */
  private digests: DigestCache = new Map();

  /** Hashes every raw file and stage record present, so the manifest never lists a stale digest (hashRunFiles). */
  rehash(): void {
    this.manifest.files = hashRunFiles(this.dir, this.digests);
  }

  finish(status: "complete" | "failed", failure?: string): void {
    this.closeRawFiles();
    rmSync(join(this.dir, RESERVE_FILE), { force: true });
    this.manifest.finishedAt = new Date().toISOString();
    this.manifest.status = status;
    if (failure) this.manifest.failure = failure;
    this.rehash();
    this.save();
    // Stored compressed once ended (the manifest's hashes stay over the uncompressed bytes): written plain while
    // measuring, so a crash loses no sample. Where compressing fails (a full disk), the files stay plain, as written.
    try {
      compressRawFiles(this.dir, this.manifest);
    } catch {
      // left plain: every reader takes a listed file either way
    }
  }

  save(): void {
    this.write(join(this.dir, "manifest.json"), `${JSON.stringify(this.manifest, null, 2)}\n`);
  }
}

type DigestCache = Map<string, { size: bigint; mtimeNs: bigint; digest: FileDigest }>;

/**
 * The `files` of a run directory's manifest: every raw file and stage record present. A raw file stored
 * compressed (after finish) is listed under its plain name, hashed over its uncompressed bytes; one present both
 * ways is the plain one. `cache` keeps digests by size and mtime, so a file unchanged since is not read again.
 */
export function hashRunFiles(dir: string, cache: DigestCache = new Map()): Manifest["files"] {
  const files: Manifest["files"] = {};
  for (const [folder, exts] of [
    ["raw", RAW_EXTENSIONS],
    ["stages", [".json"]],
  ] as const) {
    const names = readdirSync(join(dir, folder)).sort();
    for (const name of names) {
      const listed = name.endsWith(COMPRESSED_SUFFIX) ? name.slice(0, -COMPRESSED_SUFFIX.length) : name;
      if (!exts.some((ext) => listed.endsWith(ext)) || (listed !== name && names.includes(listed))) continue;
      const path = join(dir, folder, name);
      const { size, mtimeNs } = statSync(path, { bigint: true });
      let known = cache.get(path);
      if (!known || known.size !== size || known.mtimeNs !== mtimeNs) {
        known = { size, mtimeNs, digest: listed === name ? fileDigest(path) : digestBytes(readListed(dir, `${folder}/${listed}`)) };
        cache.set(path, known);
      }
      files[`${folder}/${listed}`] = known.digest;
    }
  }
  return files;
}

/** The digest of a stored run directory: its manifest's bytes (the manifest lists each raw file's sha256). */
export function blobDigest(runDir: string): string {
  return createHash("sha256")
    .update(readFileSync(join(runDir, "manifest.json")))
    .digest("hex");
}
