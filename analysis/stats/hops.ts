/**
 * Where a call's milliseconds go: each call of a captured stage matched to its
 * packets (calls run one at a time, so the n-th request on the wire is the
 * n-th sample; an inner hop is found by identifiers the response carries),
 * cut into segments that add up to the driver's round trip, then each
 * segment's percentiles over repetitions. Pure.
 */
import type { Sample } from "../contract/runDirContract";
import type { HopSpec } from "../contract/sideProfileShape";
import { nearestRank } from "./percentiles";
import { linearInterval, type RepInterval } from "./repetitions";
import type { TcpPacket } from "./pcap";
import { exchangesOf, firstCarrying, reverse, wsPayloads, type Exchange, type Flow } from "./wire";

/** What a call's cut reads of its sample. */
export type HopSample = Pick<Sample, "ok" | "ms" | "clientMs" | "actorMs">;

/** A segment of a call, in the order the call crosses it. */
export interface Segment {
  id: string;
  label: string;
  /** A few words for it, where space is short (the README). */
  short: string;
  /** The clock it is read on. */
  clock: string;
}

const WIRE = "capture (kernel timestamps)";
const DRIVER = "driver hrtime less the capture's span";

/** The segments of a call on a side, from its hop spec. Their values for one call add up to its round trip. */
export function segmentsOf(spec: HopSpec): Segment[] {
  const where = spec.inner?.process ?? spec.front;
  const own = { id: "own", label: `${where}: ${spec.own.name}`, short: spec.own.short ?? spec.own.name, clock: "the side's own" };
  const rest = { id: "rest", label: `${where}: the rest of its part, which no hop shows`, short: `${where}, the rest`, clock: WIRE };
  const ends = {
    driver: { id: "driver", label: "driver: its own stack, both ways", short: "driver", clock: DRIVER },
    request: { id: "request", label: "request bytes on the wire", short: "request bytes", clock: WIRE },
    reply: { id: "reply", label: "response bytes on the wire", short: "response bytes", clock: WIRE },
  };
  if (!spec.inner) return [ends.driver, ends.request, own, rest, ends.reply];
  const { process } = spec.inner;
  return [
    ends.driver,
    ends.request,
    {
      id: "frontIn",
      label: `${spec.front}: request in to the actor named to the ${process}`,
      short: `${spec.front} before it names the actor`,
      clock: WIRE,
    },
    {
      id: "start",
      label: `${spec.front} and ${process}: actor named to call forwarded (its start, on a create or wake)`,
      short: "actor start",
      clock: WIRE,
    },
    own,
    rest,
    { id: "frontOut", label: `${spec.front}: reply in to response out`, short: `${spec.front} reply`, clock: WIRE },
    ends.reply,
  ];
}

/** One call's segment values (ms, by segment id) and round trip; where the front named it, its request id (its trace is found by it). */
export interface CallCut {
  rt: number;
  values: Record<string, number>;
  ray?: string;
  /** When its request began and its response ended on the capture's clock, ms. */
  wire?: { from: number; to: number };
}

/** The driver's round trip of a sample and the side's own interval, as the hop spec names it. */
const roundTrip = (s: HopSample, msIsClientClock: boolean) => (msIsClientClock ? s.ms : (s.clientMs ?? null));
const ownOf = (s: HopSample, spec: HopSpec) => (spec.own.field === "ms" ? s.ms : (s.actorMs ?? null));

