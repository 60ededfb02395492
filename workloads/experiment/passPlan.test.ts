import { describe, expect, it } from "vitest";
import {
  busy,
  callCostsOf,
  clock,
  estimateTask,
  passRunName,
  planPass,
  renderSchedule,
  simulatePass,
  simulateRun,
  type Task,
  type TaskEstimate,
} from "./passPlan";
import { GROUPS, PRESETS } from "../../analysis/contract/catalog";
import { LEGACY_BOOK } from "../../analysis/contract/sideProfile";
import { SIDE_REGISTRY, sideOf } from "../sides/registry";

const sides = (...ids: string[]) => ids.map((id) => LEGACY_BOOK.get(id));

const names = (sides: Parameters<typeof planPass>[0], groups: Parameters<typeof planPass>[1], overlap: boolean) =>
  planPass(sides, groups, overlap).map(passRunName);
const est =
  (table: Record<string, Partial<TaskEstimate>>) =>
  (t: Task): TaskEstimate => ({ beforeIdleMs: 0, idleMs: 0, afterIdleMs: 0, ...table[`${t.side} ${t.group}`] });

describe("planPass", () => {
  it("both runtimes, overlapping: each DO group with an idle wait hosts an ordered share of Rivet's groups; the other DO groups follow alone", () => {
    expect(names(sides("rivet", "cloudflare"), GROUPS, true)).toEqual([
      "cloudflare.wake+rivet.create+rivet.wake+rivet.warm+rivet.sqlite",
      "cloudflare.sqlite+rivet.seqwrite+rivet.payload+rivet.alarms+rivet.burst",
      "cloudflare.seqwrite+rivet.ceiling+rivet.capacity+rivet.scale",
      "cloudflare.idle+rivet.idle",
      "cloudflare.create",
      "cloudflare.warm",
      "cloudflare.payload",
      "cloudflare.alarms",
      "cloudflare.burst",
      "cloudflare.ceiling",
      "cloudflare.capacity",
      "cloudflare.scale",
    ]);
    expect(names(sides("rivet", "cloudflare"), ["create", "wake", "burst"], true)).toEqual([
      "cloudflare.wake+rivet.create+rivet.wake+rivet.burst",
      "cloudflare.create",
      "cloudflare.burst",
    ]);
  });
  it("every group alone, Rivet's then Cloudflare's, when overlap is off, one side is selected, or no DO group idles", () => {
    const alone = [...GROUPS.map((g) => `rivet.${g}`), ...GROUPS.map((g) => `cloudflare.${g}`)];
    expect(names(sides("rivet", "cloudflare"), GROUPS, false)).toEqual(alone);
    expect(names(sides("rivet"), GROUPS, true)).toEqual(GROUPS.map((g) => `rivet.${g}`));
    expect(names(sides("cloudflare"), ["create", "wake"], true)).toEqual(["cloudflare.create", "cloudflare.wake"]);
    expect(names(sides("rivet", "cloudflare"), ["create", "warm"], true)).toEqual([
      "rivet.create",
      "rivet.warm",
      "cloudflare.create",
      "cloudflare.warm",
    ]);
  });
  it("takes every selected task exactly once", () => {
    const tasks = planPass(sides("rivet", "cloudflare"), GROUPS, true).flatMap((r) => r.tasks.map((t) => `${t.side}.${t.group}`));
    expect(tasks.sort()).toEqual([...GROUPS.map((g) => `rivet.${g}`), ...GROUPS.map((g) => `cloudflare.${g}`)].sort());
  });
});

describe("simulateRun: the driver's lock and order on a virtual clock", () => {
  it("guests measure inside the host's idle, one at a time; the host measures when the running guest is done", async () => {
    const s = await simulateRun(
      {
        tasks: [
          { side: "cloudflare", group: "wake" },
          { side: "rivet", group: "create" },
          { side: "rivet", group: "warm" },
        ],
      },
      est({
        "cloudflare wake": { beforeIdleMs: 10, idleMs: 100, afterIdleMs: 5 },
        "rivet create": { beforeIdleMs: 60 },
        "rivet warm": { beforeIdleMs: 60 },
      }),
    );
    const at = (g: string) => s.spans.find((x) => `${x.task.side} ${x.task.group}` === g)!;
    expect(at("rivet create")).toMatchObject({ startMs: 10, endMs: 70 });
    expect(at("rivet warm")).toMatchObject({ startMs: 70, endMs: 130 });
    // The idle was due at 110; warm held the lock until 130, so the wake waited longer than its idle, never less.
    expect(at("cloudflare wake")).toMatchObject({ startMs: 0, endMs: 135, idle: { fromMs: 10, toMs: 130 } });
    expect(s.endMs).toBe(135);
    const held = s.spans.flatMap(busy).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < held.length; i++) expect(held[i][0]).toBeGreaterThanOrEqual(held[i - 1][1]);
  });
  it("a side's last group waits for its own side's groups, not for the other side's idle", async () => {
    const s = await simulateRun(
      {
        tasks: [
          { side: "cloudflare", group: "seqwrite" },
          { side: "rivet", group: "sqlite" },
          { side: "rivet", group: "burst" },
        ],
      },
      est({
        "cloudflare seqwrite": { beforeIdleMs: 1, idleMs: 500, afterIdleMs: 1 },
        "rivet sqlite": { beforeIdleMs: 5, idleMs: 20, afterIdleMs: 5 },
        "rivet burst": { beforeIdleMs: 50 },
      }),
    );
    const burst = s.spans.find((x) => x.task.group === "burst")!;
    // Burst waited for Rivet's sqlite (done at 31), then ran inside the DO's idle (1 to 501).
    expect(burst).toMatchObject({ startMs: 31, endMs: 81 });
    expect(s.endMs).toBe(502);
  });
});

