import { describe, expect, it } from "vitest";
import * as vega from "vega";
import * as vl from "vega-lite";
import { chartSpecs } from "./charts";
import { barLogDomain, capacityChartData, idleChartData } from "./chartData";
import { loadRun } from "./load";
import { CATALOG, sideMeasures, type Side } from "../contract/catalog";
import { LEGACY_BOOK } from "../contract/sideProfile";

const SIDES = LEGACY_BOOK.order;
import { fixture, type S } from "../../test/fixtures";

const run = (n: number, ms: number, cold = false): S[] => Array.from({ length: n }, (_, i) => ({ ms: ms + (i % 7) * 0.1, cold }));
const createOf = (side: Side) => (side === "cloudflare" ? "create.unique" : "create.ping");

/** A run with warm, create, write and wake stages on all three sides, far apart in speed. */
function threeSides() {
  const stages: Record<string, { samples: S[] }> = {};
  SIDES.forEach((side, k) => {
    const f = [10, 1, 0.3][k];
    stages[`${side}.warm.ping`] = { samples: run(40, 3 * f) };
    stages[`${side}.${createOf(side)}`] = { samples: run(30, 80 * f, true) };
    stages[`${side}.sqlite.write`] = { samples: run(30, 5 * f) };
    stages[`${side}.wake.ping`] = { samples: run(20, 40 * f, true) };
  });
  const l = loadRun(fixture(stages));
  return chartSpecs(l.m, l.samples, l.summary);
}

/** Every colour encoding of a spec, its layers' included. */
function colours(spec: Record<string, unknown>): Array<{ field?: string; scale?: { domain?: unknown[]; range?: unknown[] } }> {
  const own = (spec.encoding as { color?: object } | undefined)?.color;
  const layers = (spec.layer as Array<Record<string, unknown>> | undefined) ?? [];
  return [...(own ? [own] : []), ...layers.flatMap((l) => colours(l))] as never;
}

/** The drawn scene's items of one mark type (rect for bars, text for labels), in data order. */
async function drawn(
  spec: vl.TopLevelSpec,
  marktype: string,
): Promise<Array<{ y: number; height?: number; text?: string; bounds: { x1: number; x2: number; y1: number; y2: number } }>> {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" });
  await view.runAsync();
  const out: Awaited<ReturnType<typeof drawn>> = [];
  const walk = (node: { marktype?: string; role?: string; items?: unknown[] }) => {
    if (node.marktype === marktype && node.role === "mark") out.push(...(node.items as typeof out));
    for (const c of (node.items ?? []) as Array<typeof node>) if (c && typeof c === "object") walk(c);
  };
  walk((view.scenegraph() as unknown as { root: never }).root);
  view.finalize();
  return out;
}

