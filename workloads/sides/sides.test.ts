import { describe, expect, it } from "vitest";
import { SIDES } from "../../analysis/contract/catalog";
import { DEFAULT_ENGINE_SETTINGS } from "../../cluster/engineConfig";
import { Http1Client } from "../driver/http1/client";
import { SIDE_DESCRIPTORS, type SideTargets } from "./sides";
import type { SideRunSettings } from "./side";

const cfg: SideRunSettings = {
  requestTimeoutMs: 1000, wakeIdleMs: 10, cfWakeIdleMs: 20, sleepConfirmTimeoutMs: 1000, actorSleepTimeoutMs: 5000,
  engine: { ...DEFAULT_ENGINE_SETTINGS }, engineTopology: "single", plantDelayUs: {},
};
// Nothing listens here: opening a side builds its client and adapter, it sends nothing.
const targets: Required<SideTargets> = {
  rivet: { gatewayUrl: "http://127.0.0.1:9", engineVersion: "e1", engineConfig: { guard: {} }, startedBy: "test rivet", enginePid: 11, appPid: 12 },
  cloudflare: { url: "http://127.0.0.1:9", token: "t0k3n-never-written", versions: { workerd: "w1" }, startedBy: "test cf" },
  floor: { url: "http://127.0.0.1:9", serverPid: 13, idleCloseMs: 5000, plantDelayUs: 0, startedBy: "test floor" },
};

describe("one descriptor per side", () => {
  it("has one descriptor for every side of the catalog, each naming its own side", () => {
    expect(Object.keys(SIDE_DESCRIPTORS).sort()).toEqual([...SIDES].sort());
    for (const side of SIDES) expect(SIDE_DESCRIPTORS[side].side).toBe(side);
  });

  it("opens every side on the same timed client, named by the client itself, and says who started the target", async () => {
    const opened = SIDES.map((side) => ({ side, o: (SIDE_DESCRIPTORS[side].open as (c: SideRunSettings, t: unknown) => ReturnType<(typeof SIDE_DESCRIPTORS)["rivet"]["open"]>)(cfg, targets[side]) }));
    try {
      const clients = new Set(opened.map(({ o }) => o.settings.client));
      expect(clients.size).toBe(1);
      expect([...clients][0]).toContain(Http1Client.DESCRIPTION);
      expect([...clients][0]).toContain("at most 256 connections");
      for (const { side, o } of opened) {
        expect(o.settings.startedBy).toBe(targets[side].startedBy);
        expect(o.adapter.side).toBe(side);
        // No processes were given: nothing of this run to watch.
        expect(o.runtime).toBeUndefined();
        expect(JSON.stringify(o.settings)).not.toContain("t0k3n-never-written");
      }
    } finally {
      await Promise.all(opened.map(({ o }) => o.close()));
    }
  });

  it("gives each side's versions and the CPU it records", async () => {
    const rivet = SIDE_DESCRIPTORS.rivet.open(cfg, targets.rivet);
    const cf = SIDE_DESCRIPTORS.cloudflare.open(cfg, { ...targets.cloudflare, runtime: { runtime: "deployed", workerClock: "x", eviction: "y" } });
    const floor = SIDE_DESCRIPTORS.floor.open(cfg, { ...targets.floor, plantDelayUs: 700 });
    try {
      expect(rivet.versions).toEqual({ engine: "e1" });
      expect(rivet.cpuPids()).toEqual({ engine: 11, app: 12, driver: process.pid });
      // A deployed Worker: its own runtime text, no local wrangler version.
      expect(cf.versions).toEqual({ workerd: "w1" });
      expect(cf.settings.runtime).toBe("deployed");
      expect(floor.cpuPids()).toEqual({ server: 13, driver: process.pid });
      expect(String(floor.settings.plantedDelay)).toMatch(/^700 us planted in every action before it replies \(--plant-delay-us\): a spin/);
      expect(rivet.settings.plantedDelay).toBeUndefined();
      expect(Object.keys(floor.versions)).toEqual(["better-sqlite3"]);
    } finally {
      await Promise.all([rivet.close(), cf.close(), floor.close()]);
    }
  });
});
