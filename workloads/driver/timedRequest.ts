import type { Http1Client, Http1Request, ReplyHandler } from "./http1/client";

/**
 * One HTTP request timed on the client, on the driver's HTTP/1.1 client
 * (`http1/client.ts`). `ms` runs from the send (the handler's onSend, called
 * on the connected socket just before the request is written) to the last
 * byte of the reply, from process.hrtime.bigint(): the window autocannon and
 * wrk time, so the wait for a connection and its set-up are not in it. A
 * request that fails before it is sent (a refused connection) is timed from
 * its hand-over to the client. The deadline runs from the same point as `ms`.
 * Never throws, never retries.
 * `npm run bench:driver` measures what this path costs against autocannon and wrk.
 */
export type TimedResponse =
  /** `head`: the reply's status and header lines; `headerOf` (http1/client) reads a field. */
  { ok: true; ms: number; status: number; body: string; head: string } | { ok: false; ms: number; error: string };

export type TimedRequestOpts = Http1Request;

/** The error text of a failed request: a timeout says so with its limit, others give their code and message. */
function describeRequestError(err: unknown, timeoutMs: number): string {
  const e = err as Error & { code?: string };
  const name = e.name === "TimeoutError" ? `timeout after ${timeoutMs} ms` : (e.code ?? e.name);
  return `${name}: ${e.message}`;
}

class RequestTimeoutError extends Error {
  override name = "TimeoutError";
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
  /** When its clock started (hrtime ns) and how long it may take: compared in the sweep, not per request. */
  readonly t0: bigint;
  readonly timeoutMs: number;
  timeOut(): void;
}
let live: Pending[] = [];
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = process.hrtime.bigint();
  const still: Pending[] = [];
  for (const c of live) {
    if (c.settled) continue;
    if (Number(now - c.t0) / 1e6 >= c.timeoutMs) c.timeOut();
    else still.push(c);
  }
  live = still;
  if (live.length === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** One request's state and its reply handler, in one object: no closures per request. */
class TimedCall<T> implements ReplyHandler {
  /** The hand-over to the client, then the send once the request is written. */
  t0 = process.hrtime.bigint();
  settled = false;
  private abort: ((err: Error) => void) | null = null;
  constructor(
    readonly timeoutMs: number,
    private readonly resolve: (r: T) => void,
    private readonly finish: (r: TimedResponse) => T,
  ) {
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
    let out: T;
    try {
      out = this.finish(r);
    } catch (err) {
      // A reply the caller's reading cannot handle is that call's failure, never a crash or a call that never ends.
      out = this.finish({ ok: false, ms: r.ms, error: `HTTP1_REPLY_HANDLER: the reply could not be handled: ${(err as Error).message}` });
    }
    this.resolve(out);
  }
  /** Its deadline passed: settled now; if it was sent, its connection is dropped; if not, it is never sent. */
  timeOut(): void {
    const err = new RequestTimeoutError(`no complete reply within ${this.timeoutMs} ms`);
    this.settle({ ok: false, ms: this.elapsed(), error: describeRequestError(err, this.timeoutMs) });
    this.abort?.(err);
  }
  onSend(abort: (err: Error) => void): void {
    this.t0 = process.hrtime.bigint();
    this.abort = abort;
  }
  onReply(status: number, head: string, body: Buffer, at: bigint): void {
    this.settle({ ok: true, ms: Number(at - this.t0) / 1e6, status, body: body.toString(), head });
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
export function timedRequest(client: Http1Client, o: TimedRequestOpts, timeoutMs: number): Promise<TimedResponse>;
export function timedRequest<T>(client: Http1Client, o: TimedRequestOpts, timeoutMs: number, finish: (r: TimedResponse) => T): Promise<T>;
export function timedRequest<T>(
  client: Http1Client,
  o: TimedRequestOpts,
  timeoutMs: number,
  finish?: (r: TimedResponse) => T,
): Promise<T | TimedResponse> {
  return new Promise((resolve) => {
    client.dispatch(o, new TimedCall<T | TimedResponse>(timeoutMs, resolve, finish ?? asIs));
  });
}
