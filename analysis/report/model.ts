/**
 * A run summarised once into the tables every view shows: the headline on
 * each side's own clock with its throughput and open-model rows, the README's
 * one-clock headline, the same-clock table and the cost over the control. Pure:
 * every figure is computed here from the verified samples and the summary;
 * results.md, the README, the site's pages and the index only render it.
 */
import { CATALOG, isColdMetric, sideMeasures, THROUGHPUT_TEXT } from "../contract/catalog";
import { controlsOf, runtimesOf, type Pricing, type SideBook } from "../contract/sideProfile";
import { flagged } from "../contract/machineLimits";
import { clientPercentiles, statsOf, type Percentiles, type RunSamples, type RunSummary, type SummaryRow } from "../stats/summary";
import { scaleRows, type ScaleRow } from "../stats/scale";
import type { ManifestLike } from "../contract/runDirContract";
import type { CpuPerOp } from "../stats/cpuPerOp";
import { memoryPerActor, type MemoryPerActor } from "../stats/memory";
import { DEFAULT_PRICES, type Price, type PriceTable } from "../contract/prices";
import { capacityCurves, type CapacityCurve } from "../stats/capacity";
import { claimsLedger, type LedgerRow } from "../stats/claims";
import { alarmRows, type AlarmRow } from "../stats/alarms";
import { hopRows, type HopRow } from "../stats/hopRows";
import { payloadRows, type PayloadRow } from "../stats/payload";
import { idleSteps, type IdleStep } from "../stats/idle";
import { CAPACITY_OPS, type CapacityOp } from "../contract/capacity";
import { stageKey } from "../contract/runDirContract";

/** One side's figures in a headline row: its percentiles, n, failures and wrong cold flags (not cold on a create or wake, restarts elsewhere). */
export interface StageCell {
  p50: number;
  p90: number;
  p99: number;
  n: number;
  errors: number;
  wrongCold: number;
  /** More than FLAG_FAILURE_SHARE of the stage's attempts failed. */
  flagged: boolean;
}

type HeadlineRow =
  | { kind: "stage"; label: string; cells: Array<StageCell | null> }
  /** An interval the actor itself reports, on the sides whose actor reports it. */
  | { kind: "inActor"; label: string; cells: Array<Percentiles | null> };

export interface ThroughputCell {
  perSecond: number;
  errors: number;
  attempts: number;
  /** The driver's measured rate, where the side's own method is another (Little's law). */
  measuredPerSecond?: number;
}

export interface OpenModelRow {
  side: string;
  targetPerSecond: number;
  perSecond: number;
  errors: number;
  attempts: number;
  latency: Pick<SummaryRow, "p50" | "p90" | "p99" | "n"> | null;
}

/** The headline in the reference's shape: each side on its own clock. */
export interface HeadlineModel {
  /** The columns' sides: every runtime, a control where the run measured it. */
  sides: string[];
  rows: HeadlineRow[];
  throughput: Array<{ label: string; cells: Array<ThroughputCell | null> }>;
  open: OpenModelRow[];
}

/** The README's headline: one clock on every side, a side's own clock beside it where that is another. */
export interface ReadmeModel {
  columns: Array<{ side: string; clock: "client" | "own" }>;
  rows: Array<{ label: string; cells: Array<{ p50: number; p99: number } | null>; ns: number[] }>;
  totals: { errors: number; notCold: number; restarts: number };
}

/** The same clock on every side: each side's client round trip per row, and each baseline (a call that reaches no actor) subtracted. */
export interface SameClockModel {
  sides: string[];
  baselines: Array<{ side: string; id: string; p: Percentiles | null }>;
  rows: Array<{ label: string; cells: Array<Percentiles | null>; minusBaseline: Array<number | null> }>;
}

/** Each runtime's p50 over the control's (the side with no actor system), on the driver's clock. */
export interface ControlCostModel {
  control: string;
  runtimes: string[];
  rows: Array<{ label: string; control: Percentiles; cells: Array<{ p50: number } | null> }>;
}

/** CPU per successful operation, per headline row and side: the side's own processes and the driver's apart. */
export interface CpuModel {
  sides: string[];
  rows: Array<{ label: string; metric: string; cells: Array<CpuPerOp | null> }>;
}

