import { describe, expect, it } from "vitest";
import { intendedSendTime, openLoop, type Clock, type OpenResult } from "./openModel";

/** A discrete-event clock: time moves only to the next timer once everything runnable has run. */
class FakeClock implements Clock {
  t = 0;
  private timers: Array<{ at: number; resolve: () => void }> = [];
  now() {
    return this.t;
  }
  sleepUntil(at: number): Promise<void> {
    if (at <= this.t) return Promise.resolve();
    return new Promise((resolve) => this.timers.push({ at, resolve }));
  }
  async run<T>(p: Promise<T>): Promise<T> {
    let done = false;
    p.then(
      () => (done = true),
      () => (done = true),
    );
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (done) return p;
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers.shift();
      if (!next) throw new Error("nothing left to wait for, but the loop has not finished");
      this.t = next.at;
      next.resolve();
    }
  }
}

/** n requests at a rate, each served in `serviceMs` of fake time. */
async function simulate(n: number, rate: number, serviceMs: number, maxInFlight: number) {
  const clock = new FakeClock();
  const done: OpenResult<number>[] = [];
  const out = await clock.run(
    openLoop({
      n,
      ratePerSecond: rate,
      maxInFlight,
      clock,
      call: async (i) => (await clock.sleepUntil(clock.now() + serviceMs), i),
      onDone: (r) => done.push(r),
    }),
  );
  return { ...out, done: done.sort((a, b) => a.i - b.i) };
}

describe("open-model scheduler", () => {
  it("intended send times are t0 + i / rate", () => {
    expect([0, 1, 2, 3].map((i) => intendedSendTime(100, 50, i))).toEqual([100, 120, 140, 160]);
    expect(intendedSendTime(0, 3, 1)).toBeCloseTo(333.333, 3);
  });

  it("below saturation every request goes out on time and its latency is its service time", async () => {
    const r = await simulate(10, 100, 5, 8);
    expect(r.done.map((d) => d.sentAt)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(r.done.every((d) => d.latencyMs === 5 && d.sentAt === d.intendedAt)).toBe(true);
    expect(r.lateSends).toBe(0);
    expect(r.wallMs).toBe(95);
  });

  it("sends on schedule while replies are slow: requests overlap instead of waiting", async () => {
    const r = await simulate(4, 100, 35, 8);
    expect(r.done.map((d) => d.sentAt)).toEqual([0, 10, 20, 30]);
    expect(r.done.map((d) => d.latencyMs)).toEqual([35, 35, 35, 35]);
  });

  it("when saturated, latency counts from the intended send time, so the queue shows (no coordinated omission)", async () => {
    // One connection, 30 ms per request, one request meant every 10 ms.
    const r = await simulate(4, 100, 30, 1);
    expect(r.done.map((d) => d.intendedAt)).toEqual([0, 10, 20, 30]);
    expect(r.done.map((d) => d.sentAt)).toEqual([0, 30, 60, 90]);
    expect(r.done.map((d) => d.doneAt - d.sentAt)).toEqual([30, 30, 30, 30]); // what a closed loop would report
    expect(r.done.map((d) => d.latencyMs)).toEqual([30, 50, 70, 90]);
    expect(r.lateSends).toBe(3);
  });

  it("refuses a rate that is not positive", async () => {
    await expect(
      openLoop({ n: 1, ratePerSecond: 0, maxInFlight: 1, clock: new FakeClock(), call: async () => 0, onDone: () => {} }),
    ).rejects.toThrow(/positive rate/);
  });
});
