import { describe, expect, it } from "vitest";
import { defaultPair, machineDifferences, type ManifestLike } from "./comparison";

const m = (runId: string, startedAt: string, over: Partial<ManifestLike> = {}): ManifestLike => ({
  runId,
  startedAt,
  preset: "local",
  ...over,
});
const run = (id: string, startedAt: string, keys: string[], over: Partial<ManifestLike> = {}) => ({
  id,
  m: m(id, startedAt, over),
  stats: Object.fromEntries(keys.map((k) => [k, {}])),
});
const arm = (arm: "A" | "B", partner: string) => ({ settings: { ab: { id: "ab-1", arm, partnerRunId: partner, order: ["A", "B"] } } });

describe("the pair the comparison page opens on", () => {
  it("the newest run against its A/B partner (A first), even when a later run of another kind exists", () => {
    const runs = [
      run("a", "2026-12-05T01:00:00Z", ["x"], arm("A", "b")),
      run("b", "2026-12-05T01:00:01Z", ["x"], arm("B", "a")),
      run("c", "2026-12-04T00:00:00Z", ["x"]),
    ];
    expect(defaultPair(runs)).toEqual(["a", "b"]);
  });

  it("else the newest earlier run sharing a row with it, older first; none with fewer than two comparable runs", () => {
    const runs = [
      run("old", "2026-12-01T00:00:00Z", ["x"]),
      run("mid", "2026-12-02T00:00:00Z", ["y"]),
      run("new", "2026-12-03T00:00:00Z", ["x", "z"]),
    ];
    expect(defaultPair(runs)).toEqual(["old", "new"]);
    expect(defaultPair([run("only", "2026-12-03T00:00:00Z", ["x"])])).toEqual([]);
    expect(defaultPair([run("p", "2026-12-01T00:00:00Z", ["x"]), run("q", "2026-12-02T00:00:00Z", ["y"])])).toEqual([]);
  });
});

describe("what differs between the machines", () => {
  it("names a CPU model or core count that differs, and an unrecorded one", () => {
    const a = m("a", "t", { machine: { cpuModel: "AMD EPYC 7B13", cpus: 2 } });
    expect(machineDifferences(a, m("b", "t", { machine: { cpuModel: "AMD EPYC 7B13", cpus: 2 } }))).toEqual([]);
    expect(machineDifferences(a, m("b", "t", { machine: { cpuModel: "Intel(R) Xeon(R) Processor", cpus: 4 } }))).toEqual([
      "the machine differs: CPU model A AMD EPYC 7B13, B Intel(R) Xeon(R) Processor",
      "the machine differs: cores A 2, B 4",
    ]);
    expect(machineDifferences(a, m("b", "t"))[0]).toBe("the machine differs: CPU model A AMD EPYC 7B13, B unrecorded");
  });
});
