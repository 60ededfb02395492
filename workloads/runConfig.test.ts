import { describe, expect, it } from "vitest";
import { parseRunArgs } from "./runConfig";
import { PRESETS } from "../analysis/catalog";

describe("parseRunArgs", () => {
  it("defaults: local preset, both sides and the floor, every group, 10 s wake idle", () => {
    const c = parseRunArgs([]);
    expect(c.preset).toBe("local");
    expect(c.counts).toEqual(PRESETS.local);
    expect(c.sides).toEqual(["rivet", "cloudflare", "floor"]);
    expect(parseRunArgs(["--side", "both"]).sides).toEqual(["rivet", "cloudflare"]);
    expect(parseRunArgs(["--side", "all"]).sides).toEqual(["rivet", "cloudflare", "floor"]);
    expect(parseRunArgs(["--side", "floor"]).sides).toEqual(["floor"]);
    expect(c.groups).toEqual(["create", "wake", "warm", "sqlite", "seqwrite", "burst", "scale"]);
    expect(c.scaleLevels).toEqual([0, 1000]);
    // The scaling group is off by default in quick, on in full with the 10,000 level, and any preset runs it when asked.
    expect(parseRunArgs(["--preset", "quick"]).groups).not.toContain("scale");
    expect(parseRunArgs(["--groups", "scale", "--preset", "quick"])).toMatchObject({ groups: ["scale"], scaleLevels: [0, 100] });
    expect(parseRunArgs(["--preset", "full"])).toMatchObject({ scaleLevels: [0, 1000, 10000] });
    expect(parseRunArgs(["--preset", "full"]).groups).toContain("scale");
    expect(c.wakeIdleMs).toBe(10_000);
    expect(c.engine).toEqual({ tcpNodelay: true, keepRustBacktrace: false, loadShedding: false });
    expect(c.loopback).toBe("quickack");
  });
  it("takes preset, side and groups (in suite order)", () => {
    const c = parseRunArgs(["--preset", "full", "--side", "rivet", "--groups", "wake,create"]);
    expect(c.counts.rivet.createPing).toBe(1500);
    expect(c.counts.cloudflare.createPing).toBe(200);
    expect(c.sides).toEqual(["rivet"]);
    expect(c.groups).toEqual(["create", "wake"]);
  });
  it("names the bad flag and what is allowed", () => {
    expect(() => parseRunArgs(["--preset", "huge"])).toThrow(/--preset must be one of quick, local, full, got "huge"/);
    expect(() => parseRunArgs(["--side", "aws"])).toThrow(/--side must be rivet, cloudflare, floor, both \(the two runtimes\) or all \(with the floor\), got "aws"/);
    expect(() => parseRunArgs(["--groups", "create,nap"])).toThrow(/unknown: nap/);
    expect(() => parseRunArgs(["--wake-idle-ms", "-5"])).toThrow(/--wake-idle-ms needs a positive whole number/);
    expect(() => parseRunArgs(["--preset"])).toThrow(/--preset needs a value/);
    expect(() => parseRunArgs(["--loopback", "fast"])).toThrow(/--loopback must be quickack or host/);
    expect(() => parseRunArgs(["--bogus"])).toThrow(/unknown argument "--bogus"/);
    expect(() => parseRunArgs(["--engine-topology", "mesh"])).toThrow(/--engine-topology must be single or cluster, got "mesh"/);
  });
  it("runs the three-node topology on the host's loopback only", () => {
    expect(parseRunArgs([]).engineTopology).toBe("single");
    expect(parseRunArgs(["--engine-topology", "cluster", "--loopback", "host"]).engineTopology).toBe("cluster");
    expect(() => parseRunArgs(["--engine-topology", "cluster"])).toThrow(/--engine-topology cluster needs --loopback host/);
  });
  it("engine switches for the latency investigation", () => {
    const c = parseRunArgs(["--engine-nagle", "--engine-keep-backtrace", "--engine-rust-log", "debug", "--engine-load-shedding"]);
    expect(c.engine).toEqual({ tcpNodelay: false, keepRustBacktrace: true, rustLog: "debug", loadShedding: true });
    // Each run gets its own settings object: a flag never leaks into the shared default.
    expect(parseRunArgs([]).engine).toEqual({ tcpNodelay: true, keepRustBacktrace: false, loadShedding: false });
  });
});

describe("--samples", () => {
  it("overrides the preset's counts on both sides, wherever it stands", () => {
    const c = parseRunArgs(["--samples", "createPing=7,warm=9", "--preset", "full"]);
    for (const side of ["rivet", "cloudflare", "floor"] as const) {
      expect(c.counts[side].createPing).toBe(7);
      expect(c.counts[side].warm).toBe(9);
      expect(c.counts[side].wake).toBe(PRESETS.full[side].wake);
    }
    expect(c.counts.rivet.wake).not.toBe(c.counts.cloudflare.wake);
  });
  it("refuses unknown names and counts that are not whole and positive", () => {
    expect(() => parseRunArgs(["--samples", "pings=3"])).toThrow(/--samples takes name=count pairs with names createPing, .* got "pings=3"/);
    expect(() => parseRunArgs(["--samples", "warm=0"])).toThrow(/got "warm=0"/);
    expect(() => parseRunArgs(["--samples", "warm=1.5"])).toThrow(/got "warm=1.5"/);
  });
});
