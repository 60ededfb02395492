/**
 * Open-model load, as wrk2 does it: requests are sent at a constant arrival
 * rate whatever the replies do, and each one's latency is measured from the
 * time it was meant to be sent. A saturated system then shows as growing
 * latency; a closed loop (a fixed number of workers, the next request after
 * the last reply) would send less and hide it (coordinated omission).
 */
export interface Clock {
  /** Monotonic ms. */
  now(): number;
  sleepUntil(t: number): Promise<void>;
}

export const hrClock: Clock = {
  now: () => Number(process.hrtime.bigint()) / 1e6,
  // Node's timers run on a millisecond clock and may fire a little before t by
  // hrtime; the last part of the wait yields until hrtime has passed t.
  async sleepUntil(t) {
    for (;;) {
      const ms = t - this.now();
      if (ms <= 0) return;
      await new Promise((r) => (ms > 2 ? setTimeout(r, Math.floor(ms) - 1) : setImmediate(r)));
    }
  },
};

/** When request i is meant to be sent: t0 + i / rate. */
export function intendedSendTime(t0: number, ratePerSecond: number, i: number): number {
  return t0 + (i * 1000) / ratePerSecond;
}

export interface OpenResult<R> {
  i: number;
  /** Intended send time, sent time and completion, on the clock. */
  intendedAt: number;
  sentAt: number;
  doneAt: number;
  /** doneAt - intendedAt: the figure that counts. */
  latencyMs: number;
  result: R;
}

/**
 * Sends n requests at `ratePerSecond`. At most `maxInFlight` are outstanding;
 * when that many are, the next is sent late and the lateness is part of its
 * latency. `onDone` runs as each completes (to write its sample).
 */
export async function openLoop<R>(o: {
  n: number;
  ratePerSecond: number;
  maxInFlight: number;
  clock: Clock;
  call: (i: number) => Promise<R>;
  onDone: (r: OpenResult<R>) => void;
  /** Checked before each send: true ends the loop (the runtime is gone); the calls in flight are still awaited. */
  stopped?: () => boolean;
}): Promise<{ wallMs: number; lateSends: number }> {
  if (!(o.ratePerSecond > 0) || o.n < 0 || o.maxInFlight < 1)
    throw new Error("openLoop needs a positive rate, n >= 0 and maxInFlight >= 1");
  const t0 = o.clock.now();
  const inFlight = new Set<Promise<void>>();
  let lateSends = 0;
  for (let i = 0; i < o.n; i++) {
    const intendedAt = intendedSendTime(t0, o.ratePerSecond, i);
    await o.clock.sleepUntil(intendedAt);
    while (inFlight.size >= o.maxInFlight) await Promise.race(inFlight);
    if (o.stopped?.()) break;
    const sentAt = o.clock.now();
    if (sentAt - intendedAt > 1) lateSends++;
    const p: Promise<void> = o.call(i).then((result) => {
      const doneAt = o.clock.now();
      inFlight.delete(p);
      o.onDone({ i, intendedAt, sentAt, doneAt, latencyMs: doneAt - intendedAt, result });
    });
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return { wallMs: o.clock.now() - t0, lateSends };
}
