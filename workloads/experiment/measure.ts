import type { RunDir } from "./runDir";
import { SampleWriteError, type Sample, type SampleFile } from "./samples";
import type { Progress } from "./progress";
import { cpuSnapshot, rssSnapshot } from "../host/cpuTime";
import { hrClock, openLoop } from "./openModel";
import { rawFileName } from "../../analysis/contract/runDirContract";
import { RuntimeLost, StallClock, type RuntimeLoss, type RuntimeWatch } from "../host/runtimeWatch";

/** What one timed call gives, whichever side made it. */
export type Outcome =
  | {
      ok: true;
      ms: number;
      clientMs?: number;
      colo?: string;
      rows?: { read: number; written: number };
      reply: { cold: boolean; actorMs: number | null; sqlMs: number | null; value?: unknown };
      /** An alarm's lateness on the actor's own clock (the alarms group), ms. */
      lateMs?: number;
    }
  | { ok: false; ms: number; clientMs?: number; error: string };

export interface MeasureContext {
  run: RunDir;
  progress: Progress;
  /** Pids whose CPU time each stage records. */
  cpuPids?: () => Record<string, number | undefined>;
  /**
   * Waits at least `ms` with no CPU of its own (the idle time before wakes).
   * Under a CpuLock, other groups measure meanwhile; alone, a plain timer.
   */
  idle?: (ms: number) => Promise<void>;
  /** The processes of the side's runtime: a stage stops at once when one ends unasked. */
  runtime?: RuntimeWatch;
  /** How long no call may succeed before the runtime counts as stalled (StallClock; STALL_MS unless set). */
  stallMs?: number;
  /** How long a stage may send calls: past it, it sends no more, keeps what it has and records the deadline as its outcome. */
  deadlineMs?: number;
}

/** A stage's deadline: whether it has passed, and what the stage's record says when it did. */
export function stageDeadline(deadlineMs: number | undefined, what: string, now: () => number = () => hrClock.now()) {
  const t0 = now();
  let hit = false;
  return {
    passed(): boolean {
      if (!hit && deadlineMs !== undefined && now() - t0 >= deadlineMs) hit = true;
      return hit;
    },
    /** Once the deadline stopped the stage, its outcome in words: "deadline: 62 of 200 wakes done in 600 s". */
    outcome(done: number, planned: number): string | undefined {
      return hit
        ? `deadline: ${done} of ${planned} ${what} done in ${(deadlineMs! / 1000).toFixed(deadlineMs! < 10_000 ? 1 : 0)} s`
        : undefined;
    },
    /** The record's note, once the deadline stopped the stage. */
    note(done: number, planned: number): Record<string, unknown> {
      return hit ? { deadline: { ms: deadlineMs, done, planned, outcome: this.outcome(done, planned) } } : {};
    },
  };
}

/**
 * After a runtime is lost, how long a stage still waits for the calls in
 * flight (they fail within milliseconds once its sockets are closed); a call
 * that outlasts it is not written.
 */
const LOSS_GRACE_MS = 2000;

/** Waits for a stage's calls; if the runtime is lost first, for LOSS_GRACE_MS more at most. Returns the loss, if any. */
async function doneOrLost(work: Promise<unknown>, runtime: RuntimeWatch | undefined): Promise<RuntimeLoss | undefined> {
  if (!runtime) {
    await work;
    return undefined;
  }
  const lost = await Promise.race([work.then(() => undefined), runtime.lost]);
  if (lost) await Promise.race([work, new Promise((r) => setTimeout(r, LOSS_GRACE_MS).unref())]);
  return runtime.dead;
}

/** The stage record's end when its runtime was lost, or its samples could not be written, during it. */
function endFields(loss: RuntimeLoss | undefined, failed: unknown, kept: number): { status?: "failed"; failure?: string } {
  if (loss)
    return { status: "failed", failure: `${loss.message} at ${loss.at}, during this stage; the ${kept} samples taken before it are kept` };
  if (failed) return { status: "failed", failure: (failed as Error).message };
  return {};
}

/** A stage's samples could not be written: a full disk frees the run's reserve so the run can still record its end. */
function writeFailed(ctx: MeasureContext, err: unknown): void {
  if (err instanceof SampleWriteError && err.code === "ENOSPC") ctx.run.spaceRanOut(err.message);
}

/** ctx.idle, or a timer when the context has none. */
export function idleFor(ctx: MeasureContext, ms: number): Promise<void> {
  return ctx.idle ? ctx.idle(ms) : new Promise((r) => setTimeout(r, ms));
}

