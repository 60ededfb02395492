/**
 * A runtime's own trace spans beside the wire's segments: for the calls a
 * waterfall shows, the spans of the traces their request ids name (the Rivet
 * Engine stamps each request's span with its ray id, the id it also returns
 * in x-rivet-ray-id), summed by span name. Pure.
 */
import type { Span } from "./otlp";

/** The span attributes that carry a request's id, as the Engine names them. */
const REQUEST_ID_ATTRS = ["ray_id", "external_ray_id"];

export interface SpanRow {
  name: string;
  /** Mean time in spans of this name per traced call, within the call's time on the wire, ms (nested spans each count their own). */
  msPerCall: number;
  /** Mean number of such spans per traced call. */
  perCall: number;
}

export interface CallSpans {
  /** Calls asked about, and those whose trace was among the spans. */
  calls: number;
  traced: number;
  rows: SpanRow[];
}

/** The spans of a runtime's export, indexed by trace and by the request ids they carry. */
export function spanIndex(spans: readonly Span[]) {
  const byTrace = new Map<string, Span[]>();
  const traceOfRequest = new Map<string, Set<string>>();
  for (const s of spans) {
    (byTrace.get(s.traceId) ?? byTrace.set(s.traceId, []).get(s.traceId)!).push(s);
    for (const k of REQUEST_ID_ATTRS) {
      const v = s.attrs[k];
      if (typeof v === "string") (traceOfRequest.get(v) ?? traceOfRequest.set(v, new Set()).get(v)!).add(s.traceId);
    }
  }
  return { byTrace, traceOfRequest };
}

export type SpanIndex = ReturnType<typeof spanIndex>;

/** A call to look up: its request id and when it was on the wire, ns since the epoch. */
export interface TracedCall {
  id: string;
  fromNs: bigint;
  toNs: bigint;
}

/**
 * Pure: the spans of the calls' traces (each repetition's calls in its own
 * runtime's spans), by name, counting only the part of each span inside its
 * call's time on the wire (a trace may hold longer work the call only joined),
 * the `limit` that hold the most time per call first.
 */
export function spansOfCalls(groups: ReadonlyArray<{ index: SpanIndex; calls: readonly TracedCall[] }>, limit = 8): CallSpans {
  const total = new Map<string, { ms: number; n: number }>();
  let traced = 0;
  let calls = 0;
  for (const { index, calls: cs } of groups)
    for (const c of cs) {
      calls++;
      const traces = index.traceOfRequest.get(c.id);
      if (!traces) continue;
      traced++;
      for (const t of traces)
        for (const s of index.byTrace.get(t) ?? []) {
          // Milliseconds from the call's start: small enough for a number to hold to the nanosecond.
          const ms = (ns: bigint) => Number(ns - c.fromNs) / 1e6;
          const inside = Math.min(ms(s.endNs), ms(c.toNs)) - Math.max(ms(s.startNs), 0);
          if (inside <= 0) continue;
          const e = total.get(s.name) ?? { ms: 0, n: 0 };
          e.ms += inside;
          e.n++;
          total.set(s.name, e);
        }
    }
  const rows = [...total]
    .map(([name, e]) => ({ name, msPerCall: e.ms / Math.max(1, traced), perCall: e.n / Math.max(1, traced) }))
    .sort((a, b) => b.msPerCall - a.msPerCall || a.name.localeCompare(b.name))
    .slice(0, limit);
  return { calls, traced, rows };
}
