/**
 * Progress of the long steps (stages, preparations, idle waits), several of
 * which may run at once (a wake group's idle overlaps other groups). On a
 * terminal, a live bar of every running step; on anything else (a pipe, a CI
 * log, Pulumi's output) a start line, then a line per running step at least
 * every PROGRESS_EVERY_MS (done / total, rate, time left), then an end line.
 */
interface Step {
  tick(done: number, errors?: number): void;
  /** A sample stage ends: its line names attempts, errors and wall time. */
  end(attempts: number, errors: number, wallMs: number): void;
  /** Any other step ends, with its own closing line. */
  finish(text: string): void;
}

export interface Progress {
  /** A step of `total` units ("samples", "actors", "s idle") starts. */
  start(stage: string, total: number, unit?: string): Step;
  note(text: string): void;
}

const PROGRESS_EVERY_MS = 10_000;

/** The same progress with every step and note named `prefix` first: which repetition a line belongs to. */
export function prefixed(progress: Progress, prefix: string): Progress {
  return {
    start: (stage, total, unit) => progress.start(`${prefix}${stage}`, total, unit),
    note: (text) => progress.note(`${prefix}${text}`),
  };
}

/** One progress line: "<side> wake.ping: preparing: 120/1200 actors, 31.5/s, about 34 s left (2 errors)". */
export function progressLine(stage: string, done: number, total: number, unit: string, errors: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const left = rate > 0 && done < total ? `, about ${formatSeconds((total - done) / rate)} left` : "";
  return `${stage}: ${done}/${total} ${unit}, ${rate.toFixed(1)}/s${left}${errors ? ` (${errors} errors)` : ""}`;
}

function formatSeconds(s: number): string {
  if (s < 90) return `${Math.ceil(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** The terminal form: the same figures behind a 24-cell bar. */
export function progressBar(stage: string, done: number, total: number, unit: string, errors: number, elapsedMs: number): string {
  const cells = 24;
  const filled = total > 0 ? Math.min(cells, Math.round((done / total) * cells)) : 0;
  return `[${"#".repeat(filled)}${".".repeat(cells - filled)}] ${progressLine(stage, done, total, unit, errors, elapsedMs)}`;
}

interface Running {
  stage: string;
  total: number;
  unit: string;
  done: number;
  errors: number;
  startedAt: number;
}

export function createProgress(out: NodeJS.WriteStream = process.stdout, quiet = false, everyMs = PROGRESS_EVERY_MS): Progress {
  const tty = Boolean(out.isTTY);
  const running = new Set<Running>();
  let lastDraw = 0;
  let timer: NodeJS.Timeout | undefined;
  const print = (s: string) => {
    if (!quiet) out.write(s);
  };
  // On a terminal the bar of the step started last; the others report in their lines.
  const draw = () => {
    const r = [...running].at(-1);
    if (r) print(`\r\x1b[2K${progressBar(r.stage, r.done, r.total, r.unit, r.errors, Date.now() - r.startedAt)}`);
  };
  const report = () => {
    if (tty) return draw();
    for (const r of running) print(`${progressLine(r.stage, r.done, r.total, r.unit, r.errors, Date.now() - r.startedAt)}\n`);
  };
  const closeLine = (text: string) => {
    print(tty ? `\r\x1b[2K${text}\n` : `${text}\n`);
    if (tty) draw();
  };
  const remove = (r: Running) => {
    running.delete(r);
    if (running.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    start(stage, total, unit = "samples") {
      const r: Running = { stage, total, unit, done: 0, errors: 0, startedAt: Date.now() };
      running.add(r);
      if (!tty) print(`${stage}: ${total} ${unit}\n`);
      else draw();
      // A timer, not the ticks: a step whose next unit takes long (an idle wait, a stalled call) still reports.
      if (!timer) {
        timer = setInterval(report, tty ? 1000 : everyMs);
        timer.unref();
      }
      return {
        tick(done, errors = 0) {
          r.done = done;
          r.errors = errors;
          if (!tty) return;
          const now = Date.now();
          if (now - lastDraw < 100 && done < r.total) return;
          lastDraw = now;
          draw();
        },
        end(attempts, errors, wallMs) {
          remove(r);
          closeLine(`${stage}: ${attempts} samples, ${errors} errors, ${(wallMs / 1000).toFixed(1)} s`);
        },
        finish(text) {
          remove(r);
          closeLine(text);
        },
      };
    },
    note(text) {
      closeLine(text);
    },
  };
}

/** Waits `ms` as a step of its own, so a long idle reports like any other step. */
export async function waitWithProgress(progress: Progress, stage: string, ms: number, wait: (ms: number) => Promise<void>): Promise<void> {
  const step = progress.start(stage, Math.ceil(ms / 1000), "s idle");
  const t0 = Date.now();
  const ticker = setInterval(() => step.tick(Math.min(Math.floor((Date.now() - t0) / 1000), Math.ceil(ms / 1000))), 1000);
  ticker.unref();
  try {
    await wait(ms);
  } finally {
    clearInterval(ticker);
  }
  step.finish(`${stage}: ${((Date.now() - t0) / 1000).toFixed(0)} s, done`);
}
