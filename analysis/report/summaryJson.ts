/**
 * summary.json, one more exporter of the run model: every row, the
 * throughputs, and where the run has them the cost cells, memory, capacity
 * and ceiling curves, idle steps, payload rows and the claims ledger.
 * Computes nothing of its own.
 */
import type { Loaded } from "./load";
import type { CapacityCurve } from "../stats/capacity";
import { opGroup } from "../contract/capacity";
import type { LedgerRow } from "../stats/claims";
import type { HopRow } from "../stats/hopRows";
import { missedColdProofs, type IdleStep } from "../stats/idle";

/** An idle ladder step in summary.json. */
const idleSummary = (s: IdleStep) => ({
  side: s.side,
  idleMs: s.idleMs,
  n: s.n,
  errors: s.errors,
  cold: s.cold,
  coldRequired: s.coldRequired,
  notColdThoughRequired: missedColdProofs(s),
  clock: "client round trip",
  p50: s.p50,
  p90: s.p90,
  p50Interval: { lo: s.p50Interval.lo, hi: s.p50Interval.hi, ...(s.p50Interval.none ? { none: s.p50Interval.none } : {}) },
  actualIdleMs: s.actualIdleMs,
  idleSleepMs: s.idleSleepMs,
  ...(s.ended.length ? { ended: s.ended } : {}),
});

/** A capacity curve in summary.json: the rate held per repetition, the range, the objective, and every step. */
const capacitySummary = (c: CapacityCurve) => ({
  side: c.side,
  group: opGroup(c.op),
  op: c.op,
  objective: c.objective,
  estimatePerSecond: c.held.estimate,
  interval: { lo: c.held.lo, hi: c.held.hi, ...(c.held.none ? { none: c.held.none } : {}) },
  heldPerSecond: c.reps.map((r) => r.held),
  missedPerSecond: c.reps.map((r) => r.missed),
  range: c.range,
  steps: c.steps.map((st) => ({
    rep: st.rep,
    ratePerSecond: st.ratePerSecond,
    planned: st.planned,
    sent: st.sent,
    failed: st.failed,
    p50: st.p50,
    p99: st.p99,
    held: st.held,
    cpuMsPerOp: st.ownCpuMsPerOp,
    driverCpuMsPerOp: st.driverCpuMsPerOp,
  })),
});

/** A claim of the ledger in summary.json: the claim, this run's figure and the verdict. */
const claimSummary = (r: LedgerRow) => ({
  id: r.claim.id,
  side: r.claim.side,
  words: r.claim.words,
  who: r.claim.who,
  source: r.claim.source,
  date: r.claim.date,
  states: r.claim.states,
  figure: r.figure,
  verdict: r.verdict,
  ...(r.why ? { why: r.why } : {}),
});

/** A waterfall row: each segment's figures with the clock it is read on, the round trip's, and what was left out. */
const hopSummary = (r: HopRow) => ({
  side: r.side,
  metric: r.metric,
  reps: r.reps,
  calls: r.waterfall?.calls ?? [],
  ...(r.waterfall
    ? {
        roundTrip: { clock: "driver hrtime", ...r.waterfall.roundTrip },
        segments: r.waterfall.segments.map((s) => ({
          id: s.segment.id,
          label: s.segment.label,
          clock: s.segment.clock,
          atMedian: s.atMedian,
          p50: s.p50,
          p90: s.p90,
        })),
        sumGap: r.waterfall.sumGap,
        p50SumGap: r.waterfall.p50SumGap,
      }
    : {}),
  failed: r.failed,
  noInnerHop: r.noInnerHop,
  refused: r.refused,
  ...(r.spans ? { spans: { clock: "the runtime's own span timestamps", ...r.spans } } : {}),
});

/** The run's summary.json text. */
export function summaryJson(l: Loaded): string {
  const memory = l.model.memory.length ? { memory: l.model.memory } : {};
  const cost = l.model.cost
    ? { asOf: l.model.cost.prices.asOf, cells: l.model.cost.rows.flatMap((r) => r.cells.map((c) => ({ metric: r.metric, ...c }))) }
    : undefined;
  const capacity = l.model.capacity.length ? { capacity: l.model.capacity.map(capacitySummary) } : {};
  const idle = l.model.idle.length ? { idle: l.model.idle.map(idleSummary) } : {};
  const payload = l.model.payload.length
    ? { payload: l.model.payload.map((r) => ({ ...r, clock: "client round trip; sqlP50: the actor's SQL interval" })) }
    : {};
  const alarms = l.model.alarms.length
    ? {
        alarms: l.model.alarms.map((r) => ({
          ...r,
          clock: "lateness: the actor's own Date.now(), from due to the handler's start, whole ms",
        })),
      }
    : {};
  const claims = l.model.claims.length ? { claims: l.model.claims.map(claimSummary) } : {};
  const hops = l.model.hops.length ? { hops: l.model.hops.map(hopSummary) } : {};
  const body = {
    rows: l.summary.rows,
    throughput: l.summary.throughput,
    ...(cost ? { cost } : {}),
    ...memory,
    ...capacity,
    ...idle,
    ...payload,
    ...alarms,
    ...claims,
    ...hops,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
