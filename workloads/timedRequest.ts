import type { Dispatcher } from "undici";

/**
 * One HTTP request timed on the client, on undici's lowest-overhead path
 * (`dispatch` with a handler: no response stream, no AbortSignal). `ms` runs
 * from just before the request is handed to the pool to the last byte of the
 * reply, from process.hrtime.bigint(). Never throws, never retries.
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

const inFlight = new Set<TimedCall>();
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = process.hrtime.bigint();
  for (const c of inFlight) if (now >= c.deadline) c.timeOut();
  if (inFlight.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** One request's state and its undici handler, in one object: no closures per request. */
class TimedCall {
  readonly t0 = process.hrtime.bigint();
  readonly deadline: bigint;
  private chunks: Buffer[] = [];
  private status = 0;
  private rawHeaders: Buffer[] | string[] | null = null;
  private settled = false;
  private abort: ((err: Error) => void) | null = null;
  private timedOut = false;
  constructor(
    private readonly timeoutMs: number,
    private readonly resolve: (r: TimedResponse) => void,
  ) {
    this.deadline = this.t0 + BigInt(timeoutMs) * 1_000_000n;
    inFlight.add(this);
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
    inFlight.delete(this);
    this.resolve(r);
  }
  timeOut(): void {
    this.timedOut = true;
    const err = new RequestTimeoutError(`no complete reply within ${this.timeoutMs} ms`);
    this.settle({ ok: false, ms: this.elapsed(), error: describeRequestError(err, this.timeoutMs) });
    this.abort?.(err);
  }
  onConnect(abort: (err: Error) => void): void {
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

export function timedRequest(pool: Dispatcher, o: TimedRequestOpts, timeoutMs: number): Promise<TimedResponse> {
  return new Promise((resolve) => {
    const call = new TimedCall(timeoutMs, resolve);
    pool.dispatch(o, call as unknown as Dispatcher.DispatchHandler);
  });
}