/**
 * The sample line for one call. The actor's cold flag is kept on every sample:
 * on a create or wake it must be true for the sample to count, elsewhere a true
 * is a restart inside the series. A failure has no actor's word: null.
 */
function toSample(seq: number, at: number, r: Outcome): Sample {
  // Built field by field, not with spreads: this runs once per request on the driver's hot path.
  let s: Sample;
  if (!r.ok) {
    s = { seq, at, ok: false, ms: r.ms, cold: null };
    if (r.clientMs !== undefined) s.clientMs = r.clientMs;
    s.error = r.error;
    return s;
  }
  s = { seq, at, ok: true, ms: r.ms, cold: r.reply.cold, actorMs: r.reply.actorMs, sqlMs: r.reply.sqlMs };
  if (r.clientMs !== undefined) s.clientMs = r.clientMs;
  if (r.colo) s.colo = r.colo;
  if (r.lateMs !== undefined) s.lateMs = r.lateMs;
  if (r.rows) {
    s.rowsRead = r.rows.read;
    s.rowsWritten = r.rows.written;
  }
  return s;
}

interface MeasureOpts {
  ctx: MeasureContext;
  side: string;
  metric: string;
  n: number;
  concurrency: number;
  call: (i: number) => Promise<Outcome>;
  notes?: Record<string, unknown>;
  /** Notes known only once the stage has run (what a runtime's log said meanwhile). */
  endNotes?: () => Record<string, unknown> | undefined;
  /** Called with a failed sample's error, off the successful calls' path. */
  onFailure?: (error: string) => void;
  /** Awaited once the calls are done, before the stage is recorded: notes it adds (a capture's, once stopped). */
  beforeRecord?: () => Promise<Record<string, unknown>>;
}

/**
 * Runs `n` calls with `concurrency` workers, writes each sample as it
 * completes, and records the stage (wall time from hrtime, CPU of the
 * processes under test) in the manifest. Returns its sample file and, where
 * its deadline stopped it, the outcome the record names.
 */
export async function measure(o: MeasureOpts): Promise<{ file: SampleFile; deadline?: string }> {
  const { ctx, side, metric, n, concurrency } = o;
  const runtime = ctx.runtime;
  runtime?.check();
  const file = ctx.run.rawFile(side, metric);
  const startedAt = new Date().toISOString();
  let next = 0;
  const step = ctx.progress.start(`${side} ${metric}`, n);
  const pids = ctx.cpuPids?.() ?? {};
  const rss = rssSnapshot(pids);
  const cpu = cpuSnapshot(pids);
  const t0 = process.hrtime.bigint();
  const stall = new StallClock(runtime, `${side} ${metric}`, ctx.stallMs);
  const deadline = stageDeadline(ctx.deadlineMs, "calls");
  let stalled: RuntimeLoss | undefined;
  // A worker sends its next call before it writes the sample of the one just done: the
  // sample is on disk microseconds later either way, and its write overlaps the next
  // round trip instead of delaying it. Still one call in flight per worker.
  const worker = async () => {
    let i = next++;
    if (i >= n) return;
    let at = Date.now();
    let pending = o.call(i);
    for (;;) {
      const r = await pending;
      const done = i;
      const doneAt = at;
      i = runtime?.dead || stalled || file.closed || deadline.passed() ? n : next++;
      if (i < n) {
        at = Date.now();
        pending = o.call(i);
      }
      file.write(toSample(done, doneAt, r));
      if (!r.ok) o.onFailure?.(r.error);
      stalled ??= stall.saw(r.ok, r.ok ? undefined : r.error);
      step.tick(file.lines, file.errors);
      if (i >= n) return;
    }
  };
  let loss: RuntimeLoss | undefined;
  let failed: unknown;
  try {
    loss = (await doneOrLost(Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker)), runtime)) ?? stalled;
  } catch (err) {
    failed = err;
    writeFailed(ctx, err);
    throw err;
  } finally {
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    file.close();
    const late = (await o.beforeRecord?.()) ?? {};
    ctx.run.recordStage({
      side,
      metric,
      file: rawFileName(side, metric),
      attempts: file.lines,
      errors: file.errors,
      wallMs,
      concurrency,
      startedAt,
      notes: { ...o.notes, ...o.endNotes?.(), ...late, cpuMs: cpu(), rssKb: rss(), ...deadline.note(file.lines, n) },
      ...endFields(loss, failed, file.lines),
    });
    step.end(file.lines, file.errors, wallMs);
  }
  if (loss) throw new RuntimeLost(loss);
  const outcome = deadline.outcome(file.lines, n);
  return { file, ...(outcome ? { deadline: outcome } : {}) };
}

