import { describe, expect, it } from "vitest";
import {
  CATALOG,
  PRESETS,
  sampleCount,
  sideMeasures,
  catalogEntry,
  THROUGHPUT_TEXT,
  type PresetName,
} from "../../analysis/contract/catalog";
import { profileProblem } from "../../analysis/contract/sideProfile";
import { Http1Client } from "../driver/http1/client";
import { runtimeIds, SIDE_REGISTRY, sideOf } from "./registry";
import type { SideRunSettings } from "./side";
import { RIVET_DEFAULTS } from "./rivet/settings";
import { CLOUDFLARE_DEFAULTS } from "./cloudflare/settings";

const base = {
  requestTimeoutMs: 1000,
  wakeIdleMs: 10,
  actorSleepTimeoutMs: 5000,
  loopback: "host" as const,
  plant: {},
  counts: PRESETS.quick,
  groups: [],
  scaleLevels: [],
};
const settings = (side: string, own: unknown = sideOf(SIDE_REGISTRY, side).defaults): SideRunSettings => ({ ...base, own });
// Nothing listens here: opening a side builds its client and adapter, it sends nothing.
const targets: Record<string, Record<string, unknown>> = {
  rivet: {
    gatewayUrl: "http://127.0.0.1:9",
    engineVersion: "e1",
    engineConfig: { guard: {} },
    startedBy: "test rivet",
    enginePid: 11,
    appPid: 12,
  },
  cloudflare: { url: "http://127.0.0.1:9", token: "t0k3n-never-written", versions: { workerd: "w1" }, startedBy: "test cf" },
  floor: { url: "http://127.0.0.1:9", serverPid: 13, idleCloseMs: 5000, plantDelayUs: 0, startedBy: "test floor" },
};

/** The reference's n per row and side (its headline and throughput tables), written out independently of the presets. */
const REFERENCE_N: Record<string, { rivet?: number; cloudflare?: number }> = {
  "create.ping": { rivet: 1500, cloudflare: 200 },
  "create.unique": { cloudflare: 200 },
  "create.read": { rivet: 1200, cloudflare: 200 },
  "create.write": { rivet: 1200, cloudflare: 200 },
  "wake.ping": { rivet: 1200, cloudflare: 200 },
  "wake.read": { rivet: 1200, cloudflare: 200 },
  "wake.write": { rivet: 1200, cloudflare: 200 },
  "warm.ping": { rivet: 2000, cloudflare: 300 },
  "warm.getOrCreate": { rivet: 2000 },
  "sqlite.read": { rivet: 1200, cloudflare: 300 },
  "sqlite.write": { rivet: 1200, cloudflare: 300 },
  "sqlite.scan": { rivet: 1000, cloudflare: 300 },
  "burst.c1": { rivet: 500, cloudflare: 500 },
  "burst.c8": { rivet: 500, cloudflare: 500 },
  "burst.c32": { rivet: 500, cloudflare: 500 },
  "burst.c128": { rivet: 500, cloudflare: 500 },
  seqwrite: { rivet: 5000, cloudflare: 2000 },
};

const countsOf = (side: string, preset: PresetName) => sideOf(SIDE_REGISTRY, side).presetCounts?.[preset] ?? PRESETS[preset];

