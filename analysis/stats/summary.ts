import { mean, nearestRank } from "./percentiles";
import { CLIENT_TICK_MS, isColdMetric, metricEntry, metricRank } from "../contract/catalog";
import { LEGACY_BOOK, sideBookOf, type SideBook, type SideProfile } from "../contract/sideProfile";
import { readSamples, stageSamples, stageKey, type ManifestLike, type Sample } from "../contract/runDirContract";
import { groupByRep, repSpread, type RepSpread } from "./repetitions";
import { cpuPerOp, type CpuPerOp } from "./cpuPerOp";

export { readSamples };
/**
 * A run's samples by "side.metric", with the run's sides where they are
 * known (loadRun); a plain map reads its sides as the profiles of the runs
 * made before manifests recorded them.
 */
export type RunSamples = ReadonlyMap<string, RawSample[]> & { readonly sides?: SideBook };

/** The samples of a run, with its sides. */
export function runSamples(entries: Iterable<[string, RawSample[]]>, sides: SideBook): Map<string, RawSample[]> & { sides: SideBook } {
  return Object.assign(new Map(entries), { sides });
}

/** The profile of a side as the samples' run has it. */
export const profileIn = (samples: RunSamples, side: string): SideProfile => (samples.sides ?? LEGACY_BOOK).get(side);

/** A sample as the statistics read it. */
export type RawSample = Pick<
  Sample,
  "ok" | "ms" | "cold" | "actorMs" | "sqlMs" | "clientMs" | "colo" | "rep" | "rowsRead" | "rowsWritten" | "lateMs" | "error"
>;

export interface SummaryRow {
  side: string;
  metric: string;
  /** Samples the percentiles are taken over. */
  n: number;
  errors: number;
  /** Successful samples of a create or wake whose cold flag did not prove a fresh start (left out of n); of an idle ladder step, those answered by a running actor (counted in n). */
  notCold: number;
  /** Successful samples of any other metric that hit a fresh instance: restarts inside the series (counted in n). */
  restarts: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  /** The same figures over repetitions: each one's percentiles, their spread, the intervals over them. */
  repetitions: RepSpread;
  /** Where `ms` is not the driver's clock (a side's own): the same over repetitions of the client's round trip. */
  clientRepetitions?: RepSpread;
  /** CPU per successful operation, the side's own processes and the driver's apart, where the stage record has CPU figures. */
  cpu?: CpuPerOp;
  /** SQLite rows read and written per successful operation, as the runtime's cursors counted them, over the `n` successful samples that carry the counts. */
  rowsPerOp?: { read: number; written: number; n: number };
}

/** The samples a metric's statistics are taken over: successful ones, and for a cold metric only proven-cold ones. */
function countedSamples(samples: readonly RawSample[], coldMetric: boolean): RawSample[] {
  return samples.filter((s) => s.ok && (!coldMetric || s.cold === true));
}

const ascending = (xs: number[]) => xs.sort((a, b) => a - b);

/**
 * One stage's statistics, computed once per stage and read by every view
 * (the summary rows, the report's tables, the charts, the site, the README
 * headline): its counted samples, their ms in order, the client round trip's
 * percentiles and, on demand, those of an interval the actor reports. Kept
 * per samples array, so each view that asks gets the same object.
 */
interface StageStatistics {
  side: string;
  metric: string;
  /** The samples the statistics are over (countedSamples). */
  counted: readonly RawSample[];
  /** The counted samples' ms, ascending: the side's own clock. */
  sortedMs: readonly number[];
  /** The client's round trip (the one clock of every side), or null where no sample has it. */
  client: Percentiles | null;
  /** Percentiles of an interval the actor reports, or null where none does. */
  interval(field: "actorMs" | "sqlMs"): Percentiles | null;
}

const STAGE_STATISTICS = new WeakMap<readonly RawSample[], StageStatistics>();

