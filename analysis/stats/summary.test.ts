import { describe, expect, it } from "vitest";
import { LEGACY_BOOK } from "../contract/sideProfile";
import { fixture } from "../../test/fixtures";
import { summarizeRun } from "./summary";
import { stageStatistics, statsOf, summarize, type RawSample } from "./summary";
import { verifyRunDir } from "../contract/verify";

describe("open-model and other stages in a summary", () => {
  it("orders the design's metrics first, then others by number, and gives open-model rows their target rate", () => {
    const dir = fixture({
      "rivet.open.r20": { samples: [{ ms: 900, cold: true }], wallMs: 1000 },
      "rivet.open.r5": {
        samples: [
          { ms: 80, cold: true },
          { ms: 90, cold: true },
        ],
        wallMs: 1000,
      },
      "rivet.create.ping": { samples: [{ ms: 50, cold: true }] },
    });
    const m = verifyRunDir(dir);
    m.stages["rivet.open.r5"].notes = { mode: "open", ratePerSecond: 5 };
    m.stages["rivet.open.r20"].notes = { mode: "open", ratePerSecond: 20 };
    const s = summarizeRun(dir, m);
    expect(s.rows.map((r) => r.metric)).toEqual(["create.ping", "open.r5", "open.r20"]);
    expect(s.throughput).toEqual([
      expect.objectContaining({ metric: "open.r5", method: "open-model", targetPerSecond: 5, perSecond: 2 }),
      expect.objectContaining({ metric: "open.r20", method: "open-model", targetPerSecond: 20, perSecond: 1 }),
    ]);
  });
});

describe("a stage's statistics, computed once and read by every view", () => {
  const raw = (ms: number, o: Partial<RawSample> = {}): RawSample => ({ seq: 0, at: 0, ok: true, ms, cold: false, ...o }) as RawSample;
  it("is the same object each time a view asks for the same stage's samples", () => {
    const xs = [raw(3), raw(1), raw(2)];
    const samples = new Map([["rivet.warm.ping", xs]]);
    const a = statsOf(samples, "rivet", "warm.ping")!;
    expect(statsOf(samples, "rivet", "warm.ping")).toBe(a);
    expect(stageStatistics(LEGACY_BOOK.get("rivet"), "warm.ping", xs)).toBe(a);
    expect(a.sortedMs).toEqual([1, 2, 3]);
    // The summary row reads the same statistics.
    expect(summarize(LEGACY_BOOK.get("rivet"), "warm.ping", xs).p50).toBe(a.sortedMs[1]);
    expect(statsOf(samples, "rivet", "wake.ping")).toBeNull();
  });
  it("counts a cold metric's proven-cold successes only, on each clock: the DO's client clock is clientMs", () => {
    const xs = [
      raw(2, { cold: true, clientMs: 5 }),
      raw(1, { cold: false, clientMs: 4 }),
      raw(9, { ok: false, cold: null, clientMs: 30 } as Partial<RawSample>),
      raw(3, { cold: true, clientMs: 7 }),
    ];
    const s = stageStatistics(LEGACY_BOOK.get("cloudflare"), "create.ping", xs);
    expect(s.counted.length).toBe(2);
    expect(s.sortedMs).toEqual([2, 3]);
    expect(s.client).toEqual({ n: 2, p50: 5, p90: 7, p99: 7 });
  });
  it("gives an actor-reported interval's percentiles where samples carry it, and null where none does", () => {
    const xs = [raw(5, { sqlMs: 0.5 }), raw(6, { sqlMs: 0.7 }), raw(7)];
    const s = stageStatistics(LEGACY_BOOK.get("rivet"), "sqlite.read", xs);
    expect(s.interval("sqlMs")).toEqual({ n: 2, p50: 0.5, p90: 0.7, p99: 0.7 });
    expect(s.interval("actorMs")).toBeNull();
  });
});
