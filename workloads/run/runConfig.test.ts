import { describe, expect, it } from "vitest";
import { parseRunArgs, stackRunOptions, type RunConfig } from "./runConfig";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_PRICES } from "../../analysis/contract/prices";
import { PRESETS } from "../../analysis/contract/catalog";
import { rivetSettingsOf } from "../sides/rivet/settings";
import type { CloudflareSettings } from "../sides/cloudflare/settings";

const rivet = (c: RunConfig) => rivetSettingsOf(c.sideSettings);
const cloudflare = (c: RunConfig) => c.sideSettings.cloudflare as CloudflareSettings;

describe("parseRunArgs", () => {
  it("defaults: local preset in 3 repetitions, both sides and the floor, every group but capacity and scaling, 10 s wake idle", () => {
    const c = parseRunArgs([]);
    expect(c.preset).toBe("local");
    expect(c.repeat).toBe(3);
    expect(c.plantDelayUs).toEqual({});
    expect(rivet(c).engineVersion).toBeUndefined();
    expect(c.counts).toEqual({ rivet: PRESETS.local, cloudflare: PRESETS.local, floor: PRESETS.local });
    expect(c.sides).toEqual(["rivet", "cloudflare", "floor"]);
    expect(parseRunArgs(["--side", "both"]).sides).toEqual(["rivet", "cloudflare"]);
    expect(parseRunArgs(["--side", "all"]).sides).toEqual(["rivet", "cloudflare", "floor"]);
    expect(parseRunArgs(["--side", "floor"]).sides).toEqual(["floor"]);
    expect(c.groups).toEqual(["create", "wake", "warm", "sqlite", "seqwrite", "burst"]);
    expect(c.scaleLevels).toEqual([0, 100]);
    // The idle, scaling and capacity groups are off by default in quick and local, on in large and full (full's ladder and levels go further), and any preset runs them when asked.
    expect(parseRunArgs(["--preset", "quick"]).groups).not.toContain("scale");
    expect(parseRunArgs(["--preset", "quick"]).groups).not.toContain("capacity");
    expect(parseRunArgs(["--preset", "local"]).groups).not.toContain("ceiling");
    expect(parseRunArgs(["--preset", "large"])).toMatchObject({
      repeat: 3,
      scaleLevels: [0, 1000, 4000],
      idleLadder: [10_000, 30_000, 60_000, 120_000, 300_000],
      groups: ["create", "wake", "warm", "sqlite", "seqwrite", "payload", "alarms", "idle", "burst", "ceiling", "capacity", "scale"],
    });
    expect(parseRunArgs(["--groups", "idle", "--idle-ladder", "2m,10s"])).toMatchObject({
      groups: ["idle"],
      idleLadder: [10_000, 120_000],
    });
    expect(() => parseRunArgs(["--idle-ladder", "10s,3h"])).toThrow(
      "--idle-ladder takes a comma list of lengths such as 10s,30s,1m,5m: 3h is outside 1s to 2h",
    );
    expect(parseRunArgs(["--groups", "capacity"])).toMatchObject({
      groups: ["capacity"],
      capacityP99Ms: 100,
      counts: { rivet: { capacitySeconds: 2 } },
    });
    expect(parseRunArgs(["--groups", "scale", "--preset", "quick"])).toMatchObject({ groups: ["scale"], scaleLevels: [0, 100] });
    expect(parseRunArgs(["--preset", "full"])).toMatchObject({
      scaleLevels: [0, 1000, 2000, 4000, 8000, 16000],
      idleLadder: [10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_200_000],
    });
    expect(parseRunArgs(["--preset", "full"]).groups).toContain("scale");
    expect(c.wakeIdleMs).toBe(10_000);
    expect(rivet(c).engine).toEqual({ tcpNodelay: true, keepRustBacktrace: false, loadShedding: false });
    expect(cloudflare(c).cfWakeIdleMs).toBe(12_000);
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
    expect(() => parseRunArgs(["--preset", "huge"])).toThrow(/--preset must be one of quick, local, large, full, got "huge"/);
    expect(() => parseRunArgs(["--side", "aws"])).toThrow(
      /--side must be rivet, cloudflare, floor, both \(the runtimes\) or all \(every side\), got "aws"/,
    );
    expect(() => parseRunArgs(["--groups", "create,nap"])).toThrow(/unknown: nap/);
    expect(() => parseRunArgs(["--wake-idle-ms", "-5"])).toThrow(
      /--wake-idle-ms takes a whole number of milliseconds from 1 to 86400000, written in plain digits; got "-5"/,
    );
    expect(() => parseRunArgs(["--preset"])).toThrow(/--preset needs a value/);
    expect(() => parseRunArgs(["--loopback", "fast"])).toThrow(/--loopback must be quickack or host/);
    expect(() => parseRunArgs(["--bogus"])).toThrow(/unknown argument "--bogus"/);
    expect(() => parseRunArgs(["--engine-topology", "mesh"])).toThrow(/--engine-topology must be single or cluster, got "mesh"/);
  });
  it("runs the three-node topology on the host's loopback only", () => {
    expect(rivet(parseRunArgs([])).engineTopology).toBe("single");
    expect(rivet(parseRunArgs(["--engine-topology", "cluster", "--loopback", "host"])).engineTopology).toBe("cluster");
    expect(() => parseRunArgs(["--engine-topology", "cluster"])).toThrow(/--engine-topology cluster needs --loopback host/);
  });
  it("engine switches for the latency investigation", () => {
    const c = parseRunArgs(["--engine-nagle", "--engine-keep-backtrace", "--engine-rust-log", "debug", "--engine-load-shedding"]);
    expect(rivet(c).engine).toEqual({ tcpNodelay: false, keepRustBacktrace: true, rustLog: "debug", loadShedding: true });
    // Each run gets its own settings object: a flag never leaks into the shared default.
    expect(rivet(parseRunArgs([])).engine).toEqual({ tcpNodelay: true, keepRustBacktrace: false, loadShedding: false });
  });
});

