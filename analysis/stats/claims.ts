/**
 * The claims ledger of a run: each claim of analysis/contract/claims.ts beside
 * this run's figure for the same quantity, with its 95% interval over
 * repetitions, and a verdict by rule. Consistent here: the interval reaches
 * the stated value (about X: within a factor of ABOUT_FACTOR of it; at least
 * X: its upper end is X or more; at most X: its lower end is X or less).
 * Not consistent here: it does not. A figure with no interval (one
 * repetition, a clock too coarse, a p99 that is each repetition's maximum)
 * is held to a one-sided claim by itself, and the row says so; to "about X"
 * it is not comparable. Not comparable here: the claim is of
 * another release or SDK, of a hosted platform or cluster a local run is not,
 * or the run has no figure with an interval for it (the reason is given).
 * Pure.
 */
import { ABOUT_FACTOR, CLAIMS, type Claim, type ClaimMeasure } from "../contract/claims";
import { CLIENT_TICK_MS } from "../contract/catalog";
import { stageKey } from "../contract/runDirContract";
import type { CapacityCurve } from "./capacity";
import type { MemoryPerActor } from "./memory";
import { groupByRep, repSpread } from "./repetitions";
import { ALARM_CLOCK_TICK_MS } from "./alarms";
import { nearestRank } from "./percentiles";
import { msIsClientClock, statsOf, type RunSamples, type RunSummary } from "./summary";

export type Verdict = "consistent here" | "not consistent here" | "not comparable here";

/** This run's figure for a claim's quantity: its value, its 95% interval (or why none), in the claim's unit, and what it is. */
export interface ClaimFigure {
  value: number;
  lo: number | null;
  hi: number | null;
  none?: string;
  what: string;
}

export interface LedgerRow {
  claim: Claim;
  figure: ClaimFigure | null;
  verdict: Verdict;
  why: string;
}

export interface LedgerInput {
  /** A cloud stack's run (a local run cannot check a hosted platform's figures). */
  cloud: boolean;
  summary: RunSummary;
  samples: RunSamples;
  capacity: readonly CapacityCurve[];
  memory: readonly MemoryPerActor[];
}

const CLOCK_WORDS = {
  own: "on the side's own clock",
  client: "client round trip",
  sql: "the actor's SQL interval",
  late: "alarm lateness, the actor's clock",
} as const;

function percentileFigure(m: Extract<ClaimMeasure, { kind: "percentile" }>, side: string, x: LedgerInput): ClaimFigure | null {
  const row = x.summary.rows.find((r) => r.side === side && r.metric === m.metric);
  const stats = statsOf(x.samples, side, m.metric);
  if (!row || !stats || row.n === 0) return null;
  const what = `${m.metric} ${m.q}, ${CLOCK_WORDS[m.clock]}`;
  if (m.clock === "own") return { value: row[m.q], ...row.repetitions.ci[m.q], what };
  if (m.clock === "client") {
    const spread = msIsClientClock(x.summary.sides.get(side), m.metric) ? row.repetitions : row.clientRepetitions;
    return stats.client && spread ? { value: stats.client[m.q], ...spread.ci[m.q], what } : null;
  }
  const field = m.clock === "sql" ? "sqlMs" : "lateMs";
  const xs = stats.counted.filter((s) => typeof s[field] === "number");
  if (xs.length === 0) return null;
  const spread = repSpread(
    groupByRep(xs, (s) => s[field]!),
    m.clock === "sql" ? CLIENT_TICK_MS : ALARM_CLOCK_TICK_MS,
  );
  const sorted = xs.map((s) => s[field]!).sort((a, b) => a - b);
  return { value: nearestRank(sorted, m.q === "p50" ? 50 : 99), ...spread.ci[m.q], what };
}

/** The run's figure for a claim on its side, or null where the run has none. */
export function claimFigure(c: Claim, x: LedgerInput): ClaimFigure | null {
  const m = c.measure;
  if (m.kind === "percentile") return percentileFigure(m, c.side, x);
  if (m.kind === "held") {
    const curve = x.capacity.find((k) => k.side === c.side && k.op === m.op);
    if (!curve || curve.held.estimate === null) return null;
    return { value: curve.held.estimate, lo: curve.held.lo, hi: curve.held.hi, none: curve.held.none, what: `rate held, ${m.op}` };
  }
  if (m.kind === "memory") {
    const mem = x.memory.find((k) => k.side === c.side);
    const kb = m.state === "asleep" ? mem?.sleepingKb : mem?.liveKb;
    const iv = m.state === "asleep" ? mem?.sleepingInterval : mem?.liveInterval;
    if (kb === null || kb === undefined || !iv) return null;
    return {
      value: kb,
      lo: iv.lo,
      hi: iv.hi,
      ...(iv.none ? { none: iv.none } : {}),
      what: `kB per actor ${m.state}, the scaling group's fit`,
    };
  }
  if (m.kind === "accepts") {
    const xs = x.samples.get(stageKey(c.side, m.metric));
    if (!xs || xs.length === 0) return null;
    const ok = xs.filter((s) => s.ok).length;
    const refused = xs.find((s) => !s.ok)?.error;
    return {
      value: ok,
      lo: ok,
      hi: xs.length,
      what: `${ok} of ${xs.length} writes accepted${refused ? `; refused: ${refused.slice(0, 120)}` : ""}`,
    };
  }
  return null;
}

function holds(c: Claim, f: ClaimFigure): boolean {
  const { value, relation } = c.states;
  if (c.measure.kind === "accepts") return f.value === f.hi;
  if (relation === "at least") return f.hi! >= value;
  if (relation === "at most") return f.lo! <= value;
  return f.hi! >= value / ABOUT_FACTOR && f.lo! <= value * ABOUT_FACTOR;
}

/** One claim's row. */
export function ledgerRow(c: Claim, x: LedgerInput): LedgerRow {
  const figure = claimFigure(c, x);
  const no = (why: string): LedgerRow => ({ claim: c, figure, verdict: "not comparable here", why });
  if (c.never) return no(c.never);
  if (c.measure.kind === "none") return no(c.measure.why);
  if (c.cloudOnly && !x.cloud) return no(c.cloudOnly);
  if (!figure) return no("this run has no figure for it (its group or side did not run)");
  if (figure.lo === null || figure.hi === null) {
    // A one-sided claim can still be held to the figure itself; "about" cannot be without a spread.
    if (c.states.relation === "about") return no(`no 95% interval in this run: ${figure.none ?? "none"}`);
    const ok = c.states.relation === "at most" ? figure.value <= c.states.value : figure.value >= c.states.value;
    return {
      claim: c,
      figure,
      verdict: ok ? "consistent here" : "not consistent here",
      why: `judged on the figure itself, which has no 95% interval (${figure.none ?? "none"})`,
    };
  }
  return holds(c, figure)
    ? { claim: c, figure, verdict: "consistent here", why: "" }
    : { claim: c, figure, verdict: "not consistent here", why: "" };
}

/** Every claim's row for the sides the run measured, in the table's order. */
export function claimsLedger(x: LedgerInput, claims: readonly Claim[] = CLAIMS): LedgerRow[] {
  return claims.filter((c) => x.summary.sides.order.includes(c.side)).map((c) => ledgerRow(c, x));
}
