import { describe, expect, it } from "vitest";
import { PRESETS, PRESET_SCALE_LEVELS, GROUPS } from "../../analysis/catalog";
import { liveDoLimit, liveDosNeeded, openFileProblem, openFilesFor } from "./openFiles";

describe("local workerd's open files", () => {
  it("allows 3 files per live DO past the reserve, and openFilesFor inverts it", () => {
    expect(liveDoLimit(20_000)).toBe(6325);
    expect(liveDoLimit(1024)).toBe(0);
    expect(liveDoLimit(10)).toBe(0);
    expect(liveDoLimit(openFilesFor(5500))).toBe(5500);
  });

  it("counts the largest group of the full preset: the burst group's bursts and open-model creates", () => {
    const need = liveDosNeeded(PRESETS.full.cloudflare, GROUPS, PRESET_SCALE_LEVELS.full);
    // 4 bursts of 500, and 50 + 100 + 200 creates a second for 10 s each
    expect(need).toEqual({ group: "burst", n: 2000 + 3500 });
    // the create group: create.ping, create.unique, create.read, create.write
    expect(liveDosNeeded(PRESETS.full.cloudflare, ["create"], [])).toEqual({ group: "create", n: 800 });
    // the scaling group: one level's wake set, creates and burst, not the fillers
    expect(liveDosNeeded(PRESETS.full.cloudflare, ["scale"], [0, 1000, 10000])).toEqual({ group: "scale", n: 200 + 200 + 256 });
    expect(liveDosNeeded(PRESETS.full.cloudflare, ["warm"], [])).toBeNull();
  });

  it("lets the full preset run under this machine's 20,000 and refuses it under 4,096 in one line naming the value to raise it to", () => {
    expect(openFileProblem(PRESETS.full.cloudflare, GROUPS, PRESET_SCALE_LEVELS.full, 20_000)).toBeNull();
    const problem = openFileProblem(PRESETS.full.cloudflare, GROUPS, PRESET_SCALE_LEVELS.full, 4096);
    expect(problem).toContain("open-file limit 4096 lets 1024 SQLite DOs be live at once");
    expect(problem).toContain("the burst group brings up to 5500");
    expect(problem).toContain(`--workerd-open-files ${openFilesFor(5500)}`);
    expect(problem).not.toContain("\n");
  });
});
