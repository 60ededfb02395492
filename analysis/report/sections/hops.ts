/** Where a call's time goes: per side and captured stage, each hop's segment from the wire. Renders the run model. */
import { MEDIAN_BAND } from "../../stats/hops";
import type { HopRow } from "../../stats/hopRows";
import type { SideBook } from "../../contract/sideProfile";
import { ci, escapeMd, table } from "../format";

/** The largest gap between a waterfall's median calls summed and the round trip's p50 that the report calls adding up. */
export const SUM_TOLERANCE = 0.05;

export const HOPS_NOTE =
  "Each call of these stages was sent one at a time while tcpdump captured the run's loopback; the project reads the capture file itself. " +
  "The n-th request on the driver's connection is the n-th sample (a count that differs, or a pair that disagrees, leaves the repetition out, said below); " +
  "an inner hop is found by what the response carries: the front's request id in the message it forwards, the actor's id in the first message that names it, the response body in the reply the inner process sends back. " +
  "A segment is the time between two packets on the capture's kernel clock, except the driver's (its hrtime round trip less the capture's span of the call) and the side's own interval (its clock, inside the segment that holds it; the rest of that segment is what no hop shows). " +
  `A call's segments add up to its round trip. The waterfall shows each segment's mean over the median calls of each repetition (those whose round trip is within ${100 * MEDIAN_BAND.within}% of its median), averaged over repetitions, so they add up to the round trip's p50 within that; ` +
  "each segment's own p50s summed need not (a part on a whole-ms clock, a median at a step of the distribution): the table says how far they are. " +
  "Each segment's own p50 and p90 with their 95% interval over repetitions follow.";

/** Sub-millisecond segments need microseconds. */
const ms3 = (x: number) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(3));
const pct = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%`;

function sideTables(rows: readonly HopRow[], label: string): string {
  const drawn = rows.filter((r) => r.waterfall);
  if (drawn.length === 0) return "";
  const segs = drawn[0].waterfall!.segments.map((s) => s.segment);
  const head = ["metric", "round trip p50", ...segs.map((s) => s.id), "sum vs p50", "own p50s summed vs p50", "calls"];
  const body = drawn.map((r) => {
    const w = r.waterfall!;
    return [
      r.metric,
      ms3(w.roundTrip.p50.mean),
      ...w.segments.map((s) => ms3(s.atMedian.mean)),
      `${pct(w.sumGap)}${Math.abs(w.sumGap) > SUM_TOLERANCE ? ` (over ${100 * SUM_TOLERANCE}%)` : ""}`,
      pct(w.p50SumGap),
      w.calls.join("+"),
    ];
  });
  const detail = drawn.flatMap((r) =>
    r.waterfall!.segments.map((s) => [
      r.metric,
      s.segment.label,
      `${ms3(s.p50.mean)} ${ci(s.p50.ci)}`,
      `${ms3(s.p90.mean)} ${ci(s.p90.ci)}`,
      s.segment.clock,
    ]),
  );
  const traced = drawn.filter((r) => r.spans?.rows.length);
  const spans = traced.length
    ? [
        `#### ${label}: its runtime's own spans in the median calls' traces`,
        "Each median call's trace, found by the request id its response carried (the Engine stamps it on its spans), from the trace exports the run's collector kept (--otel); time in spans of each name per traced call, on the runtime's clock (nested spans each count their own, so they do not add up to the segments).",
        table(
          ["metric", "traced calls", "span", "ms per call", "spans per call"],
          traced.flatMap((r) =>
            r.spans!.rows.map((s, i) => [
              i === 0 ? r.metric : "",
              i === 0 ? `${r.spans!.traced} of ${r.spans!.calls}` : "",
              escapeMd(s.name),
              ms3(s.msPerCall),
              s.perCall.toFixed(1),
            ]),
          ),
        ),
      ]
    : [];
  return [
    `### ${label}: the median calls' segments, ms`,
    `Columns, in the order a call crosses them: ${segs.map((s) => `${s.id}, ${s.label}`).join("; ")}.`,
    table(head, body),
    `#### ${label}: each segment's own percentiles, ms`,
    table(["metric", "segment", "p50 [95%]", "p90 [95%]", "clock"], detail),
    ...spans,
  ].join("\n\n");
}

function refusals(rows: readonly HopRow[], book: SideBook): string {
  const lines = rows.flatMap((r) => [
    ...r.refused.map((why) => `${book.get(r.side).short} ${r.metric}, ${escapeMd(why)}`),
    ...(r.noInnerHop
      ? [`${book.get(r.side).short} ${r.metric}: ${r.noInnerHop} calls whose inner hop was not on the wire are left out`]
      : []),
  ]);
  return lines.length ? `Not in the waterfall:\n\n${lines.map((l) => `- ${l}`).join("\n")}` : "";
}

export function renderHops(rows: readonly HopRow[], book: SideBook): string {
  if (rows.length === 0) return "";
  const sides = book.order.filter((s) => rows.some((r) => r.side === s));
  return [
    "## Where the time goes, hop by hop",
    HOPS_NOTE,
    ...sides.map((s) =>
      sideTables(
        rows.filter((r) => r.side === s),
        book.get(s).short,
      ),
    ),
    refusals(rows, book),
  ]
    .filter(Boolean)
    .join("\n\n");
}