describe("estimates and the rendered schedule", () => {
  const costs = callCostsOf({
    a: { side: "rivet", metric: "create.ping", attempts: 100, wallMs: 5_000 },
    b: { side: "rivet", metric: "create.read", attempts: 100, wallMs: 6_000 },
    c: { side: "rivet", metric: "create.write", attempts: 10, wallMs: 700 },
    d: { side: "rivet", metric: "burst.c8", attempts: 100, wallMs: 2_000 },
    e: { side: "rivet", metric: "wake.ping", attempts: 0, wallMs: 0 },
    f: { side: "rivet", metric: "scale.create.e1000", attempts: 10, wallMs: 900 },
  });
  const full = (id: string) => sideOf(SIDE_REGISTRY, id).presetCounts?.full ?? PRESETS.full;
  const counts = { rivet: full("rivet"), cloudflare: full("cloudflare"), floor: full("floor") };
  const profiles = Object.fromEntries(LEGACY_BOOK.order.map((id) => [id, LEGACY_BOOK.get(id)]));
  const inputs = {
    counts,
    scaleLevels: [0, 1000, 16000],
    idleLadder: [10_000, 60_000],
    idleMs: { rivet: 10_000, cloudflare: 600_000, floor: 10_000 },
    profiles,
  };

  it("a group's samples at its stages' measured per-request wall time, preparation at a create at concurrency 8, idle as configured", () => {
    const c = counts.rivet;
    const create = estimateTask({ side: "rivet", group: "create" }, inputs, costs);
    expect(create).toEqual({
      beforeIdleMs: c.createPing * 50 + c.createRead * 60 + c.createWrite * 70,
      idleMs: 0,
      afterIdleMs: 0,
      unknown: [],
    });
    const wake = estimateTask({ side: "rivet", group: "wake" }, inputs, costs);
    // No wake stage measured (zero attempts are no cost): each estimated as one sequential create.
    expect(wake).toEqual({
      beforeIdleMs: 3 * c.wake * 20,
      idleMs: 10_000,
      afterIdleMs: 3 * c.wake * 50,
      unknown: ["wake.ping", "wake.read", "wake.write"],
    });
    // A scaling level not measured takes the nearest measured level's cost; the DO's levels each wait its idle, held.
    const scale = estimateTask({ side: "rivet", group: "scale" }, inputs, costs);
    expect(scale.unknown).toEqual(expect.arrayContaining(["scale.wake.e0", "scale.burst.e16000"]));
    expect(scale.unknown).not.toContain("scale.create.e16000");
    expect(estimateTask({ side: "cloudflare", group: "scale" }, inputs, new Map()).beforeIdleMs).toBe(3 * 600_000);
  });

  it("renders each run, the idle waits with what measures inside them, and the saving against every group alone", async () => {
    const plan = planPass(sides("rivet", "cloudflare"), ["create", "wake"], true);
    const s = await simulatePass(
      plan,
      est({
        "cloudflare wake": { beforeIdleMs: 10_000, idleMs: 600_000, afterIdleMs: 20_000 },
        "rivet create": { beforeIdleMs: 120_000 },
        "rivet wake": { beforeIdleMs: 60_000, idleMs: 10_000, afterIdleMs: 30_000 },
        "cloudflare create": { beforeIdleMs: 5_000 },
      }),
    );
    expect(s.totalMs).toBe(630_000 + 5_000);
    expect(s.aloneMs).toBe(630_000 + 120_000 + 100_000 + 5_000);
    const text = renderSchedule(s, "test costs");
    expect(text).toContain("Planned pass: 2 runs on the runner");
    expect(text).toMatch(/\n1 +cloudflare wake +0:00:00 +0:10:30 +0:00:10 to 0:10:10 +rivet create, rivet wake\n/);
    // Rivet's own idle had nothing of the other side measuring inside it: the DO wake was idle then too.
    expect(text).toMatch(/\n +rivet wake +0:02:10 +0:03:50 +0:03:10 to 0:03:20\n/);
    expect(text).toContain(`Total 0:10:35; with every group in a run of its own, one after another, 0:14:15 (overlapping saves 0:03:40).`);
    expect(clock(3_600_000 + 61_000)).toBe("1:01:01");
  });
});
