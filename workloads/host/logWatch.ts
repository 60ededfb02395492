import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";

/** What a log file gained between watch() and the returned function's call. */
export function watchLog(file: string): () => string {
  const from = existsSync(file) ? statSync(file).size : 0;
  return () => {
    if (!existsSync(file)) return "";
    const to = statSync(file).size;
    if (to <= from) return "";
    const buf = Buffer.alloc(Math.min(to - from, 8 << 20));
    const fd = openSync(file, "r");
    try {
      readSync(fd, buf, 0, buf.length, from);
    } finally {
      closeSync(fd);
    }
    return buf.toString("utf8");
  };
}
