/**
 * A plain protocol for an actor server of the project's own (the floor, a
 * test's fixture side), so that it needs no other runtime's routes:
 *
 *   POST /actor/<op>   {"key": "...", "actor": "plain"|"store", "args": [...]}   by key: the key's actor, created by its first call
 *   POST /actor/<op>   {"id": "...", "args": [...]}                             by the id a reply gave
 *
 * 200 answers {"id": "<actor id>", "reply": ActorReply}; anything else is a
 * failure with {"error": "..."}. The `sleep` op puts the actor to sleep.
 * The client times each call on the driver's own HTTP/1.1 client, as every
 * side's calls are timed.
 */
import { Http1Client } from "../driver/http1/client";
import { timedRequest, type TimedResponse } from "../driver/timedRequest";
import type { ActorReply } from "./actorReply";
import type { ActorRef, SideOutcome } from "../experiment/adapter";
import { ACTOR_CLASSES, type ActorClass, type Op } from "../../analysis/contract/operations";

/** What a server reads from a request: the actor, the op and its arguments; or why not, with its status. */
type ActorCall = { ok: true; ref: ActorRef; op: string; args: unknown[] } | { ok: false; status: number; error: string };

const ROUTE = /^\/actor\/([a-zA-Z]+)$/;

/** Pure: a request as an actor call. */
export function readActorCall(method: string | undefined, url: string | undefined, body: string): ActorCall {
  const m = method === "POST" ? ROUTE.exec(url ?? "") : null;
  if (!m) return { ok: false, status: 404, error: `no route ${method} ${url}` };
  let o: { key?: unknown; actor?: unknown; id?: unknown; args?: unknown };
  try {
    o = JSON.parse(body || "{}") as typeof o;
  } catch {
    return { ok: false, status: 400, error: "the body is not JSON" };
  }
  if (typeof o !== "object" || o === null) return { ok: false, status: 400, error: "the body is not a JSON object" };
  const args = o.args === undefined ? [] : o.args;
  if (!Array.isArray(args)) return { ok: false, status: 400, error: "args must be a list" };
  if (typeof o.id === "string" && o.key === undefined) return { ok: true, ref: { id: o.id }, op: m[1], args };
  if (typeof o.key === "string" && o.key.length > 0 && (ACTOR_CLASSES as readonly unknown[]).includes(o.actor))
    return { ok: true, ref: { key: o.key, actor: o.actor as ActorClass }, op: m[1], args };
  return { ok: false, status: 400, error: "a call names an id, or a key and the actor plain or store" };
}

/** The body of a 200 answer. */
export const actorAnswer = (id: string, reply: ActorReply): string => JSON.stringify({ id, reply });

/** One timed call: `ms` is client send to full reply, from process.hrtime.bigint(). */
type ActorCallResult = { ok: true; ms: number; actorId: string; reply: ActorReply } | { ok: false; ms: number; error: string };

/** Pure: a response as a call's result; anything but a 200 with an actor's reply is a failure. */
function toActorResult(r: TimedResponse): ActorCallResult {
  if (!r.ok) return r;
  if (r.status !== 200) return { ok: false, ms: r.ms, error: `HTTP ${r.status}: ${r.body.slice(0, 300)}` };
  let parsed: { id?: unknown; reply?: ActorReply };
  try {
    parsed = JSON.parse(r.body) as typeof parsed;
  } catch {
    return { ok: false, ms: r.ms, error: `unexpected reply: ${r.body.slice(0, 300)}` };
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    typeof parsed.id !== "string" ||
    typeof parsed.reply !== "object" ||
    parsed.reply === null ||
    typeof parsed.reply.cold !== "boolean"
  ) {
    return { ok: false, ms: r.ms, error: `unexpected reply: ${r.body.slice(0, 300)}` };
  }
  return { ok: true, ms: r.ms, actorId: parsed.id, reply: parsed.reply };
}

const HEADERS = { "content-type": "application/json" };

export class ActorProtocolClient {
  /** Timed calls. */
  readonly calls: Http1Client;
  constructor(
    readonly origin: string,
    readonly timeoutMs: number,
    connections = 256,
  ) {
    this.calls = new Http1Client(origin, connections);
  }

  /** Calls `op` on the actor; never throws and never retries: a failure is a result. */
  call(ref: ActorRef, op: Op | "sleep", args: unknown[] = []): Promise<ActorCallResult> {
    const body = JSON.stringify({ ...("id" in ref ? { id: ref.id } : { key: ref.key, actor: ref.actor }), args });
    return timedRequest(this.calls, { method: "POST", path: `/actor/${op}`, headers: HEADERS, body }, this.timeoutMs, toActorResult);
  }

  /** One call as a stage-plan outcome. */
  async outcome(ref: ActorRef, op: Op, arg?: number): Promise<SideOutcome> {
    const r = await this.call(ref, op, arg === undefined ? [] : [arg]);
    return r.ok
      ? {
          ok: true,
          ms: r.ms,
          reply: { cold: r.reply.cold, actorMs: r.reply.actorMs, sqlMs: r.reply.sqlMs, value: r.reply.value },
          actorId: r.actorId,
        }
      : r;
  }

  /** `abort`: end the calls still in flight too (their runtime is gone) instead of waiting for them. */
  close(abort = false): Promise<void> {
    return this.calls.close(abort);
  }
}