/** SQLite rows read and written per successful operation, where a side's runtime counts them (the units some runtimes bill storage by). */
export interface RowsModel {
  sides: string[];
  rows: Array<{ label: string; cells: Array<{ read: number; written: number; n: number } | null> }>;
}

/** One priced cell: a side's operation under one of its ways of pricing, or why it is not priced. */
interface CostCell {
  side: string;
  pricing: string;
  usdPerMillion: number | null;
  /** Where usdPerMillion is null: why (a unit this run did not measure, a unit it does not count). */
  missing?: string;
}

/** Cost per million operations, per headline row, each side under its ways of pricing, with the price table used. */
export interface CostModel {
  prices: PriceTable;
  columns: Array<{ side: string; pricing: Pricing }>;
  rows: Array<{ label: string; metric: string; cells: CostCell[] }>;
}

/**
 * Cost per million operations against sustained load: a side priced by its
 * CPU pays for its machine whatever the load (this run's vCPUs at the
 * vCPU-second price), so its cost per operation falls as the load rises, up
 * to the most the machine holds; a side priced by usage costs the same per
 * operation at any load.
 */
export interface CostLoadModel {
  vcpus: number;
  vcpuPrice: Price;
  ops: Array<{
    op: CapacityOp;
    metric: string;
    /** Sides priced per operation: flat. */
    flat: Array<{ side: string; pricing: string; usdPerMillion: number }>;
    /** Sides priced by CPU: the machine's cost over the load, down to the load it holds. */
    machine: Array<{
      side: string;
      pricing: string;
      /** The most load the curve reaches, per second, and where that figure comes from. */
      maxLoad: number;
      maxFrom: "capacity" | "cpu";
      points: Array<{ load: number; usdPerMillion: number }>;
      /** The load above which this side is the cheaper, against each flat one (null: not within maxLoad). */
      cheaperAbove: Array<{ side: string; pricing: string; load: number | null }>;
    }>;
  }>;
}

export interface RunModel {
  sides: SideBook;
  /** The idle ladder: wakes against idle length, per side and step. */
  idle: IdleStep[];
  /** The capacity group's curves, per side and operation. */
  capacity: CapacityCurve[];
  costLoad: CostLoadModel | null;
  /** Memory per sleeping and per live actor, per side, from the scaling group. */
  memory: MemoryPerActor[];
  cost: CostModel | null;
  cpu: CpuModel | null;
  storageRows: RowsModel | null;
  headline: HeadlineModel;
  readme: ReadmeModel;
  sameClock: SameClockModel | null;
  controlCost: ControlCostModel | null;
  scale: ScaleRow[];
  /** Writes and reads by value size, per side and size. */
  payload: PayloadRow[];
  /** Alarm lateness per side, delay and case. */
  alarms: AlarmRow[];
  /** Each vendor and reference claim beside this run's figure, with its verdict. */
  claims: LedgerRow[];
  /** Where each captured stage's calls spend their time, hop by hop (a run made with --capture). */
  hops: HopRow[];
}

const rowOf = (s: RunSummary, side: string, metric: string) => s.rows.find((r) => r.side === side && r.metric === metric);

/** A table's side columns: every runtime always (a side not run shows "-"), a control where the run measured it. */
export function tableSides(book: SideBook, measured: ReadonlySet<string>): string[] {
  return [...runtimesOf(book), ...controlsOf(book).filter((x) => measured.has(x))];
}

const stageCell = (r: SummaryRow | undefined): StageCell | null =>
  r
    ? {
        p50: r.p50,
        p90: r.p90,
        p99: r.p99,
        n: r.n,
        errors: r.errors,
        wrongCold: isColdMetric(r.metric) ? r.notCold : r.restarts,
        flagged: flagged(r.n + r.errors + r.notCold, r.errors),
      }
    : null;

