import type { Dispatcher } from "undici";

/**
 * One HTTP request timed on the client, on undici's lowest-overhead path
 * (`dispatch` with a handler: no response stream, no AbortSignal). `ms` runs
 * from the send (undici's onConnect, called on the connected socket just before
 * the request line is written) to the last byte of the reply, from
 * process.hrtime.bigint(): the window autocannon and wrk time, so the pool's
 * queue and connection set-up are not in it. A request that fails before it is
 * sent (a refused connection) is timed from its hand-over to the pool. The
 * deadline runs from the same point as `ms`. Never throws, never retries.
 * `npm run bench:driver` measures what this path costs against autocannon and wrk.
 */
export type TimedResponse =
  | { ok: true; ms: number; status: number; body: string; rawHeaders: Buffer[] | string[] | null }
  | { ok: false; ms: number; error: string };

export interface TimedRequestOpts {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The error text of a failed request: a timeout says so with its limit, others give their code and message. */
export function describeRequestError(err: unknown, timeoutMs: number): string {
  const e = err as Error & { code?: string };
  const name = e.name === "TimeoutError" ? `timeout after ${timeoutMs} ms` : (e.code ?? e.name);
  return `${name}: ${e.message}`;
}

class RequestTimeoutError extends Error {
  override name = "TimeoutError";
}

/** A response header by lower-case name, from undici's flat [name, value, ...] list. */
export function headerOf(raw: Buffer[] | string[] | null, name: string): string | undefined {
  if (!raw) return undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    // Length first: most names differ in length, and then no string is made.
    if (raw[i].length === name.length && raw[i].toString().toLowerCase() === name) return raw[i + 1].toString();
  }
  return undefined;
}

/**
 * How often in-flight requests are checked against their deadline. A timeout
 * is therefore reported up to this late (its `ms` says exactly when); in
 * exchange a request costs no timer of its own.
 */
export const DEADLINE_CHECK_MS = 25;

/**
 * Calls not yet known settled, checked by one interval timer: a plain array
 * swept in bulk, so a request costs one push and no hash-table work.
 */
interface Pending {
  readonly settled: boolean;
  readonly deadline: bigint;
  timeOut(): void;
}
let live: Pending[] = [];
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = process.hrtime.bigint();
  const still: Pending[] = [];
  for (const c of live) {
    if (c.settled) continue;
    if (now >= c.deadline) c.timeOut();
    else still.push(c);
  }
  live = still;
  if (live.length === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** One request's state and its undici handler, in one object: no closures per request. */
class TimedCall<T> {
  /** The hand-over to the pool, then the send once undici writes the request. */
  private t0 = process.hrtime.bigint();
  deadline: bigint;
  settled = false;
  private chunks: Buffer[] = [];
  private status = 0;
  private rawHeaders: Buffer[] | string[] | null = null;
  private abort: ((err: Error) => void) | null = null;
  private timedOut = false;
  constructor(
    private readonly timeoutMs: number,
    private readonly resolve: (r: T) => void,
    private readonly finish: (r: TimedResponse) => T,
  ) {
    this.deadline = this.t0 + BigInt(timeoutMs) * 1_000_000n;
    live.push(this);
    if (!sweeper) {
      sweeper = setInterval(sweep, DEADLINE_CHECK_MS);
      sweeper.unref();
    }
  }
  private elapsed(): number {
    return Number(process.hrtime.bigint() - this.t0) / 1e6;
  }
  private settle(r: TimedResponse): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(this.finish(r));
  }
  timeOut(): void {
    this.timedOut = true;
    const err = new RequestTimeoutError(`no complete reply within ${this.timeoutMs} ms`);
    this.settle({ ok: false, ms: this.elapsed(), error: describeRequestError(err, this.timeoutMs) });
    this.abort?.(err);
  }
  onConnect(abort: (err: Error) => void): void {
    this.t0 = process.hrtime.bigint();
    this.deadline = this.t0 + BigInt(this.timeoutMs) * 1_000_000n;
    this.abort = abort;
    if (this.timedOut) abort(new RequestTimeoutError("timed out before it was sent"));
  }
  onHeaders(statusCode: number, headers: Buffer[] | string[] | null): boolean {
    this.status = statusCode;
    this.rawHeaders = headers;
    return true;
  }
  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }
  onComplete(): void {
    const ms = this.elapsed();
    const c = this.chunks;
    this.settle({ ok: true, ms, status: this.status, body: c.length === 1 ? c[0].toString() : Buffer.concat(c).toString(), rawHeaders: this.rawHeaders });
  }
  onError(err: Error): void {
    this.settle({ ok: false, ms: this.elapsed(), error: describeRequestError(err, this.timeoutMs) });
  }
}

const asIs = (r: TimedResponse): TimedResponse => r;

/**
 * `finish` turns the response into the caller's result inside the completion
 * callback, so a call costs one promise, not one per layer.
 */
export function timedRequest(pool: Dispatcher, o: TimedRequestOpts, timeoutMs: number): Promise<TimedResponse>;
export function timedRequest<T>(pool: Dispatcher, o: TimedRequestOpts, timeoutMs: number, finish: (r: TimedResponse) => T): Promise<T>;
export function timedRequest<T>(pool: Dispatcher, o: TimedRequestOpts, timeoutMs: number, finish?: (r: TimedResponse) => T): Promise<T | TimedResponse> {
  return new Promise((resolve) => {
    const call = new TimedCall<T | TimedResponse>(timeoutMs, resolve, finish ?? asIs);
    pool.dispatch(o, call as unknown as Dispatcher.DispatchHandler);
  });
}
