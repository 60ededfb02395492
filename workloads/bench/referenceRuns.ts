import autocannon from "autocannon";
import { Pool, type Dispatcher } from "undici";
import type { RunDir } from "../runDir";
import type { TimedRequestOpts } from "../timedRequest";

/** What the manifest says about how autocannon's stages are timed. */
export const AUTOCANNON_CLOCK =
  "programmatic, pipelining 1, one sample written per response event (its own hrtime latency); a stage's wall time ends at its last response, not at autocannon's done callback, which waits for its next 1 s tick";

/**
 * One autocannon run with a sample written per response, as the driver writes
 * its own. The stage's wall time runs from the start to the last response:
 * autocannon calls back only on its next 1-second sampling tick, and timing to
 * that callback would understate its rate by up to a second per run.
 */
export async function autocannonRun(run: RunDir, url: string, metric: string, connections: number, amount: number): Promise<void> {
  const file = run.rawFile("autocannon", metric);
  const startedAt = new Date().toISOString();
  let seq = 0;
  const t0 = process.hrtime.bigint();
  let last = t0;
  await new Promise<void>((res, rej) => {
    const inst = autocannon(
      { url, connections, pipelining: 1, amount, method: "POST", body: '{"args":[]}', headers: { "content-type": "application/json" }, timeout: 10 },
      (err: Error | null) => (err ? rej(err) : res()),
    );
    inst.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
      last = process.hrtime.bigint();
      file.write({ seq: seq++, at: Date.now(), ok: status === 200, ms, cold: null, ...(status === 200 ? {} : { error: `HTTP ${status}` }) });
    });
  });
  const wallMs = Number(last - t0) / 1e6;
  file.close();
  run.recordStage({ side: "autocannon", metric, file: `raw/autocannon.${metric}.jsonl`, attempts: file.lines, errors: file.errors, wallMs, concurrency: connections, startedAt });
}

/** What the manifest says about the bare-undici reference. */
export const UNDICI_CLOCK =
  "undici Pool.dispatch with a minimal handler and callbacks (no promises, no reply parsing), one sample written per response; timed like the driver, from undici's onConnect to the last byte";

/**
 * The same requests as the driver's, sent on undici's dispatch with nothing of
 * the driver around it: no promise per call, no reply parsing, the next
 * request sent from the completion callback (autocannon's structure). What
 * the driver costs beyond this is its own code; what this costs beyond
 * autocannon is undici's.
 */
export async function undiciRun(run: RunDir, origin: string, request: TimedRequestOpts, metric: string, connections: number, amount: number): Promise<void> {
  const file = run.rawFile("undici", metric);
  const startedAt = new Date().toISOString();
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  let sent = 0;
  let seq = 0;
  const t0 = process.hrtime.bigint();
  let last = t0;
  await new Promise<void>((done) => {
    let open = Math.min(connections, amount);
    const next = (): void => {
      if (sent >= amount) {
        if (--open === 0) done();
        return;
      }
      sent++;
      let start = process.hrtime.bigint();
      let status = 0;
      const at = Date.now();
      pool.dispatch(request, {
        onConnect() {
          start = process.hrtime.bigint();
        },
        onHeaders(s: number) {
          status = s;
          return true;
        },
        onData() {
          return true;
        },
        onComplete() {
          last = process.hrtime.bigint();
          const ms = Number(last - start) / 1e6;
          file.write(status === 200 ? { seq: seq++, at, ok: true, ms, cold: null } : { seq: seq++, at, ok: false, ms, cold: null, error: `HTTP ${status}` });
          next();
        },
        onError(err: Error) {
          file.write({ seq: seq++, at, ok: false, ms: Number(process.hrtime.bigint() - start) / 1e6, cold: null, error: err.message });
          next();
        },
      } as unknown as Dispatcher.DispatchHandler);
    };
    for (let i = open; i > 0; i--) next();
  });
  const wallMs = Number(last - t0) / 1e6;
  file.close();
  await pool.close();
  run.recordStage({ side: "undici", metric, file: `raw/undici.${metric}.jsonl`, attempts: file.lines, errors: file.errors, wallMs, concurrency: connections, startedAt });
}