export function headlineModel(s: RunSummary, samples: RunSamples = new Map()): HeadlineModel {
  const sides = tableSides(s.sides, new Set(s.rows.map((r) => r.side)));
  const rows: HeadlineRow[] = [];
  for (const e of CATALOG) {
    if (!e.label || rows.some((r) => r.label === e.label)) continue;
    const per = sides.map((side) => rowOf(s, side, e.id));
    if (per.every((r) => !r)) continue;
    rows.push({ kind: "stage", label: e.label, cells: per.map(stageCell) });
    if (e.inActor) {
      const cells = sides.map((side) => statsOf(samples, side, e.id)?.interval(e.inActor!.field) ?? null);
      if (cells.some((c) => c !== null)) rows.push({ kind: "inActor", label: e.inActor.label, cells });
    }
  }
  const throughput: HeadlineModel["throughput"] = [];
  for (const e of CATALOG.filter((x) => x.throughputLabel)) {
    const cells = sides.map((side): ThroughputCell | null => {
      const at = (method: string) => s.throughput.find((t) => t.side === side && t.metric === e.id && t.method === method);
      const own = at(s.sides.get(side).throughputMethod);
      const measured = at("measured");
      if (!own) return null;
      return {
        perSecond: own.perSecond,
        errors: own.errors,
        attempts: own.attempts,
        ...(own !== measured && measured ? { measuredPerSecond: measured.perSecond } : {}),
      };
    });
    if (cells.some((c) => c !== null)) throughput.push({ label: e.throughputLabel!, cells });
  }
  const open = s.throughput
    .filter((t) => t.method === "open-model")
    .map((t): OpenModelRow => {
      const r = rowOf(s, t.side, t.metric);
      return {
        side: t.side,
        targetPerSecond: t.targetPerSecond ?? Number.NaN,
        perSecond: t.perSecond,
        errors: t.errors,
        attempts: t.attempts,
        latency: r ? { p50: r.p50, p90: r.p90, p99: r.p99, n: r.n } : null,
      };
    });
  return { sides, rows, throughput, open };
}

export function readmeModel(s: RunSummary, samples: RunSamples): ReadmeModel {
  const measured = new Set(s.rows.map((r) => r.side));
  const columns = s.sides.order.flatMap((side) =>
    s.sides.get(side).msIsClientClock
      ? [{ side, clock: "client" as const }]
      : [
          { side, clock: "client" as const },
          { side, clock: "own" as const },
        ],
  );
  const cell = (c: ReadmeModel["columns"][number], id: string) => {
    if (c.clock === "own") return rowOf(s, c.side, id) ?? null;
    return measured.has(c.side) ? clientPercentiles(samples, c.side, id) : null;
  };
  const rows: ReadmeModel["rows"] = [];
  for (const e of CATALOG) {
    if (!e.label || e.kind === "baseline") continue;
    const cells = columns.map((c) => cell(c, e.id));
    if (cells.every((c) => c === null)) continue;
    rows.push({ label: e.label, cells, ns: [...new Set(s.rows.filter((r) => r.metric === e.id).map((r) => r.n))] });
  }
  const sum = (k: "errors" | "notCold" | "restarts") => s.rows.reduce((t, r) => t + r[k], 0);
  return { columns, rows, totals: { errors: sum("errors"), notCold: sum("notCold"), restarts: sum("restarts") } };
}

export function sameClockModel(samples: RunSamples, book: SideBook): SameClockModel | null {
  const sides = tableSides(book, new Set([...samples.keys()].map((k) => k.split(".")[0])));
  const baselines = sides.flatMap((side) => {
    const e = CATALOG.find((x) => x.kind === "baseline" && sideMeasures(book.get(side), x.id));
    return e ? [{ side, id: e.id, p: clientPercentiles(samples, side, e.id) }] : [];
  });
  const rows: SameClockModel["rows"] = [];
  for (const e of CATALOG) {
    if (!e.label || e.kind === "baseline" || rows.some((r) => r.label === e.label)) continue;
    const cells = sides.map((side) => clientPercentiles(samples, side, e.id));
    if (cells.every((c) => c === null)) continue;
    const minusBaseline = baselines.map((b) => {
      const c = clientPercentiles(samples, b.side, e.id);
      return c && b.p ? c.p50 - b.p.p50 : null;
    });
    rows.push({ label: e.label, cells, minusBaseline });
  }
  return rows.length ? { sides, baselines, rows } : null;
}

export function controlCostModel(samples: RunSamples, book: SideBook): ControlCostModel | null {
  const control = controlsOf(book).find((x) => [...samples.keys()].some((k) => k.startsWith(`${x}.`)));
  if (!control) return null;
  const runtimes = runtimesOf(book);
  const rows: ControlCostModel["rows"] = [];
  for (const e of CATALOG) {
    if (!e.label || e.kind === "baseline" || !sideMeasures(book.get(control), e.id) || rows.some((r) => r.label === e.label)) continue;
    const f = clientPercentiles(samples, control, e.id);
    if (!f) continue;
    rows.push({ label: e.label, control: f, cells: runtimes.map((side) => clientPercentiles(samples, side, e.id)) });
  }
  return rows.length ? { control, runtimes, rows } : null;
}

