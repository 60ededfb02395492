/** Number formatting of the report: fixed rules, so the same samples always give the same text. */
export function ms(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "-";
  if (Math.abs(x) >= 100) return Math.round(x).toLocaleString("en-US");
  return x.toFixed(2);
}

/** A difference in ms with its sign always shown: "+1.20", "-0.40". */
export function signedMs(x: number): string {
  return `${x >= 0 ? "+" : ""}${ms(x)}`;
}

export function rate(x: number): string {
  if (!Number.isFinite(x)) return "-";
  return x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(1);
}

export function triple(p50: number, p90: number, p99: number): string {
  return Number.isNaN(p50) ? "-" : `${ms(p50)} / ${ms(p90)} / ${ms(p99)}`;
}

export function ci(c: { lo: number | null; hi: number | null; none?: string }): string {
  if (c.lo === null || c.hi === null) return c.none ? `(no interval: ${c.none})` : "[-, -]";
  return `[${ms(c.lo)}, ${ms(c.hi)}]`;
}

/** A Markdown table from a header and rows. */
export function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

/**
 * Text that came from a run (a failure message, an error, a CPU model) as
 * inline Markdown that shows it literally: one line, with every character
 * that could open a link, an image, emphasis, code, HTML or a table cell
 * escaped.
 */
export function escapeMd(text: unknown): string {
  return String(text)
    .replace(/[\r\n]+/g, " ")
    .replace(/[\\`*_[\]|<>~]/g, (c) => `\\${c}`);
}

/**
 * Text from a run as an inline code span: one line, fenced by one backtick
 * more than the longest run inside it, so no backtick can close it early,
 * and code spans show HTML literally.
 */
export function codeSpan(text: unknown): string {
  const t = String(text).replace(/[\r\n]+/g, " ");
  const fence = "`".repeat(Math.max(0, ...(t.match(/`+/g) ?? []).map((r) => r.length)) + 1);
  const pad = t.startsWith("`") || t.endsWith("`") || t === "" ? " " : "";
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** A fenced code block that no backtick run inside the text can close. */
export function codeBlock(lang: string, text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

/** A rate held per second with its 95% interval over repetitions ("367/s [238, 564]"), or why there is none. */
export function rateHeld(h: { estimate: number | null; lo: number | null; hi: number | null; none?: string }): string {
  const whole = (x: number) => Math.round(x).toLocaleString("en-US");
  if (h.estimate === null) return `no figure (${h.none})`;
  return `${whole(h.estimate)}/s ${h.lo === null || h.hi === null ? `(no interval: ${h.none})` : `[${whole(h.lo)}, ${whole(h.hi)}]`}`;
}