/** Setup outside a measured sample failed (creating actors to wake, seeding): the group cannot run. */
export class StageSetupError extends Error {}

export function must<T extends Outcome>(r: T, what: string): Extract<T, { ok: true }> {
  if (!r.ok) throw new StageSetupError(`${what} failed: ${r.error}`);
  return r as Extract<T, { ok: true }>;
}

/** An open-model stage's options: a closed-loop stage's, with an arrival rate and a bound on requests outstanding in place of a concurrency. */
interface MeasureOpenOpts extends Omit<MeasureOpts, "concurrency"> {
  ratePerSecond: number;
  maxInFlight: number;
  /** Sees each sample as it is written; a reason returned stops the arrivals (those in flight are still awaited and written), and goes into the stage's notes. */
  stopWhen?: (s: { ok: boolean; ms: number; cold?: boolean | null }) => string | undefined;
}

/**
 * An open-model stage: `n` requests at a constant arrival rate (openModel.ts).
 * A sample's `ms` is from the request's intended send time to its reply, on the
 * client's clock, whichever side; `clientMs` is from its actual send. Each
 * sample is written as it completes; none is retried.
 */
export async function measureOpen(o: MeasureOpenOpts): Promise<void> {
  const { ctx, side, metric } = o;
  const runtime = ctx.runtime;
  runtime?.check();
  const file = ctx.run.rawFile(side, metric);
  const startedAt = new Date().toISOString();
  const epochAtZero = Date.now() - hrClock.now();
  const step = ctx.progress.start(`${side} ${metric} (open model, ${o.ratePerSecond}/s)`, o.n);
  const cpu = cpuSnapshot(ctx.cpuPids?.() ?? {});
  let lateSends = 0;
  let wallMs = 0;
  let loss: RuntimeLoss | undefined;
  let failed: unknown;
  let stoppedEarly: string | undefined;
  const deadline = stageDeadline(ctx.deadlineMs, "arrivals");
  const t0 = hrClock.now();
  try {
    const loop = openLoop({
      n: o.n,
      ratePerSecond: o.ratePerSecond,
      maxInFlight: o.maxInFlight,
      clock: hrClock,
      call: o.call,
      onDone: (d) => {
        const r = { ...d.result, ms: d.latencyMs, clientMs: d.doneAt - d.sentAt };
        file.write(toSample(d.i, Math.round(epochAtZero + d.intendedAt), r));
        if (!r.ok) o.onFailure?.(r.error);
        // Every sample is shown to stopWhen, those in flight after the stop too.
        const stop = o.stopWhen?.(r.ok ? { ok: true, ms: r.ms, cold: r.reply.cold } : { ok: false, ms: r.ms });
        stoppedEarly ??= stop;
        step.tick(file.lines, file.errors);
      },
      stopped: () => runtime?.dead !== undefined || stoppedEarly !== undefined || deadline.passed(),
    });
    loss = await doneOrLost(loop, runtime);
    if (loss) wallMs = hrClock.now() - t0;
    else ({ lateSends, wallMs } = await loop);
  } catch (err) {
    failed = err;
    wallMs = hrClock.now() - t0;
    writeFailed(ctx, err);
    throw err;
  } finally {
    file.close();
    ctx.run.recordStage({
      side,
      metric,
      file: rawFileName(side, metric),
      attempts: file.lines,
      errors: file.errors,
      wallMs,
      concurrency: o.maxInFlight,
      startedAt,
      notes: {
        ...o.notes,
        mode: "open",
        ratePerSecond: o.ratePerSecond,
        maxInFlight: o.maxInFlight,
        lateSends,
        cpuMs: cpu(),
        ...o.endNotes?.(),
        ...(stoppedEarly ? { plannedArrivals: o.n, stoppedEarly } : {}),
        ...deadline.note(file.lines, o.n),
        clock: "client hrtime from the intended send time (wrk2's rule); clientMs from the actual send",
      },
      ...endFields(loss, failed, file.lines),
    });
    step.end(file.lines, file.errors, wallMs);
  }
  if (loss) throw new RuntimeLost(loss);
}
