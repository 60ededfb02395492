import { closeSync, openSync, writeSync } from "node:fs";
import type { Sample } from "../analysis/runDirContract";

export type { Sample } from "../analysis/runDirContract";


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
  constructor(readonly path: string) {
    this.fd = openSync(path, "a");
  }
  nextSeq(): number {
    return this.seq++;
  }
  /** A write after close (an interrupted run) is dropped: it is no measurement. */
  write(sample: Sample): void {
    if (this.fd < 0) return;
    writeSync(this.fd, JSON.stringify(sample) + "\n");
    this.lines += 1;
    if (!sample.ok) this.errors += 1;
  }
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
