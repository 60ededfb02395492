import { describe, expect, it } from "vitest";
import { cloudflareSide } from "./side";

/** The full preset as the Durable Object side counts it. */
const FULL = cloudflareSide.presetCounts!.full!;
import { PRESET_SCALE_LEVELS, GROUPS } from "../../../analysis/contract/catalog";
import { LIVE_DO_CEILING, liveDoLimit, liveDosNeeded, openFileProblem, openFilesFor } from "./openFiles";

describe("local workerd's live DOs", () => {
  it("allows 3 files per live DO past the reserve, never more than the ceiling; openFilesFor inverts it below the ceiling", () => {
    expect(LIVE_DO_CEILING).toBe(3000);
    expect(liveDoLimit(8000)).toBe(2325);
    expect(liveDoLimit(20_000)).toBe(3000);
    expect(liveDoLimit(1024)).toBe(0);
    expect(liveDoLimit(10)).toBe(0);
    expect(liveDoLimit(openFilesFor(2500))).toBe(2500);
  });

  it("finds the measured stage that brings the most DOs to life: the full preset's 200-a-second open-model stage", () => {
    expect(liveDosNeeded(FULL, GROUPS, PRESET_SCALE_LEVELS.full)).toEqual({ metric: "open.r200", n: 2000 });
    expect(liveDosNeeded(FULL, ["create"], [])).toEqual({ metric: "create.ping", n: 200 });
    // scale stages only at the run's levels
    expect(liveDosNeeded(FULL, ["scale"], [0, 1000, 10000])).toEqual({ metric: "scale.burst.e0", n: 256 });
    expect(liveDosNeeded(FULL, ["warm"], [])).toBeNull();
  });

  it("lets the full preset run under this machine's 20,000 and refuses it under 4,096 in one line naming the value to raise it to", () => {
    expect(openFileProblem(FULL, GROUPS, PRESET_SCALE_LEVELS.full, 20_000)).toBeNull();
    const problem = openFileProblem(FULL, GROUPS, PRESET_SCALE_LEVELS.full, 4096);
    expect(problem).toBe(
      "local workerd's open-file limit 4096 lets 1024 SQLite DOs be live at once (3 files each past 1024 reserved, at most 3000), but open.r200 brings 2000 to life: " +
        `raise the hard limit to at least ${openFilesFor(2000)} (ulimit -Hn, or LimitNOFILE) and pass --workerd-open-files ${openFilesFor(2000)}, or use fewer samples`,
    );
  });

  it("says no limit helps when one stage needs more live DOs than local workerd keeps", () => {
    const counts = { ...FULL, openSeconds: 20 };
    expect(openFileProblem(counts, ["burst"], [], 1_000_000)).toMatch(
      /but open\.r200 brings 4000 to life: more than local workerd keeps live at any limit; use fewer samples \(--samples\)$/,
    );
  });
});