export function cpuModel(s: RunSummary): CpuModel | null {
  const sides = tableSides(s.sides, new Set(s.rows.map((r) => r.side)));
  const rows: CpuModel["rows"] = [];
  for (const e of CATALOG) {
    if (!e.label && !e.throughputLabel) continue;
    const cells = sides.map((side) => rowOf(s, side, e.id)?.cpu ?? null);
    if (cells.every((c) => c === null)) continue;
    rows.push({ label: e.label ?? e.throughputLabel!, metric: e.id, cells });
  }
  return rows.length ? { sides, rows } : null;
}

function rowsModel(s: RunSummary): RowsModel | null {
  const sides = tableSides(s.sides, new Set(s.rows.map((r) => r.side))).filter((side) =>
    s.rows.some((r) => r.side === side && r.rowsPerOp),
  );
  const rows: RowsModel["rows"] = [];
  for (const e of CATALOG) {
    if (!e.label && !e.throughputLabel) continue;
    const cells = sides.map((side) => rowOf(s, side, e.id)?.rowsPerOp ?? null);
    if (cells.every((c) => c === null)) continue;
    rows.push({ label: e.label ?? e.throughputLabel!, cells });
  }
  return rows.length ? { sides, rows } : null;
}

/**
 * One operation's cost per million, from the measured units and the price
 * table. usage: each request priced, the side's own-clock mean as its wall
 * time at the billed memory, and the rows it read and wrote; cpu: the side's
 * own processes' CPU time at a price per vCPU-second over the stated
 * utilisation; units: a service's units this run does not count, not priced.
 */
export function costCell(row: SummaryRow | undefined, side: string, pricing: Pricing, t: PriceTable): CostCell {
  const cell = (usdPerMillion: number | null, missing?: string): CostCell => ({
    side,
    pricing: pricing.name,
    usdPerMillion,
    ...(missing ? { missing } : {}),
  });
  if (!row || row.n === 0) return cell(null, "not measured");
  const p = t.prices;
  if (pricing.kind === "usage") {
    if (!row.rowsPerOp) return cell(null, "rows read and written not measured in this run");
    const gbS = (row.mean / 1000) * t.assumptions.doBilledGb;
    const requests = pricing.requests.reduce((sum, k) => sum + p[k].usd, 0);
    return cell(
      requests +
        gbS * p[pricing.durationGbS].usd +
        row.rowsPerOp.read * p[pricing.rowsRead].usd +
        row.rowsPerOp.written * p[pricing.rowsWritten].usd,
    );
  }
  if (pricing.kind === "cpu") {
    if (!row.cpu || row.cpu.ownMsPerOp === null) return cell(null, "the side's own CPU not measured in this run");
    return cell((1e6 * (row.cpu.ownMsPerOp / 1000) * p[pricing.vcpuSecond].usd) / t.assumptions.selfHostedUtilisation);
  }
  return cell(null, pricing.missing);
}

export function costModel(s: RunSummary, prices: PriceTable = DEFAULT_PRICES): CostModel | null {
  const columns = s.sides.order
    .filter((side) => s.rows.some((r) => r.side === side))
    .flatMap((side) => (s.sides.get(side).pricing ?? []).map((pricing) => ({ side, pricing })));
  if (columns.length === 0) return null;
  const rows: CostModel["rows"] = [];
  for (const e of CATALOG) {
    if (!e.label || e.kind === "baseline") continue;
    if (!columns.some((c) => rowOf(s, c.side, e.id))) continue;
    rows.push({ label: e.label, metric: e.id, cells: columns.map((c) => costCell(rowOf(s, c.side, e.id), c.side, c.pricing, prices)) });
  }
  return rows.length ? { prices, columns, rows } : null;
}

/** Which headline metric each capacity operation's cost is read from. */
const CAPACITY_METRIC: Record<(typeof CAPACITY_OPS)[number], string> = { warm: "warm.ping", create: "create.ping", write: "sqlite.write" };

/** Loads per decade the machine curves are drawn at. */
const POINTS_PER_DECADE = 4;
/** Decades below the most load a machine curve reaches. */
const DECADES = 4;

