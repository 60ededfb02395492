/**
 * summary.json, one more exporter of the run model: every row, the
 * throughputs, and where the run has them the cost cells, memory, capacity
 * curves and idle steps. Computes nothing of its own.
 */
import type { Loaded } from "./load";
import type { CapacityCurve } from "../stats/capacity";
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

/** The run's summary.json text. */
export function summaryJson(l: Loaded): string {
  const memory = l.model.memory.length ? { memory: l.model.memory } : {};
  const cost = l.model.cost
    ? { asOf: l.model.cost.prices.asOf, cells: l.model.cost.rows.flatMap((r) => r.cells.map((c) => ({ metric: r.metric, ...c }))) }
    : undefined;
  const capacity = l.model.capacity.length ? { capacity: l.model.capacity.map(capacitySummary) } : {};
  const idle = l.model.idle.length ? { idle: l.model.idle.map(idleSummary) } : {};
  return `${JSON.stringify({ rows: l.summary.rows, throughput: l.summary.throughput, ...(cost ? { cost } : {}), ...memory, ...capacity, ...idle }, null, 2)}\n`;
}
