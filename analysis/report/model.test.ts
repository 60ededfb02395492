import { describe, expect, it } from "vitest";
import { LEGACY_BOOK } from "../contract/sideProfile";
import { summarize, type RawSample, type RunSummary } from "../stats/summary";
import { controlCostModel, costCell, costLoadModel, costModel, headlineModel, readmeModel, sameClockModel } from "./model";
import type { CapacityCurve } from "../stats/capacity";
import { DEFAULT_PRICES } from "../contract/prices";
import { verifyRunDir } from "../contract/verify";
import { summarizeRun } from "../stats/summary";
import type { StageRecord } from "../contract/runDirContract";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const warm = (ms: number, clientMs?: number): RawSample => ({ ok: true, ms, cold: false, ...(clientMs !== undefined ? { clientMs } : {}) });
const samples = new Map<string, RawSample[]>([
  ["rivet.warm.ping", [warm(2), warm(2), warm(3)]],
  // The DO's ms is the Worker's clock; its client round trip is clientMs.
  ["cloudflare.warm.ping", [warm(0, 1.5), warm(1, 1.5), warm(1, 1.6)]],
  ["cloudflare.baseline.noop", [warm(0.5), warm(0.5), warm(0.5)]],
  ["floor.warm.ping", [warm(0.5), warm(0.5), warm(0.5)]],
]);
const summary: RunSummary = {
  rows: [...samples].map(([k, xs]) => summarize(LEGACY_BOOK.get(k.split(".")[0]), k.split(".").slice(1).join("."), xs)),
  throughput: [],
  sides: LEGACY_BOOK,
};

describe("the run model: every table's figures, computed once", () => {
  it("the README's model: one client column per side, the DO's own clock beside its own, no baseline row", () => {
    const m = readmeModel(summary, samples);
    expect(m.columns).toEqual([
      { side: "rivet", clock: "client" },
      { side: "cloudflare", clock: "client" },
      { side: "cloudflare", clock: "own" },
      { side: "floor", clock: "client" },
    ]);
    expect(m.rows.map((r) => r.label)).toEqual(["Warm request (no storage)"]);
    expect(m.rows[0].cells.map((c) => c?.p50)).toEqual([2, 1.5, 1, 0.5]);
    expect(m.totals).toEqual({ errors: 0, notCold: 0, restarts: 0 });
  });
  it("the headline's model: each side on its own clock, the floor a column only where measured, the baseline a row of its own", () => {
    const m = headlineModel(summary, samples);
    expect(m.sides).toEqual(["rivet", "cloudflare", "floor"]);
    expect(m.rows.map((r) => r.label)).toEqual(["Warm request (no storage)", "Client to Worker, no DO call (/noop)"]);
    const first = m.rows[0];
    expect(first.kind === "stage" && first.cells.map((c) => c?.p50)).toEqual([2, 1, 0.5]);
    const noFloor = { ...summary, rows: summary.rows.filter((r) => r.side !== "floor") };
    expect(headlineModel(noFloor).sides).toEqual(["rivet", "cloudflare"]);
  });
  it("the same-clock model subtracts each baseline from its own side's client round trip; the floor model needs a floor", () => {
    const same = sameClockModel(samples, LEGACY_BOOK)!;
    expect(same.baselines.map((b) => [b.side, b.id, b.p?.p50])).toEqual([["cloudflare", "baseline.noop", 0.5]]);
    expect(same.rows[0].minusBaseline).toEqual([1]);
    const floor = controlCostModel(samples, LEGACY_BOOK)!;
    expect(floor.rows[0].cells.map((c) => c?.p50)).toEqual([2, 1.5]);
    expect(controlCostModel(new Map([...samples].filter(([k]) => !k.startsWith("floor."))), LEGACY_BOOK)).toBeNull();
  });
});

