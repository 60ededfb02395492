import { describe, expect, it } from "vitest";
import { calibrationDifferences, readCalibration, type Calibration } from "./calibration";

const cal = (cpu: number[], fsync: number[], loopback: number[]): Calibration => ({ rounds: { cpu, fsync, loopback } });

describe("telling two runs' machines apart by their calibrations", () => {
  it("says nothing where the rounds overlap or the medians are within 10%", () => {
    expect(calibrationDifferences(cal([40, 42, 41], [2, 3, 2.5], [0.05, 0.06]), cal([41, 43, 44], [2.4, 2.6], [0.055, 0.07]))).toEqual([]);
    // Apart, but by 5%: the same machine on another minute.
    expect(calibrationDifferences(cal([40, 40.1], [2, 2], [0.05, 0.05]), cal([42, 42.1], [2, 2], [0.05, 0.05]))).toEqual([]);
  });

  it("names a measure whose rounds do not overlap and whose medians are more than 10% apart", () => {
    const d = calibrationDifferences(cal([40, 41, 42], [2, 2.1], [0.05, 0.06]), cal([55, 56, 57], [2, 2.1], [0.05, 0.06]));
    expect(d).toHaveLength(1);
    expect(d[0]).toMatch(
      /^cpu, a fixed loop .*: 41.00 ms in A, 56.00 ms in B \(B\/A 1.37; medians of 3 and 3 rounds that do not overlap\)$/,
    );
  });

  it("reads only the shape this code writes: a manifest from elsewhere may hold anything", () => {
    expect(readCalibration(cal([1], [2], [3]))).toEqual(cal([1], [2], [3]));
    expect(readCalibration(undefined)).toBeNull();
    expect(readCalibration({ rounds: { cpu: [1], fsync: [2] } })).toBeNull();
    expect(readCalibration({ rounds: { cpu: [1], fsync: ["2"], loopback: [3] } })).toBeNull();
    expect(readCalibration({ rounds: { cpu: [-1], fsync: [2], loopback: [3] } })).toBeNull();
    expect(readCalibration({ rounds: { cpu: new Array(101).fill(1), fsync: [2], loopback: [3] } })).toBeNull();
  });
});
