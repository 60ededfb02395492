import { describe, expect, it } from "vitest";
import { alarmOutcome, readAlarmState } from "./alarms";
import type { SideOutcome } from "../adapter";

const answered = (value: unknown): SideOutcome => ({
  ok: true,
  ms: 4.2,
  actorId: "a",
  reply: { cold: false, actorMs: 0.1, sqlMs: null, value },
});

describe("an alarm's sample", () => {
  it("is the record's lateness on the actor's clock, with the handler's instance as the cold flag and the read's round trip as ms", () => {
    expect(alarmOutcome(answered({ due: 1_000, fired: 1_012, cold: true }), 5000)).toEqual({
      ok: true,
      ms: 4.2,
      lateMs: 12,
      reply: { cold: true, actorMs: null, sqlMs: null },
    });
    expect(alarmOutcome(answered({ due: 1_000, fired: 1_003, cold: false }), 5000)).toMatchObject({ lateMs: 3, reply: { cold: false } });
  });

  it("fails, never retried, when the alarm has not fired, nothing is recorded, or the answer is not a record", () => {
    expect(alarmOutcome(answered({ due: 1_000, fired: null, cold: null }), 5000)).toEqual({
      ok: false,
      ms: 4.2,
      error: "the alarm had not fired 5000 ms after it was due",
    });
    expect(alarmOutcome(answered(null), 5000)).toMatchObject({ ok: false, error: "the actor has no alarm recorded" });
    expect(alarmOutcome(answered({ due: "soon" }), 5000)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^alarmResult answered/),
    });
    const failed: SideOutcome = { ok: false, ms: 30_000, error: "timeout" };
    expect(alarmOutcome(failed, 5000)).toBe(failed);
  });

  it("reads a cold flag that is neither true nor false as unknown, so it proves nothing", () => {
    expect(readAlarmState({ due: 1, fired: 2, cold: "yes" })).toEqual({ due: 1, fired: 2, cold: null });
  });
});
