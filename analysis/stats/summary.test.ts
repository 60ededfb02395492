import { describe, expect, it } from "vitest";
import { fixture } from "../../test/fixtures";
import { summarizeRun } from "./summary";
import { verifyRunDir } from "../contract/verify";

describe("open-model and other stages in a summary", () => {
  it("orders the design's metrics first, then others by number, and gives open-model rows their target rate", () => {
    const dir = fixture({
      "rivet.open.r20": { samples: [{ ms: 900, cold: true }], wallMs: 1000 },
      "rivet.open.r5": { samples: [{ ms: 80, cold: true }, { ms: 90, cold: true }], wallMs: 1000 },
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