describe("repetitions, a planted delay and the Engine release", () => {
  it("a preset brings its repetitions; --repeat overrides them wherever it stands", () => {
    expect(parseRunArgs(["--preset", "quick"]).repeat).toBe(1);
    expect(parseRunArgs(["--preset", "full"]).repeat).toBe(3);
    expect(parseRunArgs(["--repeat", "5", "--preset", "quick"]).repeat).toBe(5);
    expect(parseRunArgs(["--plant-delay-us", "rivet=600,floor=600"]).plantDelayUs).toEqual({ rivet: { "*": 600 }, floor: { "*": 600 } });
    expect(parseRunArgs(["--plant-delay-us", "rivet=600", "--plant-delay-us", "cloudflare=1000"]).plantDelayUs).toEqual({
      rivet: { "*": 600 },
      cloudflare: { "*": 1000 },
    });
    // One operation only, on any side; given again, the plants of one side add up by operation.
    expect(parseRunArgs(["--plant-delay-us", "rivet:write=500,floor:write=500"]).plantDelayUs).toEqual({
      rivet: { write: 500 },
      floor: { write: 500 },
    });
    expect(parseRunArgs(["--plant-delay-us", "rivet:write=500", "--plant-delay-us", "rivet:read=100"]).plantDelayUs).toEqual({
      rivet: { write: 500, read: 100 },
    });
    expect(() => parseRunArgs(["--plant-delay-us", "rivet:delete=5"])).toThrow(
      /--plant-delay-us takes side=microseconds or side:operation=microseconds with sides rivet, cloudflare, floor and operations ping, read, write, scan, seed, setAlarm, setAlarmSleep, alarmResult, sleep, got "rivet:delete=5"/,
    );
    expect(() => parseRunArgs(["--plant-delay-us", "lambda=5"])).toThrow(
      /--plant-delay-us takes side=microseconds or side:operation=microseconds with sides rivet, cloudflare, floor .*got "lambda=5"/,
    );
    expect(() => parseRunArgs(["--plant-delay-us", "rivet"])).toThrow(/side=microseconds/);
    expect(rivet(parseRunArgs(["--engine-version", "2.3.18"])).engineVersion).toBe("2.3.18");
    expect(() => parseRunArgs(["--engine-version", "../../bin/sh"])).toThrow(/--engine-version takes a release number such as 2.3.18/);
  });
  it("takes plain decimal whole numbers within each flag's bounds, and nothing else", () => {
    for (const bad of ["0", "21", "1e1", "0x3", " 3", "3.0", "+3", ""])
      expect(() => parseRunArgs(["--repeat", bad]), bad).toThrow(/--repeat takes a whole number of repetitions from 1 to 20/);
    expect(() => parseRunArgs(["--plant-delay-us", "floor=1000001"])).toThrow(
      /--plant-delay-us takes a whole number of microseconds from 0 to 1000000/,
    );
    // Past 2^31-1 ms a timer fires at once: a day is the most any wait may be.
    expect(() => parseRunArgs(["--cf-wake-idle-ms", "3000000000"])).toThrow(/from 1 to 86400000/);
    expect(cloudflare(parseRunArgs(["--cf-wake-idle-ms", "86400000"])).cfWakeIdleMs).toBe(86_400_000);
  });
  it("takes presets from the table's own keys only, and refuses an empty results folder", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"])
      expect(() => parseRunArgs(["--preset", name]), name).toThrow(/--preset must be one of/);
    expect(() => parseRunArgs(["--results-dir", ""])).toThrow(/--results-dir needs a folder name/);
  });
});

