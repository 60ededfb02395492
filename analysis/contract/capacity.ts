/**
 * The capacity group's rules, used alike by the driver (which rate to try
 * next, when a step has already missed) and by the report (which rate a
 * repetition held, recomputed from the raw samples): a side holds a rate
 * when an open-model step at it keeps the objective, and its knee is found by
 * stepping the rate up by STEP_FACTOR until a step misses, then bisecting
 * (geometrically) between the highest rate held and the lowest missed until
 * they are within RESOLUTION of each other.
 */

/** The capacity group's operations: warm calls and writes spread over a pool of actors, and creates. */
export const CAPACITY_OPS = ["warm", "create", "write"] as const;
/** The ceiling group's: warm calls and one-row writes, all to one actor (one object's limit). */
export const CEILING_OPS = ["warm1", "write1"] as const;
/** Every searched operation, capacity's then ceiling's. */
export const SEARCH_OPS = [...CAPACITY_OPS, ...CEILING_OPS] as const;
export type CapacityOp = (typeof SEARCH_OPS)[number];
/** The group that searches an operation. */
export const opGroup = (op: CapacityOp): "capacity" | "ceiling" =>
  (CEILING_OPS as readonly string[]).includes(op) ? "ceiling" : "capacity";

/** What a step must keep to count as held. Latency is the client's clock from each request's intended send time. */
export interface CapacityObjective {
  p99Ms: number;
  maxFailureShare: number;
}

export const CAPACITY = {
  /** The stated objective unless --capacity-p99-ms says otherwise; failures are at most 0.1% of a step's arrivals. */
  objective: { p99Ms: 100, maxFailureShare: 0.001 } satisfies CapacityObjective,
  /** The first rate tried, per second: creates are far dearer than calls to a running actor. */
  startRate: { warm: 50, create: 5, write: 50, warm1: 50, write1: 50 } satisfies Record<CapacityOp, number>,
  stepFactor: 2,
  /** The search ends when the lowest missed rate is within this factor of the highest held. */
  resolution: 1.2,
  /** No step goes faster: past it the driver, one Node process, is the limit on any side. */
  ceiling: 20_000,
  /** No step goes slower: a side that misses at 1 a second holds nothing the search can show. */
  floor: 1,
  /** Warm calls and writes go round robin to this many running actors (the store ones for writes), so the runtime's path is measured, not one actor's queue. */
  pool: 16,
  /** Calls each pool actor gets before the first step. */
  warmupCalls: 5,
  /** The pause after each step, so a backlog the last step left does not fall into the next. */
  restMs: 1000,
} as const;

/** How a table names each searched operation. */
export const OP_WORDS: Record<CapacityOp, string> = {
  warm: `warm calls, ${CAPACITY.pool} actors`,
  create: "creates",
  write: `one-row writes, ${CAPACITY.pool} actors`,
  warm1: "warm calls, one actor",
  write1: "one-row writes, one actor",
};
/** A step's metric id: `capacity.<op>.r<rate>`. */
export const capacityMetric = (op: CapacityOp, rate: number) => `capacity.${op}.r${rate}`;
const CAPACITY_ID = /^capacity\.(warm1|write1|warm|create|write)\.r([1-9]\d{0,5})$/;
export function parseCapacityMetric(id: string): { op: CapacityOp; ratePerSecond: number } | undefined {
  const m = CAPACITY_ID.exec(id);
  return m ? { op: m[1] as CapacityOp, ratePerSecond: Number(m[2]) } : undefined;
}

/** How many failures a step of n arrivals may have, and how many of its successes may be slower than the objective with `failed` failures (p99 by nearest rank). */
export function stepAllowance(n: number, o: CapacityObjective, failed = 0): { failures: number; slow: number } {
  const ok = n - failed;
  return { failures: Math.floor(n * o.maxFailureShare + 1e-9), slow: ok - Math.ceil(0.99 * ok) };
}

/** One step's outcome against the objective. */
interface StepVerdict {
  held: boolean;
  /** What missed, in words (empty when held). */
  why: string;
  /** The successes' ms, ascending: what its percentiles are read from. */
  succeeded: number[];
}

type StepSample = { ok: boolean; ms: number; cold?: boolean | null };
/** Whether a call counts as done: it answered, and where the step creates, from a fresh instance (a create not proven cold did not create). */
const succeeded = (s: StepSample, mustBeCold: boolean) => s.ok && (!mustBeCold || s.cold === true);

