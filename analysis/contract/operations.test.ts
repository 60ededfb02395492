import { describe, expect, it } from "vitest";
import { WORKLOAD } from "./catalog";
import { alarmDelay, alarmState, MAX_VALUE_BYTES, ROW_VALUE, rowValue } from "./operations";

describe("a write's value", () => {
  it("is the 128 B row unless a size is named, and then exactly that many bytes", () => {
    expect(rowValue()).toBe(ROW_VALUE);
    expect(ROW_VALUE).toHaveLength(WORKLOAD.rowBytes);
    expect(rowValue(1_048_576)).toHaveLength(1_048_576);
    expect(rowValue(1)).toBe("x");
  });

  it("refuses a size that is not a whole number from 1 to 8 MiB in one line", () => {
    for (const bad of [0, -1, 1.5, MAX_VALUE_BYTES + 1, "1024", Number.NaN])
      expect(() => rowValue(bad)).toThrow(/^a write's value size must be a whole number of bytes from 1 to 8388608, got /);
  });
});

describe("an alarm's delay and record", () => {
  it("takes whole ms from 1 to an hour, and refuses anything else in one line", () => {
    expect(alarmDelay(100)).toBe(100);
    for (const bad of [0, 3_600_001, 0.5, null])
      expect(() => alarmDelay(bad)).toThrow(/^an alarm's delay must be a whole number of ms from 1 to 3600000/);
  });

  it("reads SQLite's row as a record: integers to numbers, the cold flag 1/0 to true/false, nulls kept", () => {
    expect(alarmState({ due: 10, fired: 12, cold: 1 })).toEqual({ due: 10, fired: 12, cold: true });
    expect(alarmState({ due: 10, fired: null, cold: null })).toEqual({ due: 10, fired: null, cold: null });
    expect(alarmState(undefined)).toBeNull();
  });
});
