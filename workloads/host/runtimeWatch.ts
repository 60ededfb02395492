/**
 * Watches the processes a side's runtime is made of (the Engine and the
 * RivetKit app, workerd, the floor server) for an exit the run did not ask
 * for. The exit is known at once, from the child's own exit event, not from
 * the timeouts of the calls that follow it: a stage stops taking samples,
 * its record and the run end "failed" with the process and its signal or
 * code named, and the side's remaining groups are not run.
 */

/** A process to watch: its name for people, its pid, and its end. */
export interface WatchedProcess {
  name: string;
  pid: number | undefined;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | string | null }>;
}

/** How a runtime was lost, for the stage record, the run's failure and the report. */
export interface RuntimeLoss {
  process: string;
  pid: number | null;
  code: number | null;
  signal: string | null;
  /** When the driver saw the exit (ISO time). */
  at: string;
  /** One line: "rivet-engine (pid 123) was killed by SIGKILL", or why the runtime counts as stalled. */
  message: string;
}

/** Pure: one line naming the process and how it ended. */
export function describeExit(name: string, pid: number | null, code: number | null, signal: string | null): string {
  const who = `${name}${pid ? ` (pid ${pid})` : ""}`;
  if (signal) return `${who} was killed by ${signal}`;
  if (code !== null) return `${who} exited with code ${code}`;
  return `${who} ended`;
}

/** A call, a wait or a stage met a runtime that is gone. */
export class RuntimeLost extends Error {
  constructor(readonly loss: RuntimeLoss) {
    super(`${loss.message} at ${loss.at}`);
  }
}

export class RuntimeWatch {
  private loss: RuntimeLoss | undefined;
  private armed = true;
  private resolveLost!: (loss: RuntimeLoss) => void;
  /** Resolves when a watched process ends while armed; never otherwise. */
  readonly lost: Promise<RuntimeLoss> = new Promise((r) => (this.resolveLost = r));

  constructor(processes: readonly WatchedProcess[]) {
    for (const p of processes) {
      void p.exited.then(({ code, signal }) => {
        if (!this.armed || this.loss) return;
        const pid = p.pid ?? null;
        this.loss = {
          process: p.name,
          pid,
          code,
          signal: signal ?? null,
          at: new Date().toISOString(),
          message: describeExit(p.name, pid, code, signal ?? null),
        };
        this.resolveLost(this.loss);
      });
    }
  }

  /** The loss, once a watched process has ended unasked. */
  get dead(): RuntimeLoss | undefined {
    return this.loss;
  }

  /** Throws RuntimeLost once the runtime is gone. */
  check(): void {
    if (this.loss) throw new RuntimeLost(this.loss);
  }

  /** A runtime that answers nothing (StallClock): lost as if it had ended. The first loss stands. */
  declareLost(loss: RuntimeLoss): RuntimeLoss {
    if (!this.loss) {
      this.loss = loss;
      this.resolveLost(loss);
    }
    return this.loss;
  }

  /** Before a planned stop: the exits that follow are asked for. */
  disarm(): void {
    this.armed = false;
  }

  /** Waits `ms`, or less if the runtime is lost meanwhile (the caller's next step then finds it gone). */
  sleep(ms: number, wait: (ms: number) => Promise<void> = (x) => new Promise((r) => setTimeout(r, x).unref())): Promise<void> {
    if (this.loss) return Promise.resolve();
    return Promise.race([wait(ms), this.lost.then(() => undefined)]);
  }
}

/**
 * How long a runtime may answer no call at all, while calls are made, before
 * it counts as stalled: longer than any wake or request timeout, so a pause
 * that recovers (a stopped process continued) stays a run of failed samples.
 */
export const STALL_MS = 120_000;

/**
 * Watches the outcomes of one stage's (or preparation's) calls: once none has
 * succeeded for STALL_MS, the runtime is stalled, and the watch (or, with
 * none, a loss of its own) says so.
 */
export class StallClock {
  private lastOk: number;
  private failedInRow = 0;
  private firstError = "";
  constructor(
    private readonly runtime: RuntimeWatch | undefined,
    private readonly what: string,
    private readonly stallMs: number = STALL_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.lastOk = now();
  }
  /** Takes one outcome; returns the loss once the runtime has stalled. */
  saw(ok: boolean, error?: string): RuntimeLoss | undefined {
    const t = this.now();
    if (ok) {
      this.lastOk = t;
      this.failedInRow = 0;
      return undefined;
    }
    if (this.failedInRow++ === 0) this.firstError = (error ?? "").slice(0, 200);
    if (t - this.lastOk < this.stallMs) return undefined;
    const message = `${this.what}: no call succeeded for ${Math.round((t - this.lastOk) / 1000)} s (${this.failedInRow} failed in a row, the first: ${this.firstError}): the runtime stalled`;
    const loss: RuntimeLoss = { process: "runtime", pid: null, code: null, signal: null, at: new Date(t).toISOString(), message };
    return this.runtime ? this.runtime.declareLost(loss) : loss;
  }
}
