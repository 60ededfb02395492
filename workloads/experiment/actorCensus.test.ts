import { describe, expect, it } from "vitest";
import { ActorCensus } from "./actorCensus";

describe("ActorCensus", () => {
  it("an actor is awake from its last call until the runtime confirms it asleep", () => {
    const c = new ActorCensus(null);
    c.called("a", 100);
    c.called("b", 200);
    expect(c.count(300)).toEqual({ existing: 2, awake: 2 });
    c.confirmedAsleep(["a"], 250);
    expect(c.awake(300)).toEqual({ ids: ["b"], lastCall: 200 });
    // A call after the confirmation wakes it again.
    c.called("a", 400);
    expect(c.count(500)).toEqual({ existing: 2, awake: 2 });
    // An id the run never called is not counted by a sleep confirmation.
    c.confirmedAsleep(["zzz"], 600);
    expect(c.count(700)).toEqual({ existing: 2, awake: 2 });
    // Without confirmation it stays awake however long it idles.
    expect(c.count(1e9).awake).toBe(2);
  });
  it("where the runtime evicts by idle, an actor idle past the eviction time is asleep", () => {
    const c = new ActorCensus(10_000);
    c.called("a", 0);
    c.called("b", 5_000);
    expect(c.awake(9_999)).toEqual({ ids: ["a", "b"], lastCall: 5_000 });
    expect(c.awake(10_000)).toEqual({ ids: ["b"], lastCall: 5_000 });
    expect(c.count(15_000)).toEqual({ existing: 2, awake: 0 });
  });
  it("an actor a sleep did not confirm stays counted awake but is not settled again until it is called again", () => {
    const c = new ActorCensus(null);
    c.called("a", 1);
    c.called("b", 2);
    c.notConfirmed(["a"]);
    expect(c.toSettle(10)).toEqual(["b"]);
    expect(c.count(10)).toEqual({ existing: 2, awake: 2 });
    c.called("a", 20);
    expect(c.toSettle(30)).toEqual(["a", "b"]);
  });
  it("an actor left idle for a wake is never released, only waited out, until it is called again", () => {
    const c = new ActorCensus(10_000);
    c.called("a", 0);
    c.called("b", 1_000);
    c.leftIdle(["b", "never-called"]);
    expect(c.toRelease(2_000)).toEqual(["a"]);
    // Still awake in the count until its idle passes the eviction time.
    expect(c.count(2_000)).toEqual({ existing: 2, awake: 2 });
    c.confirmedAsleep(["a"], 2_000);
    expect(c.awake(2_000)).toEqual({ ids: ["b"], lastCall: 1_000 });
    // Its wake calls it: from then on it may be released like any other.
    c.called("b", 12_000);
    expect(c.toRelease(12_001)).toEqual(["b"]);
  });
});
