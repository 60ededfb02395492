/** One compared figure of the driver benchmark. */
export interface Figure {
  name: string;
  lowerIsBetter: boolean;
  driver: number;
  /** undici's dispatch alone, without the driver's code around it. */
  undici: number;
  autocannon: number;
  wrk: number | null;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const fmt = (x: number | null) => (x === null ? "-" : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));

/** driver / reference; for a latency above 1 means the driver is slower, for a rate below 1. */
export const ratio = (driver: number, ref: number | null) => (ref === null || ref === 0 ? null : driver / ref);

/** What a wrk cell says when wrk did not run: why, never a bare "-". */
export const WRK_MISSING = "not installed";

export function benchTable(figures: readonly Figure[], wrkMissing = WRK_MISSING): string {
  const rows = [["figure", "driver", "undici alone", "autocannon", "wrk", "driver/autocannon", "undici/autocannon", "driver/wrk"]];
  for (const f of figures) {
    const w = (x: number | null) => (f.wrk === null ? wrkMissing : fmt(x));
    rows.push([f.name, fmt(f.driver), fmt(f.undici), fmt(f.autocannon), w(f.wrk), fmt(ratio(f.driver, f.autocannon)), fmt(ratio(f.undici, f.autocannon)), w(ratio(f.driver, f.wrk))]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")).join("\n");
}
