import { describe, expect, it } from "vitest";
import { LEGACY_BOOK } from "../contract/sideProfile";
import { summarize, type RawSample, type RunSummary } from "../stats/summary";
import { controlCostModel, headlineModel, readmeModel, sameClockModel } from "./model";

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
