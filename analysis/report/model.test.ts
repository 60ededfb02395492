import { describe, expect, it } from "vitest";
import { LEGACY_BOOK } from "../contract/sideProfile";
import { summarize, type RawSample, type RunSummary } from "../stats/summary";
import { controlCostModel, costCell, costModel, headlineModel, readmeModel, sameClockModel } from "./model";
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
const summary: RunSummary = { rows: [...samples].map(([k, xs]) => summarize(LEGACY_BOOK.get(k.split(".")[0]), k.split(".").slice(1).join("."), xs)), throughput: [], sides: LEGACY_BOOK };

describe("the run model: every table's figures, computed once", () => {
  it("the README's model: one client column per side, the DO's own clock beside its own, no baseline row", () => {
    const m = readmeModel(summary, samples);
    expect(m.columns).toEqual([{ side: "rivet", clock: "client" }, { side: "cloudflare", clock: "client" }, { side: "cloudflare", clock: "own" }, { side: "floor", clock: "client" }]);
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
    expect(costCell({ ...base, mean: 20 }, "cloudflare", usage, t)).toMatchObject({ usdPerMillion: null, missing: "rows read and written not measured in this run" });
  });
  it("prices a self-hosted operation by its measured CPU over the stated utilisation; a service's own units are not priced", () => {
    const row = { ...base, cpu: { ownMsPerOp: 30, driverMsPerOp: 1, ops: 10, processes: {}, resolutionMs: 1 } };
    expect(costCell(row, "rivet", cpu, t).usdPerMillion).toBeCloseTo((1e6 * 0.03 * p.rivetComputeVcpuS.usd) / 0.5, 12);
    expect(costCell(row, "rivet", units, t)).toMatchObject({ usdPerMillion: null, missing: "its reads and writes are not units this run counts" });
  });
  it("one cell of each side of a committed run, from its hashed stage records and the price table", () => {
    const dir = resolve(__dirname, "../../results/local/20261205T0153Z");
    const m = verifyRunDir(dir);
    const model = costModel(summarizeRun(dir, m))!;
    const cell = (metric: string, side: string, name: string) => model.rows.find((r) => r.metric === metric)!.cells.find((c) => c.side === side && c.pricing === name)!;
    // Rivet, self-hosted: the Engine's and the app's CPU over the successful creates, from the stage record.
    const st = JSON.parse(readFileSync(join(dir, "stages", "rivet.create.ping.json"), "utf8")) as StageRecord;
    const ops = st.repetitions!.reduce((n, r) => n + r.attempts - r.errors, 0);
    const ownMs = st.repetitions!.reduce((n, r) => n + (r.notes!.cpuMs as Record<string, number>).engine + (r.notes!.cpuMs as Record<string, number>).app, 0);
    expect(cell("create.ping", "rivet", cpu.name).usdPerMillion).toBeCloseTo((1e6 * (ownMs / ops / 1000) * p.rivetComputeVcpuS.usd) / t.assumptions.selfHostedUtilisation, 9);
    // The DO: this run predates the row counts, so its cell says so rather than guess them.
    expect(cell("warm.ping", "cloudflare", usage.name)).toMatchObject({ usdPerMillion: null, missing: "rows read and written not measured in this run" });
  });
});
