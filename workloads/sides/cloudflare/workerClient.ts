import { Http1Client } from "../../driver/http1/client";
import type { Outcome } from "../../experiment/measure";
import { timedRequest } from "../../driver/timedRequest";

import type { Op as DoOp } from "../../../analysis/contract/operations";
export type { DoOp };
/** Which DO a call reaches: by name, by its hex id, or a brand-new unique id. */
export type DoTarget = { name: string } | { id: string } | { unique: true };

/** Pure: the Worker route for an op on a target. */
function workerPath(op: DoOp, target: DoTarget, arg?: number): string {
  const q =
    "name" in target ? `name=${encodeURIComponent(target.name)}` : "id" in target ? `id=${encodeURIComponent(target.id)}` : "unique=1";
  return `/do/${op}?${q}${arg === undefined ? "" : `&arg=${arg}`}`;
}

/** `ms` is the Worker's Date.now() around the awaited DO call; `clientMs` the driver's hrtime round trip. */
export type WorkerResult =
  | {
      ok: true;
      ms: number;
      clientMs: number;
      id: string;
      colo?: string;
      rows?: { read: number; written: number };
      reply: { cold: boolean; actorMs: null; sqlMs: null; value: unknown };
    }
  | { ok: false; ms: number; clientMs: number; error: string };

export class WorkerClient {
  readonly calls: Http1Client;
  private readonly headers: Record<string, string>;
  /** `keepColo`: keep the colo the Worker reports; only a deployed Worker's is a place (local workerd's is Miniflare's placeholder). */
  constructor(
    readonly origin: string,
    token: string,
    readonly timeoutMs: number,
    connections = 256,
    private readonly keepColo = false,
  ) {
    this.calls = new Http1Client(origin, connections);
    this.headers = { authorization: `Bearer ${token}` };
  }

  /** One Worker invocation that makes one DO call. Never throws, never retries. */
  async call(op: DoOp, target: DoTarget, arg?: number): Promise<WorkerResult> {
    const r = await timedRequest(this.calls, { method: "POST", path: workerPath(op, target, arg), headers: this.headers }, this.timeoutMs);
    // A failed sample's ms is the client's: the Worker may not have timed anything.
    if (!r.ok) return { ok: false, ms: r.ms, clientMs: r.ms, error: r.error };
    if (r.status !== 200) return { ok: false, ms: r.ms, clientMs: r.ms, error: `HTTP ${r.status}: ${r.body.slice(0, 300)}` };
    let body: { ms?: number; cold?: boolean; value?: unknown; id?: string; colo?: unknown; rows?: { read?: unknown; written?: unknown } } =
      {};
    try {
      // Any JSON may come back (null, a number): only an object is read.
      const parsed: unknown = JSON.parse(r.body);
      if (typeof parsed === "object" && parsed !== null) body = parsed as typeof body;
    } catch {
      // reported below
    }
    if (typeof body.ms !== "number" || typeof body.cold !== "boolean") {
      return { ok: false, ms: r.ms, clientMs: r.ms, error: `unexpected reply: ${r.body.slice(0, 300)}` };
    }
    // A colo is a data center code (IAD, EWR); anything else the reply says there is dropped.
    const colo = this.keepColo && typeof body.colo === "string" && /^[A-Z]{3,4}$/.test(body.colo) ? { colo: body.colo } : {};
    // The DO's own row counts, kept only as whole numbers.
    const count = (x: unknown) => (Number.isInteger(x) && (x as number) >= 0 ? (x as number) : null);
    const read = count(body.rows?.read);
    const written = count(body.rows?.written);
    const rows = read !== null && written !== null ? { rows: { read, written } } : {};
    return {
      ok: true,
      ms: body.ms,
      clientMs: r.ms,
      id: String(body.id),
      ...colo,
      ...rows,
      reply: { cold: body.cold, actorMs: null, sqlMs: null, value: body.value },
    };
  }

  /** Client to Worker with no DO call: the third clock's baseline. `ms` and `clientMs` are both the client's. */
  async noop(): Promise<Outcome> {
    const r = await timedRequest(this.calls, { method: "GET", path: "/noop" }, this.timeoutMs);
    if (!r.ok) return { ok: false, ms: r.ms, clientMs: r.ms, error: r.error };
    if (r.status !== 200) return { ok: false, ms: r.ms, clientMs: r.ms, error: `HTTP ${r.status}` };
    return { ok: true, ms: r.ms, clientMs: r.ms, reply: { cold: false, actorMs: null, sqlMs: null } };
  }

  /** Drops a DO's instance (the Worker's /reset: DurableObjectState.abort); true once the Worker says it reset. Not timed, never retried. */
  async reset(id: string): Promise<{ ok: true } | { ok: false; error: string }> {
    const path = `/reset?id=${encodeURIComponent(id)}`;
    const r = await timedRequest(this.calls, { method: "POST", path, headers: this.headers }, this.timeoutMs);
    if (!r.ok) return { ok: false, error: r.error };
    if (r.status !== 200 || !/"reset":true/.test(r.body)) return { ok: false, error: `HTTP ${r.status}: ${r.body.slice(0, 300)}` };
    return { ok: true };
  }

  /** `abort`: end the calls still in flight too (their runtime is gone) instead of waiting for them. */
  close(abort = false): Promise<void> {
    return this.calls.close(abort);
  }
}
