import { Pool } from "undici";
import { headerOf, Http1Client } from "../../driver/http1/client";
import { timedRequest, type TimedRequestOpts, type TimedResponse } from "../../driver/timedRequest";
import type { ActorReply } from "../actorReply";
import type { ActorRef, Op, SideOutcome } from "../../experiment/adapter";

/** Pure URL building for the Engine gateway's action routes. */
export type Target = { kind: "key"; actor: string; key: string } | { kind: "id"; actorId: string };

/** Characters encodeURIComponent leaves as they are (some of them): a component of only these is used as is. */
const URL_SAFE = /^[A-Za-z0-9_.~-]*$/;
/** encodeURIComponent, skipped for the ids and keys that need none (nearly all): this runs on every call. */
const component = (s: string): string => (URL_SAFE.test(s) ? s : encodeURIComponent(s));

export function actionPath(target: Target, action: string): string {
  if (target.kind === "id") return `/gateway/${component(target.actorId)}/action/${action}`;
  return (
    `/gateway/${component(target.actor)}/action/${action}` +
    `?rvt-namespace=default&rvt-method=getOrCreate&rvt-runner=default&rvt-key=${component(target.key)}`
  );
}

export type { ActorReply } from "../actorReply";

/** One timed call: `ms` is client send to full reply, from process.hrtime.bigint(). */
export type CallResult = { ok: true; ms: number; actorId: string; reply: ActorReply } | { ok: false; ms: number; error: string };

/** Pure: one gateway response as a call's result; anything but a 200 with an actor's reply is a failure. */
export function toCallResult(r: TimedResponse): CallResult {
  if (!r.ok) return r;
  if (r.status !== 200) return { ok: false, ms: r.ms, error: `HTTP ${r.status}: ${r.body.slice(0, 300)}` };
  let parsed: { output?: ActorReply };
  try {
    parsed = JSON.parse(r.body) as { output?: ActorReply };
  } catch {
    return { ok: false, ms: r.ms, error: `unexpected reply: ${r.body.slice(0, 300)}` };
  }
  // Any JSON may come back (null, a number): only an object with an output object is an actor's reply.
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    typeof parsed.output !== "object" ||
    parsed.output === null ||
    typeof parsed.output.cold !== "boolean"
  )
    return { ok: false, ms: r.ms, error: `unexpected reply: ${r.body.slice(0, 300)}` };
  return { ok: true, ms: r.ms, actorId: headerOf(r.head, "x-rivet-actor") ?? "", reply: parsed.output };
}

const HEADERS = { "content-type": "application/json", "x-rivet-encoding": "json" };
/** Nearly every call has no arguments: its body is built once. */
const NO_ARGS = JSON.stringify({ args: [] });

/** The HTTP request of one action call: what the driver sends, and what `npm run bench:driver`'s references send too. */
export function actionRequest(target: Target, action: string, args: unknown[] = []): TimedRequestOpts {
  return {
    method: "POST",
    path: actionPath(target, action),
    headers: HEADERS,
    body: args.length === 0 ? NO_ARGS : JSON.stringify({ args }),
  };
}

const targetOf = (ref: ActorRef): Target =>
  "id" in ref ? { kind: "id", actorId: ref.id } : { kind: "key", actor: ref.actor, key: ref.key };

/** One call through the gateway's action routes, as a stage-plan outcome. */
export async function gatewayCall(client: GatewayClient, ref: ActorRef, op: Op, arg?: number): Promise<SideOutcome> {
  const r = await client.call(targetOf(ref), op, arg === undefined ? [] : [arg]);
  return r.ok
    ? {
        ok: true,
        ms: r.ms,
        reply: { cold: r.reply.cold, actorMs: r.reply.actorMs, sqlMs: r.reply.sqlMs, value: r.reply.value },
        actorId: r.actorId,
      }
    : r;
}

export class GatewayClient {
  /** The client of the Engine's API calls, for the manifest: never timed. */
  static readonly API_CLIENT = "undici Pool: the Engine API (actor records for sleep confirmation) and health checks, never timed";
  /** Timed action calls. */
  readonly calls: Http1Client;
  /** The Engine API (untimed): undici. */
  private readonly api: Pool;
  private readonly apiHeaders: Record<string, string>;
  /** `adminToken`: the Engine's, for its API (actor calls through the gateway need none). */
  constructor(
    readonly origin: string,
    readonly timeoutMs: number,
    connections = 256,
    adminToken?: string,
  ) {
    this.calls = new Http1Client(origin, connections);
    this.api = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
    this.apiHeaders = adminToken ? { authorization: `Bearer ${adminToken}` } : {};
  }

  /** Calls `action` with `args`; never throws and never retries: a failure is a result. */
  call(target: Target, action: string, args: unknown[] = []): Promise<CallResult> {
    return timedRequest(this.calls, actionRequest(target, action, args), this.timeoutMs, toCallResult);
  }

  /** Actor records from the Engine API (GET /actors), for sleep confirmation. */
  async actors(ids: string[]): Promise<Array<{ actor_id: string; sleep_ts: number | null; destroy_ts: number | null }>> {
    const res = await this.api.request({
      method: "GET",
      path: `/actors?namespace=default&actor_ids=${ids.map(encodeURIComponent).join(",")}`,
      headers: this.apiHeaders,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET /actors: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    return (JSON.parse(text) as { actors: Array<{ actor_id: string; sleep_ts: number | null; destroy_ts: number | null }> }).actors;
  }

  /** `abort`: end the calls still in flight too (their runtime is gone) instead of waiting for them. */
  async close(abort = false): Promise<void> {
    await Promise.all([this.calls.close(abort), abort ? this.api.destroy() : this.api.close()]);
  }
}
