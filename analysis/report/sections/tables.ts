/** The full tables: every row with its intervals, the open model, CPU, cost, memory and storage rows. */
import { statsOf, type SummaryRow } from "../../stats/summary";
import { CLIENT_TICK_MS } from "../../contract/catalog";
import { costNote, CPU_NOTE, MEMORY_NOTE, ROWS_NOTE, ONE_REPETITION_NOTE, repetitionsNote } from "../prose";
import type { SideBook } from "../../contract/sideProfile";
import type { CostModel, CpuModel, RowsModel } from "../model";
import { ci, escapeMd, ms, table } from "../format";
import { geometricMean, groupByRep, repSpread } from "../../stats/repetitions";
import { DRIVER_PROCESS, type CpuPerOp } from "../../stats/cpuPerOp";
import type { MemoryPerActor } from "../../stats/memory";

import type { Loaded } from "../load";
import type { RunNotes } from "../notesModel";

export const cv = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);
const LEVEL_TEXT = { between: "between repetitions", within: "within a run", none: "none (all equal)" } as const;

/** What the full tables' intervals cover, and which level of variance dominates, in words. */
export function intervalNote(reps: RunNotes["repetitions"], rows: readonly SummaryRow[]): string {
  const k = reps.count;
  if (k < 2) {
    return ONE_REPETITION_NOTE;
  }
  const judged = rows.filter((r) => r.repetitions.dominant !== null);
  const between = judged.filter((r) => r.repetitions.dominant === "between").length;
  const orders = reps.orders.map((o) => o.map((x) => escapeMd(x)).join(", ")).join("; ");
  return repetitionsNote(k, orders, between, judged.length);
}

export function fullTables(l: Loaded): string {
  const out: string[] = [];
  for (const side of [...new Set(l.notes.stages.map((st) => st.side))]) {
    const rows: string[][] = [];
    const sideRows = l.summary.rows.filter((x) => x.side === side);
    const client = sideRows.some((r) => r.clientRepetitions);
    for (const r of sideRows) {
      const c = r.repetitions;
      const cr = r.clientRepetitions;
      const clientCell = client ? [cr ? `${ms(geoOrNaN(cr.perRep.p50))} ${ci(cr.ci.p50)}` : "-"] : [];
      rows.push([
        r.metric,
        String(r.n),
        String(r.errors),
        String(r.notCold),
        `${ms(r.p50)} ${ci(c.ci.p50)}`,
        `${ms(r.p90)} ${ci(c.ci.p90)}`,
        `${ms(r.p99)} ${ci(c.ci.p99)}`,
        ...clientCell,
        ms(r.mean),
        c.perRep.p50.map(ms).join(", ") || "-",
        cv(c.cv),
        c.dominant ? LEVEL_TEXT[c.dominant] : "-",
      ]);
    }
    if (rows.length === 0) continue;
    const clientHead = client ? ["client round trip p50, geometric mean of the repetitions [95%]"] : [];
    out.push(
      `### ${l.summary.sides.get(side).name}\n\n${table(["metric", "n", "errors", "notCold", "p50 [95% interval]", "p90 [95% interval]", "p99 [95% interval]", ...clientHead, "mean", "p50 per repetition", "CV of p50s", "variance mostly"], rows)}`,
    );
  }
  return out.join("\n\n");
}

/** The geometric mean of values above 0, else NaN (printed "-"). */
const geoOrNaN = (xs: readonly number[]) => (xs.length > 0 && xs.every((x) => x > 0) ? geometricMean(xs) : Number.NaN);

export function intervalTable(l: Loaded, side: string, field: "actorMs" | "sqlMs", title: string): string {
  const rows: string[][] = [];
  for (const { metric } of l.notes.stages.filter((s) => s.side === side)) {
    const stats = statsOf(l.samples, side, metric)!;
    const p = stats.interval(field);
    if (!p) continue;
    const xs = stats.counted.filter((s) => typeof s[field] === "number");
    const c = repSpread(
      groupByRep(xs, (s) => s[field] as number),
      CLIENT_TICK_MS,
    );
    rows.push([
      metric,
      String(p.n),
      `${ms(p.p50)} ${ci(c.ci.p50)}`,
      `${ms(p.p90)} ${ci(c.ci.p90)}`,
      `${ms(p.p99)} ${ci(c.ci.p99)}`,
      c.perRep.p50.map(ms).join(", "),
    ]);
  }
  return rows.length
    ? `### ${title}\n\n${table(["metric", "n", "p50 [95% interval]", "p90 [95% interval]", "p99 [95% interval]", "p50 per repetition"], rows)}`
    : "";
}