/** The statistics of one stage's samples (computed the first time a view asks). */
export function stageStatistics(profile: SideProfile, metric: string, samples: readonly RawSample[]): StageStatistics {
  const side = profile.id;
  const known = STAGE_STATISTICS.get(samples);
  if (known && known.side === side && known.metric === metric) return known;
  const counted = countedSamples(samples, isColdMetric(metric));
  const clientIsMs = msIsClientClock(profile, metric);
  const clientMs = counted.map((x) => (clientIsMs ? x.ms : x.clientMs)).filter((x): x is number => typeof x === "number");
  const intervals = new Map<string, Percentiles | null>();
  const stats: StageStatistics = {
    side,
    metric,
    counted,
    sortedMs: ascending(counted.map((x) => x.ms)),
    client: clientMs.length ? percentiles(clientMs) : null,
    interval(field) {
      if (!intervals.has(field)) {
        const xs = counted.map((x) => x[field]).filter((x): x is number => typeof x === "number");
        intervals.set(field, xs.length ? percentiles(xs) : null);
      }
      return intervals.get(field)!;
    },
  };
  STAGE_STATISTICS.set(samples, stats);
  return stats;
}

/** The statistics of a run's stage by side and metric, or null when the run has no such stage. */
export function statsOf(samples: RunSamples, side: string, metric: string): StageStatistics | null {
  const xs = samples.get(stageKey(side, metric));
  return xs ? stageStatistics(profileIn(samples, side), metric, xs) : null;
}

/** Statistics of one metric. For a cold metric (the catalog's kind) only samples with cold === true count. */
export function summarize(profile: SideProfile, metric: string, samples: readonly RawSample[]): SummaryRow {
  const side = profile.id;
  const coldMetric = isColdMetric(metric);
  const idleStep = metricEntry(metric)?.kind === "idle";
  let errors = 0;
  let notCold = 0;
  let restarts = 0;
  for (const s of samples) {
    if (!s.ok) errors++;
    else if (coldMetric && s.cold !== true) notCold++;
    // An idle step reports the cold flag as found: a running actor's answer is counted in n, and here.
    else if (idleStep) notCold += s.cold === true ? 0 : 1;
    else if (!coldMetric && s.cold === true) restarts++;
  }
  const { counted, sortedMs: xs } = stageStatistics(profile, metric, samples);
  const withClient = counted.filter((x) => typeof x.clientMs === "number");
  const clientRepetitions =
    !msIsClientClock(profile, metric) && withClient.length > 0
      ? repSpread(
          groupByRep(withClient, (x) => x.clientMs!),
          CLIENT_TICK_MS,
        )
      : undefined;
  const withRows = samples.filter((s) => s.ok && typeof s.rowsRead === "number" && typeof s.rowsWritten === "number");
  const rowsPerOp = withRows.length
    ? {
        read: withRows.reduce((t, s) => t + s.rowsRead!, 0) / withRows.length,
        written: withRows.reduce((t, s) => t + s.rowsWritten!, 0) / withRows.length,
        n: withRows.length,
      }
    : undefined;
  return {
    side,
    metric,
    n: xs.length,
    errors,
    notCold,
    restarts,
    p50: nearestRank(xs, 50),
    p90: nearestRank(xs, 90),
    p99: nearestRank(xs, 99),
    mean: mean(xs),
    repetitions: repSpread(
      groupByRep(counted, (s) => s.ms),
      msTick(profile, metric),
    ),
    ...(clientRepetitions ? { clientRepetitions } : {}),
    ...(rowsPerOp ? { rowsPerOp } : {}),
  };
}

const fmt = (x: number) => (Number.isNaN(x) ? "-" : x >= 100 ? x.toFixed(0) : x.toFixed(2));