describe("the charts' specs", () => {
  it("give each side one colour, the catalog's, in every chart that colours by side", () => {
    const specs = threeSides();
    expect(specs.map((s) => s.name)).toEqual(expect.arrayContaining(["headline", "same-clock", "cdf-warm", "cdf-create", "hist-create"]));
    for (const { name, spec } of specs) {
      const cs = colours(spec as never);
      expect(cs.length, `${name} is coloured`).toBeGreaterThan(0);
      for (const c of cs) {
        expect(c.field, name).toBe("sideShort");
        expect(c.scale?.domain, name).toEqual(SIDES.map((s) => LEGACY_BOOK.get(s).short));
        expect(c.scale?.range, name).toEqual(SIDES.map((s) => LEGACY_BOOK.get(s).colour));
      }
    }
    expect(new Set(SIDES.map((s) => LEGACY_BOOK.get(s).colour)).size).toBe(SIDES.length);
  });

  it("draw the same-clock bars on a log scale, each with height and its p50 written above it", async () => {
    const spec = threeSides().find((s) => s.name === "same-clock")!.spec;
    const values = (spec.data as { values: Array<{ ms: number }> }).values;
    // Three sides, ten times apart: on a linear axis the floor's bars would be under a pixel.
    expect(Math.max(...values.map((v) => v.ms)) / Math.min(...values.map((v) => v.ms))).toBeGreaterThan(100);
    const bars = await drawn(spec, "rect");
    expect(bars.length).toBe(values.length);
    for (const b of bars) expect(b.height ?? 0).toBeGreaterThan(5);
    const labels = (await drawn(spec, "text")).map((t) => t.text);
    expect(labels.length).toBe(values.length);
    expect(labels).toContain(String(Number(values[0].ms.toPrecision(3))));
  });

  it("keep the bars' labels apart (no two overlap), even where two sides' values are equal", async () => {
    const stages: Record<string, { samples: S[] }> = {};
    // Every side on the same values, the DO's client clock included: three bars of one height side by side.
    const same = (ms: number, cold = false): S[] => run(20, ms, cold).map((x) => ({ ...x, clientMs: x.ms }));
    // Every headline row, so the bars are as narrow as in a full run.
    for (const e of CATALOG.filter((x) => x.label && !x.throughput))
      for (const side of SIDES.filter((x) => sideMeasures(LEGACY_BOOK.get(x), e.id)))
        stages[`${side}.${e.id}`] = { samples: same(1.23, e.kind === "cold") };
    const l = loadRun(fixture(stages));
    const spec = chartSpecs(l.m, l.samples, l.summary).find((s) => s.name === "same-clock")!.spec;
    const labels = await drawn(spec, "text");
    expect(labels.length).toBe((spec.data as { values: unknown[] }).values.length);
    expect(labels.length).toBeGreaterThanOrEqual(30);
    const clash: string[] = [];
    labels.forEach((a, i) =>
      labels.slice(i + 1).forEach((b) => {
        if (a.bounds.x1 < b.bounds.x2 && b.bounds.x1 < a.bounds.x2 && a.bounds.y1 < b.bounds.y2 && b.bounds.y1 < a.bounds.y2)
          clash.push(`${a.text} / ${b.text}`);
      }),
    );
    expect(clash).toEqual([]);
  });

  it("draw each bar's 95% interval over repetitions as a rule, its label above the rule; none from one repetition", async () => {
    // Three repetitions whose p50s differ (10, 12, 14 ms on Rivet's warm ping), the DO's client clock beside its Worker's.
    const reps = (base: number, cold = false): S[] =>
      [0, 1, 2].flatMap((rep) => run(21, base * (1 + 0.2 * rep), cold).map((x) => ({ ...x, rep, clientMs: x.ms + 0.3 })));
    const stages = {
      "rivet.warm.ping": { samples: reps(10) },
      "cloudflare.warm.ping": { samples: reps(10) },
      "rivet.create.ping": { samples: reps(50, true) },
    };
    const l = loadRun(fixture(stages, { repetitions: 3 }));
    const spec = chartSpecs(l.m, l.samples, l.summary).find((c) => c.name === "same-clock")!.spec;
    const values = (spec.data as { values: Array<{ metric: string; sideShort: string; ms: number; lo: number | null; hi: number | null }> })
      .values;
    const warm = values.find((v) => v.metric === "warm.ping" && v.sideShort === "Rivet")!;
    expect(warm.lo!).toBeLessThan(12);
    expect(warm.hi!).toBeGreaterThan(12);
    // The DO on the driver's clock has its own interval, from its clientMs.
    expect(values.find((v) => v.metric === "warm.ping" && v.sideShort === "DO")!.lo).not.toBeNull();
    const rules = await drawn(spec, "rule");
    expect(rules.length).toBe(values.filter((v) => v.lo !== null).length);
    const labels = await drawn(spec, "text");
    // Screen y grows downwards: every label's foot is at or above its rule's top, so none crosses a rule.
    for (const r of rules) {
      const over = labels.filter(
        (t) => t.bounds.x1 < r.bounds.x2 + 6 && r.bounds.x1 - 6 < t.bounds.x2 && t.bounds.y2 > r.bounds.y1 + 1 && t.bounds.y1 < r.bounds.y2,
      );
      expect(over.map((t) => t.text)).toEqual([]);
    }
    const one = loadRun(fixture({ "rivet.warm.ping": { samples: run(20, 5) } }));
    const single = chartSpecs(one.m, one.samples, one.summary).find((c) => c.name === "same-clock")!.spec;
    expect((single.data as { values: Array<{ lo: unknown }> }).values.every((v) => v.lo === null)).toBe(true);
  });

  it("label the headline's bars on each side's own clock", async () => {
    const spec = threeSides().find((s) => s.name === "headline")!.spec;
    const values = (spec.data as { values: unknown[] }).values;
    expect((await drawn(spec, "text")).length).toBe(values.length);
  });

  it("put a log bar chart's foot at the power of ten below its smallest value", () => {
    expect(barLogDomain([0.35, 80])).toEqual([0.1, 160]);
    expect(barLogDomain([1, 3])).toEqual([0.1, 6]);
    expect(barLogDomain([12, 40])[0]).toBe(10);
  });
});

describe("the interval data of the capacity, idle and scale charts", () => {
  const book = LEGACY_BOOK;
  it("adds one knee row per side and operation, at the objective's height, with the estimate's 95% interval; none where nothing held", () => {
    const step = { rep: 0, ratePerSecond: 100, p99: 20, held: true } as never;
    const curve = (estimate: number | null, lo: number | null, hi: number | null) =>
      ({ side: "rivet", op: "warm", objective: { p99Ms: 100 }, held: { estimate, lo, hi }, steps: [step] }) as never;
    const rows = capacityChartData([curve(300, 200, 450)], book);
    expect(rows.filter((r) => r.kind === "step")).toHaveLength(1);
    expect(rows.find((r) => r.kind === "knee")).toMatchObject({ rate: 300, p99: 100, lo: 200, hi: 450, sideShort: "Rivet" });
    expect(capacityChartData([curve(null, null, null)], book).some((r) => r.kind === "knee")).toBe(false);
  });
  it("gives the idle chart's p50 its interval, drawn from the axis's floor where its lower end is at or below zero; the p90 none", () => {
    const step = {
      side: "rivet",
      idleMs: 30_000,
      label: "30 s",
      n: 60,
      cold: 60,
      p50: 30,
      p90: 46,
      p50Interval: { lo: -2, hi: 380 },
    } as never;
    const [p50, p90] = idleChartData([step], book);
    expect([p50.percentile, p50.lo, p50.hi]).toEqual(["p50", 0.01, 380]);
    expect([p90.percentile, p90.lo, p90.hi]).toEqual(["p90", null, null]);
  });
});
