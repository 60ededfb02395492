/** The claims ledger: each vendor and reference claim beside this run's figure, with its verdict. Renders the run model. */
import { ABOUT_FACTOR } from "../../contract/claims";
import type { SideBook } from "../../contract/sideProfile";
import type { ClaimFigure, LedgerRow } from "../../stats/claims";
import { escapeMd, ms, table } from "../format";

const UNIT = { ms: "ms", "per second": "/s", kB: "kB", bytes: "B" } as const;

const digits = (x: number, unit: keyof typeof UNIT) => (unit === "ms" || unit === "kB" ? ms(x) : Math.round(x).toLocaleString("en-US"));
/** A number with its unit after it: "2,468/s", "41.42 ms". */
const withUnit = (n: string, unit: keyof typeof UNIT) => (unit === "per second" ? `${n}/s` : `${n} ${UNIT[unit]}`);
const amount = (x: number, unit: keyof typeof UNIT) => withUnit(digits(x, unit), unit);

/** This run's figure in the claim's unit, with its 95% interval or why none, and what it is. */
export function figureText(f: ClaimFigure | null, unit: keyof typeof UNIT, accepts: boolean): string {
  if (!f) return "-";
  if (accepts) return escapeMd(f.what);
  const iv = f.lo !== null && f.hi !== null ? ` [${amount(f.lo, unit)}, ${amount(f.hi, unit)}]` : ` (no interval: ${f.none ?? "none"})`;
  return `${amount(f.value, unit)}${iv}, ${escapeMd(f.what)}`;
}

/** The figure as the README's narrow column has it: the value, its interval where there is one, the unit once. */
function briefFigure(f: ClaimFigure | null, unit: keyof typeof UNIT, accepts: boolean): string {
  if (!f) return "-";
  if (accepts) return `${f.lo} of ${f.hi} accepted`;
  const iv = f.lo !== null && f.hi !== null ? ` [${digits(f.lo, unit)}, ${digits(f.hi, unit)}]` : "";
  return withUnit(`${digits(f.value, unit)}${iv}`, unit);
}

const stated = (r: LedgerRow) => `${r.claim.states.relation} ${amount(r.claim.states.value, r.claim.states.unit)}`;

/** The ledger's rows as a table: who said what, where and when, this run's figure, the verdict. */
export function claimTable(rows: readonly LedgerRow[], book: SideBook): string {
  return table(
    ["side", "claim", "who, where, when", "states", "this run [95% interval]", "verdict"],
    rows.map((r) => [
      book.get(r.claim.side).short,
      escapeMd(r.claim.words),
      escapeMd(`${r.claim.who}; ${r.claim.source}; ${r.claim.date}`),
      stated(r),
      figureText(r.figure, r.claim.states.unit, r.claim.measure.kind === "accepts"),
      `**${r.verdict}**${r.why ? `: ${escapeMd(r.why)}` : ""}`,
    ]),
  );
}

export const LEDGER_NOTE =
  "What the vendors and the reference state of a quantity this project measures, each beside this run's figure for the same quantity with its 95% interval over repetitions. " +
  `The verdict is by rule: consistent here where the interval reaches what the claim states ("about X" within a factor of ${ABOUT_FACTOR} of X; "at least X" an upper end of X or more; "at most X" a lower end of X or less), not consistent here where it does not; a figure with no interval (one repetition, a whole-ms clock near its step, a p99 that is each repetition's maximum) is held to a one-sided claim by itself, and the row says so; and not comparable here where the claim is of another release or SDK, of a hosted platform or cloud cluster that a local run is not, or where the run has no figure for it (or none with an interval for an "about"). ` +
  "Here is this run's machine and release; a verdict says what this run shows of a claim, not whether the claim is true where it was made. The claims, their words and dates are in analysis/contract/claims.ts.";

/** The whole ledger, a section of the report and of a run's page. */
export function renderClaims(rows: readonly LedgerRow[], book: SideBook): string {
  if (rows.length === 0) return "";
  return `## Vendor and reference claims, checked\n\n${LEDGER_NOTE}\n\n${claimTable(rows, book)}`;
}

/** Several runs' ledgers as one: each claim's row from the first run that has a figure for it (else the first run's), with that run's id. */
export function mergeLedgers(runs: ReadonlyArray<{ runId: string; rows: readonly LedgerRow[] }>): Array<LedgerRow & { runId: string }> {
  const first = runs[0]?.rows ?? [];
  return first.map((row) => {
    const found = runs.find((r) => r.rows.some((x) => x.claim.id === row.claim.id && x.figure !== null));
    const from = found ?? runs[0];
    return { ...(from.rows.find((x) => x.claim.id === row.claim.id) ?? row), runId: from.runId };
  });
}

/** The ledger as the README shows it: the claim, its source and date, the figure and the run it is from, the verdict (the reasons are in that run's report). */
export function claimsReadme(rows: ReadonlyArray<LedgerRow & { runId: string }>, book: SideBook): string {
  return table(
    ["", "claim", "figure [95%]", "run", "verdict"],
    rows.map((r) => [
      book.get(r.claim.side).short,
      escapeMd(r.claim.words),
      briefFigure(r.figure, r.claim.states.unit, r.claim.measure.kind === "accepts"),
      r.runId,
      r.verdict,
    ]),
  );
}