/** The inner hop's times of one exchange: actor named, call forwarded, reply back; null where one is not on the wire. */
function innerTimes(packets: readonly TcpPacket[], x: Exchange, inner: NonNullable<HopSpec["inner"]>) {
  const ray = x.headers[inner.forwardHeader];
  const actor = x.headers[inner.actorHeader];
  if (!ray || !actor || x.at.resp === null || x.body.length === 0) return null;
  const fwd = firstCarrying(packets, x.at.req + 1, x.at.resp, Buffer.from(ray), { exclude: x.conn });
  if (fwd < 0) return null;
  const p = packets[fwd];
  const flow: Flow = { src: p.src, srcPort: p.srcPort, dst: p.dst, dstPort: p.dstPort };
  const named = firstCarrying(packets, x.at.req + 1, fwd + 1, Buffer.from(actor), { flow });
  const replied = firstCarrying(packets, fwd + 1, x.at.resp, x.body, { flow: reverse(flow), view: wsPayloads });
  if (named < 0 || replied < 0) return null;
  return { named: packets[named].t, forwarded: p.t, replied: packets[replied].t };
}

/**
 * Pure: an answered exchange's parts around its inner hop, ms: the front until it names the actor, the actor's
 * start until the call is forwarded, the inner process's whole part, the front's reply; null where the inner hop
 * is not on the wire.
 */
export function innerParts(packets: readonly TcpPacket[], x: Exchange, inner: NonNullable<HopSpec["inner"]>) {
  const t = innerTimes(packets, x, inner);
  if (!t || x.respFirst === null) return null;
  return { frontIn: t.named - x.reqEnd, start: t.forwarded - t.named, inner: t.replied - t.forwarded, frontOut: x.respFirst - t.replied };
}

/** Pure: one matched call cut into its segments; null where its inner hop is not on the wire. */
function cut(packets: readonly TcpPacket[], x: Exchange, s: HopSample, spec: HopSpec, rt: number): CallCut | null {
  const own = ownOf(s, spec) ?? 0;
  const respFirst = x.respFirst!;
  const common = { driver: rt - (x.respLast! - x.reqStart), request: x.reqEnd - x.reqStart, reply: x.respLast! - respFirst, own };
  if (!spec.inner) return { rt, values: { ...common, rest: respFirst - x.reqEnd - own } };
  const parts = innerParts(packets, x, spec.inner);
  if (!parts) return null;
  const { inner, ...front } = parts;
  return {
    rt,
    ray: x.headers[spec.inner.forwardHeader],
    wire: { from: x.reqStart, to: x.respLast! },
    values: { ...common, ...front, rest: inner - own },
  };
}

/** How far the capture's span of a call may exceed the driver's round trip (two clocks read microseconds apart), ms. */
export const CLOCK_SLACK_MS = 0.05;

/** A captured stage's calls cut into segments, or why its calls could not be matched to the capture. */
export type StageCut =
  | { ok: true; calls: CallCut[]; failed: number; noInnerHop: number }
  | { ok: false; why: string; requests: number; samples: number };

/**
 * Pure: a stage's samples (one repetition, one call at a time, in their file's
 * order) matched to the capture's requests in order. The match is refused whole, with its reason,
 * where the counts differ or any pair disagrees (a 200 the sample failed, a
 * span longer than the round trip): nothing is guessed.
 */
export function cutStage(
  packets: readonly TcpPacket[],
  port: number,
  samples: readonly HopSample[],
  spec: HopSpec,
  msIsClientClock: boolean,
): StageCut {
  const xs = exchangesOf(packets, port, spec.request);
  // One call at a time: the raw file's order is the calls' order.
  const refuse = (why: string): StageCut => ({ ok: false, why, requests: xs.length, samples: samples.length });
  if (xs.length !== samples.length) return refuse(`${xs.length} requests on the wire for ${samples.length} samples`);
  const calls: CallCut[] = [];
  let failed = 0;
  let noInnerHop = 0;
  for (let i = 0; i < xs.length; i++) {
    const s = samples[i];
    const x = xs[i];
    if (!s.ok) {
      failed++;
      continue;
    }
    const rt = roundTrip(s, msIsClientClock);
    if (rt === null) return refuse(`sample ${i + 1} has no driver round trip`);
    if (x.status !== 200 || !x.complete)
      return refuse(`sample ${i + 1} succeeded, its request on the wire got ${x.status ?? "no"} response`);
    const span = x.respLast! - x.reqStart;
    if (span > rt + CLOCK_SLACK_MS)
      return refuse(`sample ${i + 1}: the wire's span ${span.toFixed(3)} ms exceeds its round trip ${rt.toFixed(3)} ms`);
    const c = cut(packets, x, s, spec, rt);
    if (c) calls.push(c);
    else noInnerHop++;
  }
  return { ok: true, calls, failed, noInnerHop };
}

