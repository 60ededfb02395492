import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from "node:fs";
import type { Sample } from "../../analysis/contract/runDirContract";

export type { Sample } from "../../analysis/contract/runDirContract";

/** A number as JSON writes it: itself (the same shortest form), or null when not finite. */
const num = (x: number | null): string => (x === null || !Number.isFinite(x) ? "null" : `${x}`);

/**
 * Pure: a sample's line, the text JSON.stringify gives for it with its fields
 * in the contract's order. Written out field by field because it runs once per
 * request, and costs the driver less CPU than JSON.stringify does.
 */
export function sampleLine(s: Sample): string {
  let line = `{"seq":${num(s.seq)}${s.rep !== undefined ? `,"rep":${num(s.rep)}` : ""},"at":${num(s.at)},"ok":${s.ok},"ms":${num(s.ms)},"cold":${s.cold}`;
  if (s.actorMs !== undefined) line += `,"actorMs":${num(s.actorMs)}`;
  if (s.sqlMs !== undefined) line += `,"sqlMs":${num(s.sqlMs)}`;
  if (s.clientMs !== undefined) line += `,"clientMs":${num(s.clientMs)}`;
  if (s.colo !== undefined) line += `,"colo":${JSON.stringify(s.colo)}`;
  if (s.rowsRead !== undefined) line += `,"rowsRead":${num(s.rowsRead)}`;
  if (s.rowsWritten !== undefined) line += `,"rowsWritten":${num(s.rowsWritten)}`;
  if (s.lateMs !== undefined) line += `,"lateMs":${num(s.lateMs)}`;
  if (s.error !== undefined) line += `,"error":${JSON.stringify(s.error)}`;
  return `${line}}`;
}

/** A sample could not be written (the disk is full, say): the file keeps every whole line before it. */
export class SampleWriteError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Appends samples to a JSONL file with a synchronous write per sample, so that
 * every sample taken is on disk (in the page cache) before the next request:
 * a crashed driver loses nothing it measured. A write that fails (ENOSPC) or
 * lands only in part is cut back to the last whole line, the file is closed,
 * and the write throws a SampleWriteError: no half line is ever left.
 */
export class SampleFile {
  private fd: number;
  private seq = 0;
  /** The file's length after its last whole line. */
  private bytes: number;
  lines = 0;
  errors = 0;
  /** Why writing stopped, once a write failed. */
  failure: SampleWriteError | undefined;
  /** `rep`: the repetition every sample written here belongs to (none in a run without repetitions). */
  constructor(
    readonly path: string,
    readonly rep?: number,
  ) {
    this.fd = openSync(path, "a");
    this.bytes = fstatSync(this.fd).size;
  }
  nextSeq(): number {
    return this.seq++;
  }
  get closed(): boolean {
    return this.fd < 0;
  }
  /** A write after close (an interrupted run, a failed write) is dropped: it is no measurement. */
  write(sample: Sample): void {
    if (this.fd < 0) return;
    if (this.rep !== undefined) sample.rep = this.rep;
    const line = `${sampleLine(sample)}\n`;
    const size = Buffer.byteLength(line);
    let written = 0;
    try {
      written = writeSync(this.fd, line);
    } catch (err) {
      this.fail((err as NodeJS.ErrnoException).code ?? "EIO", (err as Error).message);
    }
    if (written !== size) this.fail("ENOSPC", `only ${written} of a sample's ${size} bytes were written`);
    this.bytes += size;
    this.lines += 1;
    if (!sample.ok) this.errors += 1;
  }
  private fail(code: string, message: string): never {
    try {
      ftruncateSync(this.fd, this.bytes);
    } catch {
      // not a regular file (a device): nothing of a half line can stay there
    }
    this.close();
    this.failure = new SampleWriteError(
      this.path,
      code,
      `${code}: ${message} (writing ${this.path}); the ${this.lines} samples before it are kept`,
    );
    throw this.failure;
  }
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