describe("the registry: one package per side", () => {
  it("lists each side once, with a profile the manifest accepts, its id its folder's", () => {
    const ids = SIDE_REGISTRY.map((d) => d.profile.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const d of SIDE_REGISTRY) expect(profileProblem(d.profile, d.profile.id)).toBeNull();
    expect(runtimeIds(SIDE_REGISTRY)).toEqual(["rivet", "cloudflare"]);
    expect(() => sideOf(SIDE_REGISTRY, "lambda")).toThrow(/"lambda" is not a side \(rivet, cloudflare, floor\)/);
  });

  it("the full preset takes the reference's n on each runtime", () => {
    for (const [id, want] of Object.entries(REFERENCE_N)) {
      for (const side of ["rivet", "cloudflare"] as const) {
        const e = catalogEntry(id);
        expect(sideMeasures(sideOf(SIDE_REGISTRY, side).profile, id), `${side} ${id}`).toBe(want[side] !== undefined);
        if (want[side] !== undefined) expect(sampleCount(e, countsOf(side, "full")), `${side} ${id}`).toBe(want[side]);
      }
    }
  });

  it("the floor measures every metric the runtimes share, with at least the larger runtime's count in every preset", () => {
    const runtimes = runtimeIds(SIDE_REGISTRY).map((id) => sideOf(SIDE_REGISTRY, id).profile);
    for (const e of CATALOG.filter((x) => runtimes.every((p) => sideMeasures(p, x.id)))) {
      expect(sideMeasures(sideOf(SIDE_REGISTRY, "floor").profile, e.id), e.id).toBe(true);
      for (const preset of Object.keys(PRESETS) as PresetName[]) {
        expect(sampleCount(e, countsOf("floor", preset)), e.id).toBeGreaterThanOrEqual(
          Math.max(...runtimes.map((p) => sampleCount(e, countsOf(p.id, preset)))),
        );
      }
    }
  });

  it("says in words, in its adapter's properties, the throughput method its profile gives the report", async () => {
    for (const d of SIDE_REGISTRY) {
      const o = d.open(settings(d.profile.id), targets[d.profile.id]);
      try {
        expect(o.adapter.properties.throughput).toBe(THROUGHPUT_TEXT[d.profile.throughputMethod].text);
        expect(o.adapter.profile).toBe(d.profile);
        expect(o.adapter.properties.openModelRates).toBe(`${d.profile.openRates.join(", ")} creates per second`);
      } finally {
        await o.close();
      }
    }
  });

  it("opens every side on the same timed client, named by the client itself, and says who started the target", async () => {
    const opened = SIDE_REGISTRY.map((d) => ({ side: d.profile.id, o: d.open(settings(d.profile.id), targets[d.profile.id]) }));
    try {
      const clients = new Set(opened.map(({ o }) => o.settings.client));
      expect(clients.size).toBe(1);
      expect([...clients][0]).toContain(Http1Client.DESCRIPTION);
      expect([...clients][0]).toContain("at most 256 connections");
      for (const { side, o } of opened) {
        expect(o.settings.startedBy).toBe(targets[side].startedBy);
        expect(o.adapter.side).toBe(side);
        expect(o.settings.caveats.length).toBeGreaterThan(0);
        // No processes were given: nothing of this run to watch.
        expect(o.runtime).toBeUndefined();
        expect(JSON.stringify(o.settings)).not.toContain("t0k3n-never-written");
      }
    } finally {
      await Promise.all(opened.map(({ o }) => o.close()));
    }
  });

  it("gives each side's versions, the CPU it records and its caveats", async () => {
    const rivet = sideOf(SIDE_REGISTRY, "rivet").open(
      settings("rivet", { ...RIVET_DEFAULTS, engine: { ...RIVET_DEFAULTS.engine, keepRustBacktrace: true } }),
      targets.rivet,
    );
    const cf = sideOf(SIDE_REGISTRY, "cloudflare").open(settings("cloudflare"), {
      ...targets.cloudflare,
      runtime: { runtime: "deployed", workerClock: "x", eviction: "y" },
    });
    const local = sideOf(SIDE_REGISTRY, "cloudflare").open(
      settings("cloudflare", { ...CLOUDFLARE_DEFAULTS, cfWakeIdleMs: 777 }),
      targets.cloudflare,
    );
    const floor = sideOf(SIDE_REGISTRY, "floor").open(
      { ...settings("floor"), plant: { "*": 700 } },
      { ...targets.floor, plant: { "*": 700 } },
    );
    try {
      expect(rivet.versions.engine).toBe("e1");
      expect(Object.keys(rivet.versions).sort()).toEqual(["@rivetkit/engine-cli", "engine", "rivetkit"]);
      expect(rivet.cpuPids()).toEqual({ engine: 11, app: 12, driver: process.pid });
      expect(rivet.settings.caveats.join(" ")).not.toMatch(/RUST_BACKTRACE/);
      expect(rivet.settings.caveats.join(" ")).toMatch(/No replication: the Engine stored on one local file system/);
      // A deployed Worker: its own runtime text, no local wrangler version, the cloud's caveats.
      expect(cf.versions).toEqual({ workerd: "w1" });
      expect(cf.settings.runtime).toBe("deployed");
      expect(cf.settings.caveats.join(" ")).toMatch(/On Cloudflare a Worker's Date.now\(\) advances only across I\/O/);
      expect(local.settings.caveats.join(" ")).toMatch(/ran on local workerd/);
      expect(local.adapter.wakeIdleMs).toBe(777);
      // workerd's CPU is recorded where it runs on this machine; a deployed Worker's cannot be.
      expect(local.cpuPids()).toEqual({ driver: process.pid });
      const withPid = sideOf(SIDE_REGISTRY, "cloudflare").open(settings("cloudflare"), { ...targets.cloudflare, workerdPid: 77 });
      expect(withPid.cpuPids()).toEqual({ workerd: 77, driver: process.pid });
      await withPid.close();
      expect(floor.cpuPids()).toEqual({ server: 13, driver: process.pid });
      expect(String(floor.settings.plantedDelay)).toMatch(/^700 us in every action planted before it replies \(--plant-delay-us\): a spin/);
      expect(rivet.settings.plantedDelay).toBeUndefined();
      expect(Object.keys(floor.versions)).toEqual(["better-sqlite3"]);
    } finally {
      await Promise.all([rivet.close(), cf.close(), local.close(), floor.close()]);
    }
  });
});
