import { readFileSync } from "node:fs";
import { mean, nearestRank } from "./percentiles";

export interface RawSample {
  ok: boolean;
  ms: number;
  cold: boolean | null;
}

export interface SummaryRow {
  side: string;
  metric: string;
  /** Samples the percentiles are taken over. */
  n: number;
  errors: number;
  /** Successful samples of a create or wake whose cold flag did not prove a fresh start. */
  notCold: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

/** Parses a raw JSONL file; names the file and line of anything that is not a sample. */
export function readSamples(path: string): RawSample[] {
  const out: RawSample[] = [];
  const lines = readFileSync(path, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (line === "") return;
    let s: RawSample;
    try {
      s = JSON.parse(line) as RawSample;
    } catch {
      throw new Error(`${path}:${i + 1}: not valid JSON`);
    }
    if (typeof s.ok !== "boolean" || typeof s.ms !== "number") throw new Error(`${path}:${i + 1}: not a sample (needs ok and ms)`);
    out.push(s);
  });
  return out;
}

/** Statistics of one metric. For a cold metric only samples with cold === true count. */
export function summarize(side: string, metric: string, samples: readonly RawSample[], coldMetric: boolean): SummaryRow {
  let errors = 0;
  let notCold = 0;
  const xs: number[] = [];
  for (const s of samples) {
    if (!s.ok) errors++;
    else if (coldMetric && s.cold !== true) notCold++;
    else xs.push(s.ms);
  }
  xs.sort((a, b) => a - b);
  return {
    side,
    metric,
    n: xs.length,
    errors,
    notCold,
    p50: nearestRank(xs, 50),
    p90: nearestRank(xs, 90),
    p99: nearestRank(xs, 99),
    mean: mean(xs),
  };
}

const fmt = (x: number) => (Number.isNaN(x) ? "-" : x >= 100 ? x.toFixed(0) : x.toFixed(2));

/** Plain-text headline: p50 / p90 / p99 (nearest rank) with n, errors and notCold. */
export function headlineTable(rows: readonly SummaryRow[]): string {
  const head = ["side", "metric", "p50 / p90 / p99 ms", "n", "errors", "notCold"];
  const body = rows.map((r) => [r.side, r.metric, `${fmt(r.p50)} / ${fmt(r.p90)} / ${fmt(r.p99)}`, String(r.n), String(r.errors), String(r.notCold)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}