describe("--samples", () => {
  it("overrides the preset's counts on both sides, wherever it stands", () => {
    const c = parseRunArgs(["--samples", "createPing=7,warm=9", "--preset", "full"]);
    for (const side of ["rivet", "cloudflare", "floor"] as const) {
      expect(c.counts[side].createPing).toBe(7);
      expect(c.counts[side].warm).toBe(9);
      expect(c.counts[side].wake).toBe(side === "cloudflare" ? 200 : PRESETS.full.wake);
    }
    expect(c.counts.rivet.wake).not.toBe(c.counts.cloudflare.wake);
  });
  it("refuses unknown names and counts that are not whole and positive", () => {
    expect(() => parseRunArgs(["--samples", "pings=3"])).toThrow(
      /--samples takes name=count pairs with names createPing, .* got "pings=3"/,
    );
    expect(() => parseRunArgs(["--samples", "warm=0"])).toThrow(/got "warm=0"/);
    expect(() => parseRunArgs(["--samples", "warm=1.5"])).toThrow(/got "warm=1.5"/);
    expect(() => parseRunArgs(["--samples", "warm=1e3"])).toThrow(/got "warm=1e3"/);
    expect(() => parseRunArgs(["--samples", "warm=100001"])).toThrow(/counts from 1 to 100000/);
  });
});

describe("the capacity objective and the price table of a run", () => {
  it("--stage-deadline-ms bounds every stage, ten minutes unless given, and names itself when out of bounds", () => {
    expect(parseRunArgs([]).stageDeadlineMs).toBe(600_000);
    expect(parseRunArgs(["--stage-deadline-ms", "60000"]).stageDeadlineMs).toBe(60_000);
    expect(() => parseRunArgs(["--stage-deadline-ms", "10"])).toThrow(
      /^--stage-deadline-ms takes a whole number of milliseconds from 1000 to 86400000/,
    );
  });
  it("--capacity-p99-ms sets the objective within its bounds, and names itself when out of them", () => {
    expect(parseRunArgs(["--capacity-p99-ms", "250"]).capacityP99Ms).toBe(250);
    expect(() => parseRunArgs(["--capacity-p99-ms", "0"])).toThrow(
      /^--capacity-p99-ms takes a whole number of milliseconds from 1 to 60000/,
    );
  });

  it("--prices reads and checks a price table, kept in the config the manifest records; a bad one is refused in one line naming the file and the field", () => {
    const dir = mkdtempSync(join(tmpdir(), "ab-prices-"));
    const good = join(dir, "good.json");
    writeFileSync(
      good,
      JSON.stringify({
        ...DEFAULT_PRICES,
        asOf: "read 2026-12-05 from the pages named",
        prices: { ...DEFAULT_PRICES.prices, doRequests: { ...DEFAULT_PRICES.prices.doRequests, usd: 0.2 } },
      }),
    );
    expect(parseRunArgs(["--prices", good]).prices?.prices.doRequests.usd).toBe(0.2);
    expect(parseRunArgs([]).prices).toBeUndefined();
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ ...DEFAULT_PRICES, assumptions: { doBilledGb: 0.125, selfHostedUtilisation: 2 } }));
    expect(() => parseRunArgs(["--prices", bad])).toThrow(
      `--prices ${bad}: assumptions.selfHostedUtilisation must be above 0 and at most 1`,
    );
    expect(() => parseRunArgs(["--prices", join(dir, "absent.json")])).toThrow(/^--prices \S+absent\.json: not a readable JSON file/);
  });

  it("a stack's price table is read where the report is written, never passed to the runner", () => {
    const dir = mkdtempSync(join(tmpdir(), "ab-prices-"));
    const file = join(dir, "p.json");
    writeFileSync(file, JSON.stringify(DEFAULT_PRICES));
    const s = stackRunOptions({ prices: file, capacityP99Ms: "150" });
    expect(s.run.prices).toEqual(DEFAULT_PRICES);
    expect(s.runArgs).toEqual(["--capacity-p99-ms", "150"]);
    expect(() => stackRunOptions({ prices: join(dir, "none.json") })).toThrow(
      /^config actor-bench:prices: \S+none\.json: not a readable JSON file/,
    );
  });
});
