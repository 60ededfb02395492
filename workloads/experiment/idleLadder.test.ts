import { describe, expect, it } from "vitest";
import { LADDER_MARGIN_MS, runLadder } from "./idleLadder";
import { idleLabel } from "../../analysis/contract/idleLadder";

/** A ladder on a fake clock: preparing and waking take fixed times, waits jump the clock. */
function fakeLadder(prepMs: number, wakeMs: number) {
  let now = 0;
  const readyAt = new Map<number, number>();
  const wokeAt = new Map<number, number>();
  return {
    readyAt,
    wokeAt,
    get now() {
      return now;
    },
    steps: {
      now: () => now,
      prepare: async (ms: number) => {
        now += prepMs;
        readyAt.set(ms, now);
      },
      waitUntil: async (at: number) => {
        now = Math.max(now, at);
      },
      wake: async (ms: number) => {
        wokeAt.set(ms, now);
        now += wakeMs;
      },
    },
  };
}

describe("the idle ladder's order", () => {
  it("nests the shorter steps in the longest one's wait: the ladder costs about its longest step, and every step waits at least its length", async () => {
    const ladder = [10_000, 30_000, 60_000, 120_000, 300_000];
    const f = fakeLadder(3_000, 5_000);
    const order = await runLadder(ladder, f.steps, idleLabel);
    for (const ms of ladder) {
      const idle = f.wokeAt.get(ms)! - f.readyAt.get(ms)!;
      expect(idle, idleLabel(ms)).toBeGreaterThanOrEqual(ms);
    }
    // The longest step's own time, its preparation and its wake; the sum of the steps would be 520 s.
    expect(f.now).toBe(3_000 + 300_000 + 5_000);
    expect(order[0]).toBe("prepare 5m");
    expect(order.at(-1)).toBe("wake 5m");
    expect(order.filter((o) => o.startsWith("wake"))).toHaveLength(ladder.length);
  });

  it("never starts a step inside a wait it cannot finish in: a slow runtime's steps run after instead, and none is woken late", async () => {
    const f = fakeLadder(20_000, 30_000);
    const order = await runLadder([10_000, 30_000], f.steps, idleLabel);
    // 20 s to prepare and 30 s to wake (guessed before any wake is timed) do not fit in 30 s: one after the other.
    expect(order).toEqual(["prepare 30s", "wake 30s", "prepare 10s", "wake 10s"]);
    for (const ms of [10_000, 30_000]) expect(f.wokeAt.get(ms)! - f.readyAt.get(ms)!).toBe(ms);
  });

  it("a nested step leaves the margin before the outer wake, its wake guessed from the preparation until one is timed", async () => {
    const f = fakeLadder(1_000, 1_000);
    const order = await runLadder([10_000, 30_000], f.steps, idleLabel);
    // The 10 s step (1 s to prepare, 8 s guessed to wake, the margin) fits inside the 30 s wait: the outer wake is on time.
    expect(order).toEqual(["prepare 30s", "prepare 10s", "wake 10s", "wake 30s"]);
    expect(f.wokeAt.get(30_000)! - f.readyAt.get(30_000)!).toBe(30_000);
    expect(f.wokeAt.get(10_000)! + 1_000).toBeLessThanOrEqual(f.wokeAt.get(30_000)! - LADDER_MARGIN_MS);
  });
});
