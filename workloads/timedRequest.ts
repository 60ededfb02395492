import type { Dispatcher } from "undici";

/**
 * One HTTP request timed on the client, on undici's lowest-overhead path
 * (`dispatch` with a handler: no response stream, no AbortSignal). `ms` runs
 * from just before the request is handed to the pool to the last byte of the
 * reply, from process.hrtime.bigint(). Never throws, never retries.
 * `npm run bench:driver` measures what this path costs.
 */
export type TimedResponse =
  | { ok: true; ms: number; status: number; body: string; header(name: string): string | undefined }
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

function headerLookup(raw: Buffer[] | string[] | null): (name: string) => string | undefined {
  return (name) => {
    if (!raw) return undefined;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (raw[i].toString().toLowerCase() === name) return raw[i + 1].toString();
    }
    return undefined;
  };
}

export function timedRequest(pool: Dispatcher, o: TimedRequestOpts, timeoutMs: number): Promise<TimedResponse> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let status = 0;
    let rawHeaders: Buffer[] | string[] | null = null;
    let settled = false;
    let abort: ((err: Error) => void) | null = null;
    let timedOut = false;
    const t0 = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - t0) / 1e6;
    const settle = (r: TimedResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      const err = new RequestTimeoutError(`no complete reply within ${timeoutMs} ms`);
      settle({ ok: false, ms: elapsed(), error: describeRequestError(err, timeoutMs) });
      abort?.(err);
    }, timeoutMs);
    pool.dispatch(
      { method: o.method, path: o.path, headers: o.headers, body: o.body },
      {
        onConnect(a: (err: Error) => void) {
          abort = a;
          if (timedOut) a(new RequestTimeoutError("timed out before it was sent"));
        },
        onHeaders(statusCode: number, headers: Buffer[] | string[] | null) {
          status = statusCode;
          rawHeaders = headers;
          return true;
        },
        onData(chunk: Buffer) {
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          const ms = elapsed();
          settle({ ok: true, ms, status, body: chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString(), header: headerLookup(rawHeaders) });
        },
        onError(err: Error) {
          settle({ ok: false, ms: elapsed(), error: describeRequestError(err, timeoutMs) });
        },
      } as unknown as Dispatcher.DispatchHandler,
    );
  });
}
