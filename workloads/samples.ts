import { closeSync, openSync, writeSync } from "node:fs";
import type { Sample } from "../analysis/runDirContract";

export type { Sample } from "../analysis/runDirContract";


/** A number as JSON writes it: itself (the same shortest form), or null when not finite. */
const num = (x: number | null): string => (x === null || !Number.isFinite(x) ? "null" : `${x}`);

/**
 * Pure: a sample's line, the text JSON.stringify gives for it with its fields
 * in the contract's order. Written out field by field because it runs once per
 * request: JSON.stringify took about 1.5 us a sample here, this about 0.6.
 */
export function sampleLine(s: Sample): string {
  let line = `{"seq":${num(s.seq)}${s.rep !== undefined ? `,"rep":${num(s.rep)}` : ""},"at":${num(s.at)},"ok":${s.ok},"ms":${num(s.ms)},"cold":${s.cold}`;
  if (s.actorMs !== undefined) line += `,"actorMs":${num(s.actorMs)}`;
  if (s.sqlMs !== undefined) line += `,"sqlMs":${num(s.sqlMs)}`;
  if (s.clientMs !== undefined) line += `,"clientMs":${num(s.clientMs)}`;
  if (s.colo !== undefined) line += `,"colo":${JSON.stringify(s.colo)}`;
  if (s.error !== undefined) line += `,"error":${JSON.stringify(s.error)}`;
  return `${line}}`;
}

/**
 * Appends samples to a JSONL file with a synchronous write per sample, so that
 * every sample taken is on disk (in the page cache) before the next request:
 * a crashed driver loses nothing it measured.
 */
export class SampleFile {
  private fd: number;
  private seq = 0;
  lines = 0;
  errors = 0;
  /** `rep`: the repetition every sample written here belongs to (none in a run without repetitions). */
  constructor(readonly path: string, readonly rep?: number) {
    this.fd = openSync(path, "a");
  }
  nextSeq(): number {
    return this.seq++;
  }
  /** A write after close (an interrupted run) is dropped: it is no measurement. */
  write(sample: Sample): void {
    if (this.fd < 0) return;
    if (this.rep !== undefined) sample.rep = this.rep;
    writeSync(this.fd, `${sampleLine(sample)}\n`);
    this.lines += 1;
    if (!sample.ok) this.errors += 1;
  }
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
