import { describe, expect, it } from "vitest";
import { CpuLock, runOverlapped } from "./cpuLock";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Interval = { who: string; start: number; end: number };

/** Two measured intervals share the CPU when they overlap in time. */
const overlapping = (xs: Interval[]) =>
  xs.flatMap((a, i) =>
    xs
      .slice(i + 1)
      .filter((b) => a.start < b.end && b.start < a.end)
      .map((b) => `${a.who} & ${b.who}`),
  );

describe("CpuLock", () => {
  it("runs holders one at a time, first come first served", async () => {
    const lock = new CpuLock();
    const order: string[] = [];
    await Promise.all(
      ["a", "b", "c"].map((x) =>
        lock.exclusive(async () => {
          order.push(`${x}+`);
          await sleep(5);
          order.push(`${x}-`);
        }),
      ),
    );
    expect(order).toEqual(["a+", "a-", "b+", "b-", "c+", "c-"]);
  });
});

describe("runOverlapped", () => {
  it("lets other groups measure during a wake's idle wait, never two measured stages at once, bursts last and alone", async () => {
    const lock = new CpuLock();
    const measured: Interval[] = [];
    const t0 = performance.now();
    const now = () => performance.now() - t0;
    const stage = async (who: string, ms: number) => {
      const start = now();
      await sleep(ms);
      measured.push({ who, start, end: now() });
    };
    let idleStart = 0;
    let idleEnd = 0;
    const runners: Record<string, () => Promise<void>> = {
      create: () => stage("create", 20),
      wake: async () => {
        await stage("wake prepare", 10);
        idleStart = now();
        await lock.idle(80);
        idleEnd = now();
        await stage("wake", 20);
      },
      warm: () => stage("warm", 30),
      sqlite: () => stage("sqlite", 30),
      seqwrite: () => stage("seqwrite", 40),
      burst: () => stage("burst", 20),
    };
    await runOverlapped(Object.keys(runners), (g) => runners[g](), lock, new Set(["wake"]), new Set(["burst"]));

    expect(overlapping(measured)).toEqual([]);
    const at = (who: string) => measured.find((m) => m.who === who)!;
    // Warm and sqlite ran inside the wake's idle wait.
    expect(at("warm").start).toBeGreaterThanOrEqual(idleStart);
    expect(at("warm").end).toBeLessThanOrEqual(idleEnd + 1);
    // The wake waited at least its idle time, and measured as soon as the running group was done.
    expect(at("wake").start - idleStart).toBeGreaterThanOrEqual(79);
    // Bursts still come after everything, the overlapped wake included.
    expect(at("burst").start).toBeGreaterThanOrEqual(at("wake").end);
    expect(at("burst").start).toBeGreaterThanOrEqual(at("seqwrite").end);
    // The suite took less than the same groups one after the other.
    const serial = 20 + 10 + 80 + 20 + 30 + 30 + 40 + 20;
    expect(now()).toBeLessThan(serial);
  });

  it("with no overlapping groups, runs them strictly in order", async () => {
    const lock = new CpuLock();
    const order: string[] = [];
    await runOverlapped(
      ["a", "b", "c"],
      async (g) => {
        order.push(g);
        await sleep(3);
      },
      lock,
      new Set(),
      new Set(),
    );
    expect(order).toEqual(["a", "b", "c"]);
  });
});
