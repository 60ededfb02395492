import autocannon from "autocannon";
import { Pool, type Dispatcher } from "undici";
import type { RunDir } from "../../experiment/runDir";
import type { SampleFile } from "../../experiment/samples";
import type { TimedRequestOpts } from "../../driver/timedRequest";
import { rawFileName } from "../../../analysis/contract/runDirContract";

/**
 * One reference tool's stage: `drive` sends the requests, writes a sample per
 * response to `file` and calls `responded` at each (which returns the hrtime
 * it noted). The stage's wall time runs from the start to the last response,
 * and it is recorded like the driver's.
 */
async function referenceStage(
  run: RunDir,
  side: string,
  metric: string,
  connections: number,
  drive: (file: SampleFile, responded: () => bigint) => Promise<void>,
): Promise<void> {
  const file = run.rawFile(side, metric);
  const startedAt = new Date().toISOString();
  const t0 = process.hrtime.bigint();
  let last = t0;
  await drive(file, () => (last = process.hrtime.bigint()));
  const wallMs = Number(last - t0) / 1e6;
  file.close();
  run.recordStage({
    side,
    metric,
    file: rawFileName(side, metric),
    attempts: file.lines,
    errors: file.errors,
    wallMs,
    concurrency: connections,
    startedAt,
  });
}

/** What the manifest says about how autocannon's stages are timed. */
export const AUTOCANNON_CLOCK =
  "programmatic, pipelining 1, one sample written per response event (its own hrtime latency); a stage's wall time ends at its last response, not at autocannon's done callback, which waits for its next 1 s tick";

/**
 * One autocannon run with a sample written per response, as the driver writes
 * its own. The stage's wall time runs from the start to the last response:
 * autocannon calls back only on its next 1-second sampling tick, and timing to
 * that callback would understate its rate by up to a second per run.
 */
export function autocannonRun(run: RunDir, url: string, metric: string, connections: number, amount: number): Promise<void> {
  return referenceStage(run, "autocannon", metric, connections, (file, responded) => {
    let seq = 0;
    return new Promise<void>((res, rej) => {
      const inst = autocannon(
        {
          url,
          connections,
          pipelining: 1,
          amount,
          method: "POST",
          body: '{"args":[]}',
          headers: { "content-type": "application/json" },
          timeout: 10,
        },
        (err: Error | null) => (err ? rej(err) : res()),
      );
      inst.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
        responded();
        file.write({
          seq: seq++,
          at: Date.now(),
          ok: status === 200,
          ms,
          cold: null,
          ...(status === 200 ? {} : { error: `HTTP ${status}` }),
        });
      });
    });
  });
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
export async function undiciRun(
  run: RunDir,
  origin: string,
  request: TimedRequestOpts,
  metric: string,
  connections: number,
  amount: number,
): Promise<void> {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  await referenceStage(run, "undici", metric, connections, (file, responded) => {
    let sent = 0;
    let seq = 0;
    return new Promise<void>((done) => {
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
            const ms = Number(responded() - start) / 1e6;
            file.write(
              status === 200
                ? { seq: seq++, at, ok: true, ms, cold: null }
                : { seq: seq++, at, ok: false, ms, cold: null, error: `HTTP ${status}` },
            );
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
  });
  await pool.close();
}