export function costLoadModel(
  cost: CostModel | null,
  summary: RunSummary,
  capacity: readonly CapacityCurve[],
  vcpus: number,
): CostLoadModel | null {
  if (!cost || !(vcpus > 0)) return null;
  const cpuCols = cost.columns.flatMap((c) => (c.pricing.kind === "cpu" ? [{ side: c.side, pricing: c.pricing }] : []));
  if (cpuCols.length === 0) return null;
  const vcpuPrice = cost.prices.prices[cpuCols[0].pricing.vcpuSecond];
  const ops: CostLoadModel["ops"] = [];
  for (const op of CAPACITY_OPS) {
    const metric = CAPACITY_METRIC[op];
    const row = cost.rows.find((r) => r.metric === metric);
    if (!row) continue;
    const flat = row.cells.flatMap((c, i) =>
      cost.columns[i].pricing.kind !== "cpu" && c.usdPerMillion !== null
        ? [{ side: c.side, pricing: c.pricing, usdPerMillion: c.usdPerMillion }]
        : [],
    );
    const machine: CostLoadModel["ops"][number]["machine"] = [];
    for (const col of cpuCols) {
      const own = rowOf(summary, col.side, metric)?.cpu?.ownMsPerOp;
      if (own === null || own === undefined || own <= 0) continue;
      // The machine's price for a million seconds: a million operations cost this over the load.
      const perMillionSeconds = vcpus * cost.prices.prices[col.pricing.vcpuSecond].usd * 1e6;
      const held = capacity.find((c) => c.side === col.side && c.op === op)?.range.low ?? null;
      const maxLoad = held ?? (vcpus * 1000) / own;
      const points = Array.from(
        { length: DECADES * POINTS_PER_DECADE + 1 },
        (_, k) => maxLoad / 10 ** ((DECADES * POINTS_PER_DECADE - k) / POINTS_PER_DECADE),
      ).map((load) => ({ load, usdPerMillion: perMillionSeconds / load }));
      const cheaperAbove = flat.map((f) => {
        const load = perMillionSeconds / f.usdPerMillion;
        return { side: f.side, pricing: f.pricing, load: load <= maxLoad ? load : null };
      });
      machine.push({
        side: col.side,
        pricing: col.pricing.name,
        maxLoad,
        maxFrom: held !== null ? "capacity" : "cpu",
        points,
        cheaperAbove,
      });
    }
    if (machine.length) ops.push({ op, metric, flat, machine });
  }
  return ops.length ? { vcpus, vcpuPrice, ops } : null;
}

/** The whole model of a verified run. */
/** `read`: a listed file's verified bytes (a run's captures); without it, no waterfall. */
export function runModel(
  m: ManifestLike,
  summary: RunSummary,
  samples: RunSamples,
  prices: PriceTable = DEFAULT_PRICES,
  read?: (file: string) => Buffer,
): RunModel {
  const capacity = capacityCurves(Object.values(m.stages), (st) => samples.get(stageKey(st.side, st.metric)) ?? [], summary.sides.order);
  const cost = costModel(summary, prices);
  const vcpus = Number((m.machine as { cpus?: unknown }).cpus);
  const memory = memoryPerActor(m);
  return {
    sides: summary.sides,
    idle: idleSteps(Object.values(m.stages), (st) => samples.get(stageKey(st.side, st.metric)) ?? [], summary.sides.order),
    capacity,
    costLoad: costLoadModel(cost, summary, capacity, vcpus),
    cost,
    memory,
    cpu: cpuModel(summary),
    storageRows: rowsModel(summary),
    headline: headlineModel(summary, samples),
    readme: readmeModel(summary, samples),
    sameClock: sameClockModel(samples, summary.sides),
    controlCost: controlCostModel(samples, summary.sides),
    scale: scaleRows(m, summary),
    payload: payloadRows(summary, samples),
    alarms: alarmRows(summary, samples),
    claims: claimsLedger({ cloud: m.stack !== "local", summary, samples, capacity, memory }),
    hops: read ? hopRows(m, (key) => samples.get(key) ?? [], read) : [],
  };
}

/** A throughput method's column head, as the headline's throughput table names it. */
export const throughputHead = (book: SideBook, side: string) =>
  `${book.get(side).short} (${THROUGHPUT_TEXT[book.get(side).throughputMethod].head})`;
