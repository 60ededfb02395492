import { Pool } from "undici";
import { describeRequestError, type Outcome } from "../measure";

export type DoOp = "ping" | "read" | "write" | "scan" | "seed";
/** Which DO a call reaches: by name, by its hex id, or a brand-new unique id. */
export type DoTarget = { name: string } | { id: string } | { unique: true };

/** Pure: the Worker route for an op on a target. */
export function workerPath(op: DoOp, target: DoTarget, arg?: number): string {
  const q =
    "name" in target ? `name=${encodeURIComponent(target.name)}` : "id" in target ? `id=${encodeURIComponent(target.id)}` : "unique=1";
  return `/do/${op}?${q}${arg === undefined ? "" : `&arg=${arg}`}`;
}

/** `ms` is the Worker's Date.now() around the awaited DO call; `clientMs` the driver's hrtime round trip. */
export type WorkerResult =
  | { ok: true; ms: number; clientMs: number; id: string; reply: { cold: boolean; actorMs: null; sqlMs: null; value: unknown } }
  | { ok: false; ms: number; clientMs: number; error: string };

export class WorkerClient {
  readonly pool: Pool;
  private readonly auth: string;
  constructor(
    readonly origin: string,
    token: string,
    readonly timeoutMs: number,
    connections = 256,
  ) {
    this.pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
    this.auth = `Bearer ${token}`;
  }

  /** One Worker invocation that makes one DO call. Never throws, never retries. */
  async call(op: DoOp, target: DoTarget, arg?: number): Promise<WorkerResult> {
    const t0 = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - t0) / 1e6;
    try {
      const res = await this.pool.request({
        method: "POST",
        path: workerPath(op, target, arg),
        headers: { authorization: this.auth },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await res.body.text();
      const clientMs = elapsed();
      // A failed sample's ms is the client's: the Worker may not have timed anything.
      if (res.statusCode !== 200) return { ok: false, ms: clientMs, clientMs, error: `HTTP ${res.statusCode}: ${text.slice(0, 300)}` };
      const body = JSON.parse(text) as { ms?: number; cold?: boolean; value?: unknown; id?: string };
      if (typeof body.ms !== "number" || typeof body.cold !== "boolean") {
        return { ok: false, ms: clientMs, clientMs, error: `unexpected reply: ${text.slice(0, 300)}` };
      }
      return { ok: true, ms: body.ms, clientMs, id: String(body.id), reply: { cold: body.cold, actorMs: null, sqlMs: null, value: body.value } };
    } catch (err) {
      const clientMs = elapsed();
      return { ok: false, ms: clientMs, clientMs, error: describeRequestError(err, this.timeoutMs) };
    }
  }

  /** Client to Worker with no DO call: the third clock's baseline. `ms` and `clientMs` are both the client's. */
  async noop(): Promise<Outcome> {
    const t0 = process.hrtime.bigint();
    try {
      const res = await this.pool.request({ method: "GET", path: "/noop", signal: AbortSignal.timeout(this.timeoutMs) });
      await res.body.text();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (res.statusCode !== 200) return { ok: false, ms, clientMs: ms, error: `HTTP ${res.statusCode}` };
      return { ok: true, ms, clientMs: ms, reply: { cold: false, actorMs: null, sqlMs: null } };
    } catch (err) {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      return { ok: false, ms, clientMs: ms, error: describeRequestError(err, this.timeoutMs) };
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
