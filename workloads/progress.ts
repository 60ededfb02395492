/** Stage progress: one rewritten line on a terminal, plain start/end lines otherwise. */
export interface Progress {
  start(stage: string, total: number): void;
  tick(done: number, errors: number): void;
  end(stage: string, attempts: number, errors: number, wallMs: number): void;
  note(text: string): void;
}

export function createProgress(out: NodeJS.WriteStream = process.stdout, quiet = false): Progress {
  const tty = Boolean(out.isTTY);
  let stage = "";
  let total = 0;
  let lastDraw = 0;
  const print = (s: string) => {
    if (!quiet) out.write(s);
  };
  return {
    start(s, t) {
      stage = s;
      total = t;
      if (!tty) print(`${s}: ${t} samples\n`);
    },
    tick(done, errors) {
      if (!tty) return;
      const now = Date.now();
      if (now - lastDraw < 100 && done < total) return;
      lastDraw = now;
      print(`\r\x1b[2K${stage}: ${done}/${total}${errors ? ` (${errors} errors)` : ""}`);
    },
    end(s, attempts, errors, wallMs) {
      const line = `${s}: ${attempts} samples, ${errors} errors, ${(wallMs / 1000).toFixed(1)} s`;
      print(tty ? `\r\x1b[2K${line}\n` : `${line}\n`);
    },
    note(text) {
      print(tty ? `\r\x1b[2K${text}\n` : `${text}\n`);
    },
  };
}
