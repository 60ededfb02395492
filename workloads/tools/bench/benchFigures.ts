/**
 * One compared figure of the driver benchmark: a value per round for each
 * tool (wrk's null when it did not run). The tools run interleaved within a
 * round, so a round's values were taken under the same machine load.
 */
export interface Figure {
  name: string;
  lowerIsBetter: boolean;
  rounds: { driver: number[]; undici: number[]; autocannon: number[]; wrk: number[] | null };
}

type BenchTool = "driver" | "autocannon" | "undici" | "wrk";
/**
 * The order the tools run in round `round` (from 1): the driver and autocannon
 * next to each other, so the pair the target compares is taken closest in
 * time, and every other round reversed, so a drift of the machine's speed
 * within a round favours neither.
 */
export function toolOrder(round: number): BenchTool[] {
  const order: BenchTool[] = ["driver", "autocannon", "undici", "wrk"];
  return round % 2 === 1 ? order : order.reverse();
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const fmt = (x: number | null) => (x === null ? "-" : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));

/**
 * tool / reference, the median over rounds of each round's own ratio: pairing
 * the values of one round takes out the load the machine had then, which the
 * ratio of two medians would keep. For a latency above 1 means the tool is
 * slower, for a rate below 1.
 */
export function pairedRatio(tool: readonly number[], ref: readonly number[] | null): number | null {
  if (ref === null || ref.length !== tool.length || tool.length === 0 || ref.some((x) => x === 0)) return null;
  return median(tool.map((x, i) => x / ref[i]));
}

/** What a wrk cell says when wrk did not run: why, never a bare "-". */
const WRK_MISSING = "not installed";

export function benchTable(figures: readonly Figure[], wrkMissing = WRK_MISSING): string {
  const rows = [["figure", "driver", "undici alone", "autocannon", "wrk", "driver/autocannon", "undici/autocannon", "driver/wrk"]];
  for (const f of figures) {
    const r = f.rounds;
    const w = (x: number | null) => (r.wrk === null ? wrkMissing : fmt(x));
    rows.push([
      f.name,
      fmt(median(r.driver)),
      fmt(median(r.undici)),
      fmt(median(r.autocannon)),
      w(r.wrk && median(r.wrk)),
      fmt(pairedRatio(r.driver, r.autocannon)),
      fmt(pairedRatio(r.undici, r.autocannon)),
      w(pairedRatio(r.driver, r.wrk)),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")).join("\n");
}
