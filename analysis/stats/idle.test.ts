import { describe, expect, it } from "vitest";
import { idleSteps, missedColdProofs } from "./idle";
import type { StageRecord } from "../contract/runDirContract";
import type { RawSample } from "./summary";

const stage = (side: string, metric: string, reps: Array<Record<string, unknown>>): StageRecord => ({
  side,
  metric,
  file: `raw/${side}.${metric}.jsonl`,
  attempts: 0,
  errors: 0,
  wallMs: 0,
  concurrency: 1,
  startedAt: "2026-12-05T00:00:00.000Z",
  repetitions: reps.map((notes, rep) => ({ rep, attempts: 0, errors: 0, wallMs: 0, startedAt: "2026-12-05T00:00:00.000Z", notes })),
});

describe("the idle ladder's steps, from the raw samples and each stage's record", () => {
  it("counts every answer, the cold ones apart, and charges a required step for each wake that was not cold", () => {
    const required = { idle: { ms: 60_000, idleSleepMs: 30_000, coldRequired: true } };
    const below = { idle: { ms: 10_000, idleSleepMs: 30_000, coldRequired: false } };
    const stages = [
      stage("b", "wake.idle.1m", [
        { ...required, idleActualMs: { min: 60_010, max: 61_000 } },
        { ...required, idleActualMs: { min: 60_005, max: 60_900 } },
      ]),
      stage("b", "wake.idle.10s", [below]),
      stage("a", "wake.idle.1m", [{ ...required, deadline: { outcome: "deadline: 2 of 4 calls done in 1.0 s" } }]),
      stage("a", "wake.ping", [{}]),
    ];
    const samples: Record<string, RawSample[]> = {
      "b.wake.idle.1m": [
        { ok: true, ms: 9, clientMs: 10, cold: true, rep: 0 },
        { ok: true, ms: 19, clientMs: 20, cold: true, rep: 0 },
        { ok: true, ms: 29, clientMs: 30, cold: false, rep: 1 },
        { ok: false, ms: 5000, cold: null, rep: 1 },
      ] as RawSample[],
      "b.wake.idle.10s": [
        { ok: true, ms: 1, cold: false },
        { ok: true, ms: 2, cold: false },
      ] as RawSample[],
      "a.wake.idle.1m": [{ ok: true, ms: 50, cold: true }] as RawSample[],
    };
    const steps = idleSteps(stages, (st) => samples[`${st.side}.${st.metric}`] ?? [], ["a", "b"]);
    expect(steps.map((s) => `${s.side} ${s.label}`)).toEqual(["a 1m", "b 10s", "b 1m"]);
    const [a, b10, b60] = steps;
    // The client's round trip where a sample has one; every answer is in n, the failure apart.
    expect(b60).toMatchObject({
      n: 3,
      errors: 1,
      cold: 2,
      coldRequired: true,
      p50: 20,
      p90: 30,
      idleSleepMs: 30_000,
      actualIdleMs: { min: 60_005, max: 61_000 },
    });
    expect(missedColdProofs(b60)).toBe(1);
    // Below the runtime's own sleep a running actor's answer is a finding, not a miss.
    expect(b10).toMatchObject({ n: 2, cold: 0, coldRequired: false });
    expect(missedColdProofs(b10)).toBe(0);
    expect(a.ended).toEqual(["deadline: 2 of 4 calls done in 1.0 s"]);
    expect(a.p50Interval.none).toBe("one repetition");
  });
});