/** CPU per successful operation of each headline and throughput row, per side: its own processes, and the driver. */
export function renderCpu(model: CpuModel | null, book: SideBook): string {
  if (!model) return "";
  const perOp = (x: number | null) => (x === null ? "-" : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
  const own = (c: CpuPerOp | null) => {
    if (!c || c.ownMsPerOp === null) return "-";
    const names = Object.keys(c.processes).filter((k) => k !== DRIVER_PROCESS);
    const interval = c.ownInterval ? ` ${ci(c.ownInterval)}` : "";
    return `${perOp(c.ownMsPerOp)}${interval} (${names.map(escapeMd).join(" + ")})`;
  };
  const rows = model.rows.map((r) => [
    r.label,
    ...r.cells.flatMap((c) => [own(c), perOp(c?.driverMsPerOp ?? null), c ? String(c.ops) : "-"]),
  ]);
  return `## CPU per operation\n\n${CPU_NOTE}\n\n${table(["Metric", ...model.sides.flatMap((side) => [`${book.get(side).short}: its processes`, `${book.get(side).short}: driver`, "ops"])], rows)}`;
}

/** US dollars per million operations, each side under its ways of pricing, with the prices used. */
export function renderCost(model: CostModel | null, book: SideBook): string {
  if (!model) return "";
  const usd = (x: number) => (x >= 100 ? `$${x.toFixed(0)}` : x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`);
  const rows = model.rows.map((r) => [
    r.label,
    ...r.cells.map((c) => (c.usdPerMillion === null ? `not priced: ${c.missing}` : usd(c.usdPerMillion))),
  ]);
  const used = new Set(
    model.columns.flatMap((c) =>
      c.pricing.kind === "usage"
        ? [...c.pricing.requests, c.pricing.durationGbS, c.pricing.rowsRead, c.pricing.rowsWritten]
        : c.pricing.kind === "cpu"
          ? [c.pricing.vcpuSecond]
          : c.pricing.prices,
    ),
  );
  const prices = [...used].map((k) => model.prices.prices[k]).map((p) => `- $${p.usd} per ${escapeMd(p.per)} (${escapeMd(p.source)})`);
  const a = model.prices.assumptions;
  return (
    `## Cost per million operations\n\n${costNote(escapeMd(model.prices.asOf), a.doBilledGb, a.selfHostedUtilisation)}\n\n` +
    `${table(["Metric", ...model.columns.map((c) => `${book.get(c.side).short}: ${escapeMd(c.pricing.name)}`)], rows)}\n\nPrices used:\n\n${prices.join("\n")}`
  );
}
/** Memory per sleeping and per live actor, per side. */
export function renderMemory(rows: readonly MemoryPerActor[], book: SideBook): string {
  if (rows.length === 0) return "";
  const kb = (x: number | null) => (x === null ? "-" : Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2));
  const iv = (i: { lo: number | null; hi: number | null; none?: string }) =>
    i.lo !== null && i.hi !== null ? ` [${kb(i.lo)}, ${kb(i.hi)}]` : i.none === "one repetition" ? "" : ` (${escapeMd(i.none ?? "")})`;
  const lines = rows.map((r) => [
    book.get(r.side).name,
    escapeMd(r.processes.join(" + ")),
    r.sleepingKb === null ? "-" : `${kb(r.sleepingKb)}${iv(r.sleepingInterval)}`,
    `${r.sleepingActors} (${r.levels} levels)`,
    r.liveKb === null ? "-" : `${kb(r.liveKb)}${iv(r.liveInterval)}`,
    String(r.liveActors),
    `${r.atLowest.existing ?? "?"} actors, ${(r.atLowest.ownRssKb / 1024).toFixed(0)} MB`,
  ]);
  const head = [
    "side",
    "processes",
    "kB per sleeping actor [95% over repetitions]",
    "actors",
    "kB per live actor [95%]",
    "actors",
    "at the lowest level's wakes",
  ];
  return `## Memory per actor\n\n${MEMORY_NOTE}\n\n${table(head, lines)}`;
}

/** Rows read and written per successful operation, on the sides that count them. */
export function renderRows(model: RowsModel | null, book: SideBook): string {
  if (!model) return "";
  const per = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
  const rows = model.rows.map((r) => [
    r.label,
    ...r.cells.flatMap((c) => (c ? [per(c.read), per(c.written), String(c.n)] : ["-", "-", "-"])),
  ]);
  return `## SQLite rows per operation\n\n${ROWS_NOTE}\n\n${table(["Metric", ...model.sides.flatMap((side) => [`${book.get(side).short}: rows read`, "rows written", "n"])], rows)}`;
}