/** Plain-text headline: p50 / p90 / p99 (nearest rank) with n, errors, notCold and restarts. */
export function headlineTable(rows: readonly SummaryRow[]): string {
  const head = ["side", "metric", "p50 / p90 / p99 ms", "n", "errors", "notCold", "restarts"];
  const body = rows.map((r) => [
    r.side,
    r.metric,
    `${fmt(r.p50)} / ${fmt(r.p90)} / ${fmt(r.p99)}`,
    String(r.n),
    String(r.errors),
    String(r.notCold),
    String(r.restarts),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

export interface Percentiles {
  n: number;
  p50: number;
  p90: number;
  p99: number;
}

/** p50/p90/p99, nearest rank, of any series (ms, actorMs, clientMs, ...); intervals come from repSpread, over repetitions. */
export function percentiles(values: readonly number[]): Percentiles {
  const xs = ascending([...values]);
  return { n: xs.length, p50: nearestRank(xs, 50), p90: nearestRank(xs, 90), p99: nearestRank(xs, 99) };
}

export interface ThroughputRow {
  side: string;
  metric: string;
  concurrency: number;
  perSecond: number;
  errors: number;
  attempts: number;
  /**
   * measured: completions / stage wall time (closed loop); littles-law: concurrency x 1000 / mean
   * own-clock ms (where the side's profile says so, as the reference does); open-model: completions / wall time at a constant arrival
   * rate, with `targetPerSecond` the rate requests were sent at.
   */
  method: "measured" | "littles-law" | "open-model";
  targetPerSecond?: number;
}

export interface RunSummary {
  rows: SummaryRow[];
  throughput: ThroughputRow[];
  /** The run's sides, from its manifest. */
  sides: SideBook;
}

/**
 * The stages a run recorded: the design's sides and metric ids in canonical
 * order first, then any others (open-model rates, the driver benchmark's
 * tools) by name, numbers in numeric order.
 */
export function orderedStages(m: ManifestLike): Array<{ side: string; metric: string; file: string }> {
  const sides = sideBookOf(m).order;
  const sideRank = (x: string) => (sides.includes(x) ? sides.indexOf(x) : sides.length);
  // Catalog order; anything else (the driver benchmark's own series) after it by name.
  const metricOrder = (x: string) => (metricRank(x) >= 0 ? metricRank(x) : Number.MAX_SAFE_INTEGER);
  const byName = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });
  return Object.values(m.stages)
    .map((st) => ({ side: st.side, metric: st.metric, file: st.file }))
    .sort(
      (a, b) =>
        sideRank(a.side) - sideRank(b.side) ||
        byName(a.side, b.side) ||
        metricOrder(a.metric) - metricOrder(b.metric) ||
        byName(a.metric, b.metric),
    );
}

/**
 * Headline rows and throughput of a run. Attempts, errors and completions are
 * counted from the samples; the wall time and concurrency come from the stage
 * record, which verifyRunDir has checked against its hashed file. The method
 * per side is its profile's.
 */
export function summarizeRun(
  dir: string,
  m: ManifestLike,
  load = (f: string): RawSample[] => stageSamples(dir, m, Object.values(m.stages).find((st) => st.file === f)!),
): RunSummary {
  const rows: SummaryRow[] = [];
  const throughput: ThroughputRow[] = [];
  const sides = sideBookOf(m);
  for (const { side, metric, file } of orderedStages(m)) {
    // A capacity step is read as a point of its curve (analysis/stats/capacity.ts), not as a row.
    if (metricEntry(metric)?.capacity) continue;
    const st = m.stages[stageKey(side, metric)];
    const samples = load(file);
    const row = summarize(sides.get(side), metric, samples);
    const cpu = cpuPerOp(st);
    rows.push(cpu ? { ...row, cpu } : row);
    const t = metricEntry(metric)?.throughput;
    if (!t) continue;
    const entry = (perSecond: number, method: ThroughputRow["method"]): ThroughputRow => ({
      side,
      metric,
      concurrency: st.concurrency,
      perSecond,
      errors: row.errors,
      attempts: samples.length,
      method,
    });
    const completions = ((samples.length - row.errors) * 1000) / st.wallMs;
    if (t.mode === "open") {
      throughput.push({ ...entry(completions, "open-model"), targetPerSecond: t.ratePerSecond });
      continue;
    }
    if (sides.get(side).throughputMethod === "littles-law") throughput.push(entry((st.concurrency * 1000) / row.mean, "littles-law"));
    throughput.push(entry(completions, "measured"));
  }
  return { rows, throughput, sides };
}

/** Whether a stage's `ms` is the driver's round trip: where the side's profile says so, and on a baseline, which calls no actor; elsewhere the driver's is `clientMs`. */
export const msIsClientClock = (p: Pick<SideProfile, "msIsClientClock">, metric: string) =>
  p.msIsClientClock || metricEntry(metric)?.kind === "baseline";

/** The step of a stage's `ms` clock. */
export const msTick = (p: Pick<SideProfile, "msIsClientClock" | "msTick">, metric: string) =>
  msIsClientClock(p, metric) ? CLIENT_TICK_MS : p.msTick;

/** Client round-trip percentiles of one stage's counted samples, or null when it has none on that clock. */
export function clientPercentiles(samples: RunSamples, side: string, metric: string): Percentiles | null {
  return statsOf(samples, side, metric)?.client ?? null;
}
