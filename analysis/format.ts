/** Number formatting of the report: fixed rules, so the same samples always give the same text. */
export function ms(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "-";
  if (Math.abs(x) >= 100) return Math.round(x).toLocaleString("en-US");
  return x.toFixed(2);
}

export function rate(x: number): string {
  if (!Number.isFinite(x)) return "-";
  return x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(1);
}

export function triple(p50: number, p90: number, p99: number): string {
  return Number.isNaN(p50) ? "-" : `${ms(p50)} / ${ms(p90)} / ${ms(p99)}`;
}

export function ci(c: { lo: number | null; hi: number | null }): string {
  return `[${c.lo === null ? "-" : ms(c.lo)}, ${c.hi === null ? "-" : ms(c.hi)}]`;
}

/** A Markdown table from a header and rows. */
export function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}
