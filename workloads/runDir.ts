import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { cpus, totalmem, release, platform, arch, hostname } from "node:os";
import { join } from "node:path";
import { SampleFile } from "./samples";
import type { ManifestLike, StageRecord } from "../analysis/verify";

export const MANIFEST_SCHEMA = 1;

/** UTC minute id, e.g. 20261202T1305Z. */
export function formatRunId(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}T${p(d.getUTCHours())}${p(d.getUTCMinutes())}Z`;
}

export type { StageRecord } from "../analysis/verify";

/** The manifest as the driver writes it: the contract's shape, with settings and status always present. */
export interface Manifest extends ManifestLike {
  settings: Record<string, unknown>;
  status: "running" | "complete" | "failed";
  failure?: string;
}

export function machineInfo(): Record<string, unknown> {
  const c = cpus();
  return {
    cpus: c.length,
    cpuModel: c[0]?.model ?? "unknown",
    memory: totalmem(),
    os: `${platform()} ${release()} ${arch()}`,
    hostname: hostname(),
  };
}

export function fileDigest(path: string): { sha256: string; lines: number } {
  const buf = readFileSync(path);
  let lines = 0;
  for (const b of buf) if (b === 10) lines++;
  return { sha256: createHash("sha256").update(buf).digest("hex"), lines };
}

/**
 * A run directory: results/<stack>/<runId>/ with raw/ and manifest.json. The
 * manifest is rewritten (atomically) after every stage, so a crash leaves a
 * manifest that lists and hashes every stage completed before it.
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
      settings: {},
      stages: {},
      files: {},
      status: "running",
    };
    this.save();
  }

  private open = new Set<SampleFile>();

  rawFile(side: string, metric: string): SampleFile {
    const f = new SampleFile(join(this.dir, "raw", `${side}.${metric}.jsonl`));
    this.open.add(f);
    return f;
  }

  /** Closes every raw file still open: samples completing after an interrupt are not written. */
  closeRawFiles(): void {
    for (const f of this.open) f.close();
    this.open.clear();
  }

  recordStage(rec: StageRecord): void {
    this.manifest.stages[`${rec.side}.${rec.metric}`] = rec;
    this.rehash();
    this.save();
  }

  /** Hashes every raw file present, so the manifest never lists a stale digest. */
  rehash(): void {
    const files: Manifest["files"] = {};
    for (const name of readdirSync(join(this.dir, "raw")).sort()) {
      if (name.endsWith(".jsonl")) files[`raw/${name}`] = fileDigest(join(this.dir, "raw", name));
    }
    this.manifest.files = files;
  }

  finish(status: "complete" | "failed", failure?: string): void {
    this.closeRawFiles();
    this.manifest.finishedAt = new Date().toISOString();
    this.manifest.status = status;
    if (failure) this.manifest.failure = failure;
    this.rehash();
    this.save();
  }

  save(): void {
    const path = join(this.dir, "manifest.json");
    writeFileSync(`${path}.tmp`, JSON.stringify(this.manifest, null, 2) + "\n");
    renameSync(`${path}.tmp`, path);
  }
}
