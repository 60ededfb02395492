import { describe, expect, it } from "vitest";
import { abbaOrder, anotherBlock, parseAbArgs } from "./ab";

describe("npm run ab's plan", () => {
  it("alternates the arms in blocks of A B B A, so repetition i of each arm sits beside repetition i of the other", () => {
    expect(abbaOrder(2).join(" ")).toBe("A B B A A B B A");
    const order = abbaOrder(3);
    // The k-th A and the k-th B are always within two places of each other.
    const at = (arm: string) => order.map((x, i) => (x === arm ? i : -1)).filter((i) => i >= 0);
    at("A").forEach((i, k) => expect(Math.abs(i - at("B")[k])).toBeLessThanOrEqual(2));
  });

  it("starts another block while the slowest so far still fits, or until the pairs asked for; always one", () => {
    const base = { elapsedMs: 0, slowestBlockMs: 0, budgetMs: 60_000 };
    expect(anotherBlock({ ...base, blocksDone: 0, budgetMs: 0 })).toBe(true);
    expect(anotherBlock({ ...base, blocksDone: 3, elapsedMs: 40_000, slowestBlockMs: 20_000 })).toBe(true);
    expect(anotherBlock({ ...base, blocksDone: 3, elapsedMs: 40_001, slowestBlockMs: 20_000 })).toBe(false);
    expect(anotherBlock({ ...base, blocksDone: 1, pairs: 3, elapsedMs: 1e9 })).toBe(true);
    expect(anotherBlock({ ...base, blocksDone: 2, pairs: 3 })).toBe(false);
  });

  it("gives both arms the session's flags and each its own, one repetition at a time", () => {
    const c = parseAbArgs([
      "--side",
      "floor",
      "--groups",
      "warm",
      "--a",
      "",
      "--b",
      "--plant-delay-us floor=300 --request-timeout-ms 5000",
      "--pairs",
      "4",
    ]);
    expect([c.a.sides, c.b.sides]).toEqual([["floor"], ["floor"]]);
    expect([c.a.groups, c.b.groups]).toEqual([["warm"], ["warm"]]);
    expect([c.a.plantDelayUs, c.b.plantDelayUs]).toEqual([{}, { floor: { "*": 300 } }]);
    expect([c.a.requestTimeoutMs, c.b.requestTimeoutMs]).toEqual([30_000, 5000]);
    expect([c.a.repeat, c.b.repeat, c.pairs, c.minutes]).toEqual([1, 1, 4, 15]);
  });

  it("refuses in one line what would make the arms differ in more than their flags, or a session it cannot run", () => {
    expect(() => parseAbArgs(["--a", "--groups warm", "--b", ""])).toThrow(
      /^--a may not set --groups: give it once, outside --a and --b, for both arms$/,
    );
    expect(() => parseAbArgs(["--a", ""])).toThrow(/^ab needs both --a and --b/);
    expect(() => parseAbArgs(["--a", "", "--b", "--wake-idle-ms x"])).toThrow(/^--b: --wake-idle-ms takes a whole number of milliseconds/);
    expect(() => parseAbArgs(["--a", "", "--b", "", "--pairs", "1"])).toThrow(
      /^--pairs takes a whole number of pairs from 2 to 200, got "1"$/,
    );
    expect(() => parseAbArgs(["--a", "", "--b", "", "--repeat", "3"])).toThrow(/^--repeat is not an ab flag/);
  });
});