/** A figure over repetitions: each repetition's value, their mean, its 95% interval. */
export interface OverReps {
  perRep: number[];
  mean: number;
  ci: RepInterval;
}

/**
 * One segment over repetitions: its own p50 and p90, and its mean over the
 * median calls (medianCalls): the median calls' segments add up to their
 * round trip, which a sum of each segment's own p50 need not.
 */
export interface SegmentRow {
  segment: Segment;
  atMedian: OverReps;
  p50: OverReps;
  p90: OverReps;
}

export interface Waterfall {
  segments: SegmentRow[];
  /** The round trip's own figures over the same calls. */
  roundTrip: Omit<SegmentRow, "segment">;
  /** Calls cut per repetition. */
  calls: number[];
  /** The segments at the median calls summed, against the round trip's p50: (sum - p50) / p50 (within MEDIAN_BAND by construction). */
  sumGap: number;
  /** Each segment's own p50 summed, against the round trip's p50: how far percentiles are from adding up. */
  p50SumGap: number;
}

/** The calls whose segments the waterfall shows: those whose round trip is within this share of their repetition's median. */
export const MEDIAN_BAND = { within: 0.05 } as const;

/** The capture's clock steps in nanoseconds; the driver's in its own tick. */
const WIRE_TICK_MS = 1e-6;

const overReps = (values: number[]): OverReps => ({
  perRep: values,
  mean: values.reduce((s, v) => s + v, 0) / values.length,
  ci: linearInterval(values, WIRE_TICK_MS),
});

const quantiles = (perRep: number[][], p: number) =>
  overReps(
    perRep.map((xs) =>
      nearestRank(
        [...xs].sort((a, b) => a - b),
        p,
      ),
    ),
  );

/**
 * Pure: the median calls of one repetition: those whose round trip is within
 * MEDIAN_BAND of the nearest-rank median (the median call itself at least).
 * Their segments add up to their round trips, so to the median within that
 * share; a band by rank would not, where the median sits at a step of the
 * distribution.
 */
export function medianCalls(calls: readonly CallCut[]): CallCut[] {
  const med = nearestRank(
    calls.map((c) => c.rt).sort((a, b) => a - b),
    50,
  );
  return calls.filter((c) => Math.abs(c.rt - med) <= MEDIAN_BAND.within * med);
}

/** Pure: each segment at the median calls, and its own p50 and p90, per repetition, their means and 95% intervals over repetitions; null with no calls. */
export function waterfall(segments: readonly Segment[], reps: ReadonlyArray<readonly CallCut[]>): Waterfall | null {
  const used = reps.filter((r) => r.length > 0);
  if (used.length === 0) return null;
  const of = (f: (c: CallCut) => number) => used.map((r) => r.map(f));
  const bands = used.map(medianCalls);
  const row = (f: (c: CallCut) => number) => ({
    atMedian: overReps(bands.map((b) => b.reduce((s, c) => s + f(c), 0) / b.length)),
    p50: quantiles(of(f), 50),
    p90: quantiles(of(f), 90),
  });
  const rows = segments.map((segment) => ({ segment, ...row((c) => c.values[segment.id] ?? 0) }));
  const roundTrip = row((c) => c.rt);
  const gap = (f: (r: SegmentRow) => number) => (rows.reduce((s, r) => s + f(r), 0) - roundTrip.p50.mean) / roundTrip.p50.mean;
  return {
    segments: rows,
    roundTrip,
    calls: used.map((r) => r.length),
    sumGap: gap((r) => r.atMedian.mean),
    p50SumGap: gap((r) => r.p50.mean),
  };
}