describe("cost per million operations", () => {
  const t = DEFAULT_PRICES;
  const p = t.prices;
  const usage = LEGACY_BOOK.get("cloudflare").pricing![0];
  const [cpu, units] = LEGACY_BOOK.get("rivet").pricing!;
  const base = summary.rows[0];
  it("prices a DO call by the published formula from its measured units: two requests, its wall time at 128 MB, its rows", () => {
    const row = { ...base, mean: 20, rowsPerOp: { read: 1, written: 0, n: 9 } };
    const want = p.workersRequests.usd + p.doRequests.usd + 0.02 * 0.125 * p.doDurationGbS.usd + 1 * p.doRowsRead.usd;
    expect(costCell(row, "cloudflare", usage, t).usdPerMillion).toBeCloseTo(want, 12);
    expect(costCell({ ...base, mean: 20 }, "cloudflare", usage, t)).toMatchObject({
      usdPerMillion: null,
      missing: "rows read and written not measured in this run",
    });
  });
  it("prices a self-hosted operation by its measured CPU over the stated utilisation; a service's own units are not priced", () => {
    const row = { ...base, cpu: { ownMsPerOp: 30, driverMsPerOp: 1, ops: 10, processes: {}, resolutionMs: 1 } };
    expect(costCell(row, "rivet", cpu, t).usdPerMillion).toBeCloseTo((1e6 * 0.03 * p.rivetComputeVcpuS.usd) / 0.5, 12);
    expect(costCell(row, "rivet", units, t)).toMatchObject({
      usdPerMillion: null,
      missing: "its reads and writes are not units this run counts",
    });
  });
  it("one cell of each side of a committed run, from its hashed stage records and the price table", () => {
    const dir = resolve(__dirname, "../../results/local/20261205T0153Z");
    const m = verifyRunDir(dir);
    const model = costModel(summarizeRun(dir, m))!;
    const cell = (metric: string, side: string, name: string) =>
      model.rows.find((r) => r.metric === metric)!.cells.find((c) => c.side === side && c.pricing === name)!;
    // Rivet, self-hosted: the Engine's and the app's CPU over the successful creates, from the stage record.
    const st = JSON.parse(readFileSync(join(dir, "stages", "rivet.create.ping.json"), "utf8")) as StageRecord;
    const ops = st.repetitions!.reduce((n, r) => n + r.attempts - r.errors, 0);
    const ownMs = st.repetitions!.reduce(
      (n, r) => n + (r.notes!.cpuMs as Record<string, number>).engine + (r.notes!.cpuMs as Record<string, number>).app,
      0,
    );
    expect(cell("create.ping", "rivet", cpu.name).usdPerMillion).toBeCloseTo(
      (1e6 * (ownMs / ops / 1000) * p.rivetComputeVcpuS.usd) / t.assumptions.selfHostedUtilisation,
      9,
    );
    // The DO: this run predates the row counts, so its cell says so rather than guess them.
    expect(cell("warm.ping", "cloudflare", usage.name)).toMatchObject({
      usdPerMillion: null,
      missing: "rows read and written not measured in this run",
    });
  });
});

describe("cost against sustained load", () => {
  const t = DEFAULT_PRICES;
  const vcpuS = t.prices.rivetComputeVcpuS.usd;
  const row = (side: string, metric: string, extra: object) => ({
    ...summarize(LEGACY_BOOK.get(side), metric, [warm(2)]),
    mean: 20,
    ...extra,
  });
  const s: RunSummary = {
    rows: [
      row("rivet", "warm.ping", { cpu: { ownMsPerOp: 4, driverMsPerOp: 1, ops: 10, processes: {}, resolutionMs: 1 } }),
      row("cloudflare", "warm.ping", { rowsPerOp: { read: 0, written: 0, n: 1 } }),
      row("rivet", "create.ping", { cpu: { ownMsPerOp: 40, driverMsPerOp: 1, ops: 10, processes: {}, resolutionMs: 1 } }),
      row("cloudflare", "create.ping", { rowsPerOp: { read: 0, written: 0, n: 1 } }),
    ],
    throughput: [],
    sides: LEGACY_BOOK,
  };
  const held = (op: CapacityCurve["op"], low: number): CapacityCurve => ({
    side: "rivet",
    op,
    objective: { p99Ms: 100, maxFailureShare: 0.001 },
    reps: [],
    range: { low, high: low * 1.2 },
    held: { estimate: null, lo: null, hi: null, none: "no repetition" },
    steps: [],
  });

  it("a machine priced by CPU costs its price over the load, down to the rate it held; a price per operation is flat; the crossing is where they meet", () => {
    const cost = costModel(s, t)!;
    const m = costLoadModel(cost, s, [held("warm", 400)], 2)!;
    const warmOp = m.ops.find((o) => o.op === "warm")!;
    const doWarm = warmOp.flat.find((f) => f.side === "cloudflare")!.usdPerMillion;
    expect(doWarm).toBeCloseTo(t.prices.workersRequests.usd + t.prices.doRequests.usd + 0.02 * 0.125 * t.prices.doDurationGbS.usd, 12);
    const [machine] = warmOp.machine;
    expect(machine).toMatchObject({ side: "rivet", maxLoad: 400, maxFrom: "capacity" });
    // At the rate held, two vCPUs for a second over 400 operations, per million.
    expect(machine.points.at(-1)!.usdPerMillion).toBeCloseTo((2 * vcpuS * 1e6) / 400, 12);
    expect(machine.points[0].load).toBeCloseTo(400 / 1e4, 12);
    const crossing = (2 * vcpuS * 1e6) / doWarm;
    expect(machine.cheaperAbove).toEqual([{ side: "cloudflare", pricing: "published formula", load: crossing <= 400 ? crossing : null }]);
    // No capacity for creates in the run: the curve ends where the measured CPU per create fills both vCPUs.
    expect(m.ops.find((o) => o.op === "create")!.machine[0]).toMatchObject({ maxLoad: (2 * 1000) / 40, maxFrom: "cpu" });
  });

  it("has nothing to draw without a side priced by CPU or without the machine's vCPUs", () => {
    const noCpu = { ...s, rows: s.rows.filter((r) => r.side !== "rivet") };
    expect(costLoadModel(costModel(noCpu, t), noCpu, [], 2)).toBeNull();
    expect(costLoadModel(costModel(s, t), s, [], Number.NaN)).toBeNull();
  });
});