/**
 * Whether a step kept the objective: at most maxFailureShare of its planned
 * arrivals failed (a create not proven cold is a failure: it did not create),
 * every planned arrival was sent (a step is stopped once it has missed), and
 * the p99 of the successes, nearest rank, is within p99Ms.
 */
export function stepVerdict(planned: number, samples: ReadonlyArray<StepSample>, o: CapacityObjective, mustBeCold: boolean): StepVerdict {
  const good = samples
    .filter((s) => succeeded(s, mustBeCold))
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  const failed = samples.length - good.length;
  const allowed = stepAllowance(planned, o, failed);
  const miss = (why: string): StepVerdict => ({ held: false, why, succeeded: good });
  if (failed > allowed.failures) return miss(`${failed} of ${planned} failed (at most ${allowed.failures} allowed)`);
  if (samples.length < planned) return miss(`stopped after ${samples.length} of ${planned} arrivals`);
  const p99 = good.length ? good[Math.ceil(0.99 * good.length) - 1] : Number.POSITIVE_INFINITY;
  if (p99 > o.p99Ms) return miss(`p99 ${p99.toFixed(1)} ms over ${o.p99Ms} ms`);
  return { held: true, why: "", succeeded: good };
}

/**
 * Watches a step while it runs: says why it has already missed, once more
 * failures or slow successes than the objective allows for the whole step
 * have come in (whatever the remaining arrivals do, its verdict is a miss).
 */
export function stepWatch(planned: number, o: CapacityObjective, mustBeCold: boolean) {
  let failed = 0;
  let slow = 0;
  // More failures only lower the slow successes allowed, so a step stopped here could not have kept the objective.
  return (s: StepSample): string | undefined => {
    if (!succeeded(s, mustBeCold)) failed++;
    else if (s.ms > o.p99Ms) slow++;
    const allowed = stepAllowance(planned, o, failed);
    if (failed > allowed.failures)
      return `${failed} failures, more than the ${allowed.failures} the objective allows in ${planned} arrivals`;
    if (slow > allowed.slow)
      return `${slow} successes over ${o.p99Ms} ms, more than the ${allowed.slow} a p99 within it allows in ${planned} arrivals`;
    return undefined;
  };
}

/** The knee a set of steps shows: the highest rate held below the lowest missed. */
interface Knee {
  /** Highest rate held below the lowest missed; null when every step missed. */
  held: number | null;
  /** Lowest rate missed; null when every step held. */
  missed: number | null;
}

export function kneeOf(steps: ReadonlyArray<{ rate: number; held: boolean }>): Knee {
  const missed = steps.filter((s) => !s.held).map((s) => s.rate);
  const lowestMissed = missed.length ? Math.min(...missed) : null;
  const held = steps.filter((s) => s.held && (lowestMissed === null || s.rate < lowestMissed)).map((s) => s.rate);
  return { held: held.length ? Math.max(...held) : null, missed: lowestMissed };
}

export interface SearchBounds {
  start: number;
  stepFactor: number;
  resolution: number;
  ceiling: number;
  floor: number;
}

/** The next rate to try after these steps, or null when the knee is found (or lies past the ceiling or below the floor). */
export function nextRate(steps: ReadonlyArray<{ rate: number; held: boolean }>, b: SearchBounds): number | null {
  if (steps.length === 0) return b.start;
  const tried = new Set(steps.map((s) => s.rate));
  const { held, missed } = kneeOf(steps);
  if (missed === null) {
    const up = Math.min(b.ceiling, Math.round(held! * b.stepFactor));
    return tried.has(up) ? null : up;
  }
  if (held === null) {
    const down = Math.max(b.floor, Math.round(missed / b.stepFactor));
    return tried.has(down) ? null : down;
  }
  if (missed / held <= b.resolution) return null;
  const mid = Math.round(Math.sqrt(held * missed));
  return mid <= held || mid >= missed || tried.has(mid) ? null : mid;
}

/** The most steps a search can take from `start` (for a plan's estimate): up to the ceiling, then the bisections. */
export function maxSteps(b: SearchBounds): number {
  const up = Math.ceil(Math.log(b.ceiling / b.start) / Math.log(b.stepFactor)) + 1;
  const bisect = Math.ceil(Math.log2(Math.log(b.stepFactor) / Math.log(b.resolution)));
  return up + bisect;
}

export const searchBounds = (op: CapacityOp): SearchBounds => ({
  start: CAPACITY.startRate[op],
  stepFactor: CAPACITY.stepFactor,
  resolution: CAPACITY.resolution,
  ceiling: CAPACITY.ceiling,
  floor: CAPACITY.floor,
});
