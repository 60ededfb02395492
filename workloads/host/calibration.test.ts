import { describe, expect, it } from "vitest";
import { calibrate } from "./calibration";
import { readCalibration } from "../../analysis/stats/calibration";

describe("the machine's calibration", () => {
  it("takes each measure's rounds on this machine, in the shape a manifest is read back in", async () => {
    const c = await calibrate(3);
    expect(readCalibration(JSON.parse(JSON.stringify(c)))).toEqual(c);
    for (const k of ["cpu", "fsync", "loopback"] as const) expect(c.rounds[k]).toHaveLength(3);
    // A loop of twenty million steps takes more than a millisecond on any machine; a loopback round trip far less than a second.
    expect(Math.min(...c.rounds.cpu)).toBeGreaterThan(1);
    expect(Math.max(...c.rounds.loopback)).toBeLessThan(1000);
    expect(Math.min(...c.rounds.fsync)).toBeGreaterThan(0);
  });
});
