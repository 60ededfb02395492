import { describe, expect, it } from "vitest";
import { idleShare, quietMachine, readCpuTicks } from "./quietMachine";

describe("bringing the machine to rest before a side", () => {
  it("reads /proc/stat's counters and takes the idle share (idle + iowait) between two readings", () => {
    const a = readCpuTicks("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\n")!;
    const b = readCpuTicks("cpu  110 0 60 970 60 0 0 0 0 0\n")!;
    expect(a).toEqual([100, 0, 50, 800, 50, 0, 0, 0, 0, 0]);
    expect(idleShare(a, b)).toBeCloseTo(180 / 200, 12);
    expect(idleShare(a, a)).toBeNull();
    expect(readCpuTicks("intr 1 2\n")).toBeNull();
    // This machine's own counters read.
    expect(readCpuTicks()!.length).toBeGreaterThanOrEqual(4);
  });

  it("syncs first, then waits window by window until one is idle enough, or gives up at the bound and says so", async () => {
    const order: string[] = [];
    // Busy, busy, then idle: 30%, 60%, 95% idle per window of 100 ticks.
    const readings = [
      [0, 0, 0, 0, 0],
      [70, 0, 0, 30, 0],
      [110, 0, 0, 90, 0],
      [115, 0, 0, 185, 0],
    ];
    let i = 0;
    const read = () => readings[i++];
    const out = await quietMachine({
      read,
      sleep: async () => void order.push("sleep"),
      sync: () => void order.push("sync"),
      windowMs: 500,
      maxWaitMs: 5_000,
    });
    expect(order).toEqual(["sync", "sleep", "sleep", "sleep"]);
    expect(out).toMatchObject({ waitedMs: 1500, quiet: true });
    expect(out.idleShare).toBeCloseTo(0.95, 12);
    const busy = await quietMachine({
      read: (() => {
        let t = 0;
        return () => [(t += 100), 0, 0, 0, 0];
      })(),
      sleep: async () => {},
      sync: () => {},
      windowMs: 500,
      maxWaitMs: 2_000,
    });
    expect(busy).toMatchObject({ waitedMs: 2000, idleShare: 0, quiet: false });
    expect(await quietMachine({ read: () => null, sleep: async () => {}, sync: () => {} })).toMatchObject({
      waitedMs: 0,
      idleShare: null,
      quiet: false,
    });
  });
});
