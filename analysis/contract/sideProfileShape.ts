/**
 * The shape of a side's profile (what a side says about itself), apart from
 * the book that reads profiles (sideProfile.ts), so that the profiles of runs
 * made before profiles were recorded (legacySides.ts) can be typed by it.
 */
import type { PriceKey } from "./prices";

/**
 * A way to price an operation: usage (requests, wall time at a billed memory,
 * rows read and written, each at its price), cpu (the side's own measured CPU
 * at a price per vCPU-second, over a stated utilisation), or units (a
 * service's own units, which a run does not count: not priced, and why).
 */
export type Pricing =
  | { name: string; kind: "usage"; requests: readonly PriceKey[]; durationGbS: PriceKey; rowsRead: PriceKey; rowsWritten: PriceKey }
  | { name: string; kind: "cpu"; vcpuSecond: PriceKey }
  | { name: string; kind: "units"; prices: readonly PriceKey[]; missing: string };

/**
 * How a packet capture of the loopback finds a call's hops on this side
 * (analysis/stats/hops.ts): the request the driver sends, the process that
 * answers it, the inner process it forwards the call to (where it has one),
 * and the clock the innermost process times its own part with.
 */
export interface HopSpec {
  /** How every timed request begins on the wire ("POST /gateway/"): a packet so beginning, to the driver's port, starts a call. */
  request: string;
  /** The process the driver's connection reaches. */
  front: string;
  /** Where the front forwards each call to another process over a connection of its own. */
  inner?: {
    process: string;
    /** A response header whose value the front's forwarded message carries (a request id of the front's). */
    forwardHeader: string;
    /** A response header whose value the first message to the inner process about this actor carries (its id: the start on a create or wake). */
    actorHeader: string;
    /** How the inner process's reply is framed: WebSocket frames a client sends (masked), which carry the response body. */
    replyFraming: "websocket";
  };
  /** The innermost process's own interval around the operation: the sample field it is in, its name, and a word or two for it. */
  own: { field: "actorMs" | "ms"; name: string; short?: string };
}

export interface SideProfile {
  /** The side's id: file names (raw/<id>.<metric>.jsonl), flags, config. Lower-case letters only. */
  id: string;
  name: string;
  short: string;
  /** The clock its `ms` is read from, in words. */
  clock: string;
  clockShort: string;
  /** Column heads: the driver's round trip, and the side's own clock (the same where they are one). */
  clientColumn: string;
  ownColumn: string;
  /** How the driver's call reaches the side, for the same-clock table's text. */
  route: string;
  /** The process whose log is read for machine limits. */
  runtimeProcess: string;
  /** How the run puts the side's actors to sleep before a group. */
  sleep: string;
  /** One sentence on what the side is, printed where a control side is introduced. */
  about: string;
  /** A control side's own words on how it does each operation, heading the table of the runtimes' cost over it. */
  controlAbout?: string;
  /** Where its own clock is not the driver's: what its own-clock column shows, in a sentence's words. */
  ownClockNote?: string;
  /** The intervals its actors report that the report tables on their own, named as the side times them. */
  intervals?: { actorMs?: string; sqlMs?: string };
  /** The platform that runs it in the cloud, where it reports its own timings and places its calls: its name, its actor (one, many) and the front the driver calls. */
  platform?: { name: string; actor: string; actors: string; front: string };
  /** How the report prices an operation of this side (analysis/report/model.ts, costCell), each way named; the price keys are the price table's (analysis/contract/prices.ts). */
  pricing?: readonly Pricing[];
  /** A stage that reaches no actor (the DO's client-to-Worker /noop): how the same-clock table names it. */
  baseline?: { what: string; missing: string; column: string };
  colour: string;
  /** runtime: an actor runtime, always a column. control: the same operations without an actor system (the floor), read beside the runtimes. */
  role: "runtime" | "control";
  /** True where nothing puts an actor to sleep but idle time: its wake groups wait out an eviction, measuring nothing. */
  sleepsByIdleOnly: boolean;
  /** Whether `ms` is the driver's own round trip; where not, the driver's is `clientMs`. */
  msIsClientClock: boolean;
  /** The step of its `ms` clock, ms. */
  msTick: number;
  /** How a closed-loop stage becomes a rate: measured completions / wall time, or Little's law on the mean `ms` with the measured rate beside it. */
  throughputMethod: "measured" | "littles-law";
  /** Arrival rates of its open-model stages, per second: below its closed-loop capacity on a small machine. */
  openRates: readonly number[];
  /** The catalog's optional metrics it measures. */
  optionalMetrics: readonly string[];
  /** Where a packet capture finds its calls' hops; absent where none was declared (runs before 2026-12-07). */
  hops?: HopSpec;
}
