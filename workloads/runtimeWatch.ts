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
  /** One line: "the Engine (rivet-engine, pid 123) was killed by SIGKILL". */
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
        this.loss = { process: p.name, pid, code, signal: signal ?? null, at: new Date().toISOString(), message: describeExit(p.name, pid, code, signal ?? null) };
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
