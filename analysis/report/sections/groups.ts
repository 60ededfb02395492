/** Report sections of the idle, capacity and scaling groups, and cost against load: renderers of the run model. */
import type { RunSummary } from "../../stats/summary";
import { SCALE_BURST_CONCURRENCY } from "../../contract/catalog";
import { capacityNote, ceilingNote, CAPACITY_STEPS_NOTE, idleNote, costLoadNote, scaleNote } from "../prose";
import type { SideBook } from "../../contract/sideProfile";
import type { CostLoadModel } from "../model";
import type { ScaleRow } from "../../stats/scale";
import type { CapacityCurve } from "../../stats/capacity";
import { missedColdProofs, type IdleStep } from "../../stats/idle";
import { CAPACITY, OP_WORDS, opGroup, type CapacityOp } from "../../contract/capacity";
import type { LedgerRow } from "../../stats/claims";
import { claimTable } from "./claims";
import { escapeMd, ms, rate, rateHeld, table } from "../format";

export const perSecond = (x: number | null, open: string) => (x === null ? open : `${x.toLocaleString("en-US")}/s`);

/** The idle ladder: each side's wake latency and cold share at each idle length. */
export function renderIdle(steps: readonly IdleStep[], book: SideBook): string {
  if (steps.length === 0) return "";
  const rows = steps.map((s) => {
    const iv = s.p50Interval.lo !== null && s.p50Interval.hi !== null ? ` [${ms(s.p50Interval.lo)}, ${ms(s.p50Interval.hi)}]` : "";
    const missed = missedColdProofs(s);
    const cold = `${s.cold} of ${s.n}${s.coldRequired ? (missed ? `, **${missed} not cold though required**` : ", required") : ""}`;
    return [
      book.get(s.side).name,
      s.label,
      s.p50 === null ? "-" : `${ms(s.p50)}${iv}`,
      s.p90 === null ? "-" : ms(s.p90),
      cold,
      `${s.errors}${s.ended.length ? `; ${s.ended.map(escapeMd).join("; ")}` : ""}`,
      s.actualIdleMs ? `${(s.actualIdleMs.min / 1000).toFixed(1)} to ${(s.actualIdleMs.max / 1000).toFixed(1)} s` : "-",
      s.idleSleepMs === null ? "-" : `${(s.idleSleepMs / 1000).toFixed(0)} s`,
    ];
  });
  return `## Wake against idle length

${idleNote("client round trip, the driver's hrtime, on every side")}

${table(["side", "idle", "wake p50 ms [95% interval]", "p90 ms", "cold", "errors", "actual idle", "runtime sleeps after"], rows)}`;
}

/** The capacity and ceiling groups: each side's rate held per operation with its range, and every step of every search; each group a section. */
export function renderCapacity(curves: readonly CapacityCurve[], book: SideBook, claims: readonly LedgerRow[] = []): string {
  const pool = curves.filter((c) => opGroup(c.op) === "capacity");
  const one = curves.filter((c) => opGroup(c.op) === "ceiling");
  const o = curves[0]?.objective;
  return [
    pool.length
      ? `## Capacity\n\n${capacityNote(o.p99Ms, o.maxFailureShare * 100, CAPACITY.stepFactor, CAPACITY.resolution, CAPACITY.pool)}\n\n${searchTables(pool, book)}`
      : "",
    one.length
      ? `## One actor's ceiling\n\n${ceilingNote(o.p99Ms, o.maxFailureShare * 100)}\n\n${searchTables(one, book)}${renderLimits(claims, book)}`
      : "",
  ]
    .filter(Boolean)
    .join("\n\n");
}

/** The claims of a per-object rate beside the side's ceiling (rows of the claims ledger). */
function renderLimits(claims: readonly LedgerRow[], book: SideBook): string {
  const limits = claims.filter((c) => c.claim.measure.kind === "held" && opGroup(c.claim.measure.op as CapacityOp) === "ceiling");
  return limits.length ? `\n\n### Beside the vendors' stated limits\n\n${claimTable(limits, book)}` : "";
}

function searchTables(curves: readonly CapacityCurve[], book: SideBook): string {
  const ops = [...new Set(curves.map((c) => c.op))];
  const sides = [...new Set(curves.map((c) => c.side))];
  const cell = (c: CapacityCurve | undefined) => {
    if (!c) return "-";
    const estimate = rateHeld(c.held);
    const per = c.reps.map((r) => perSecond(r.held, "none")).join(", ");
    return `${estimate}; held ${per} (range ${perSecond(c.range.low, "below the lowest rate")} to ${perSecond(c.range.high, "past the highest tried")})`;
  };
  const summary = table(
    ["operation", ...sides.map((x) => `${book.get(x).short}: rate held [95% interval]; per repetition (range)`)],
    ops.map((op) => [OP_WORDS[op], ...sides.map((x) => cell(curves.find((c) => c.side === x && c.op === op)))]),
  );
  const fmt = (x: number | null, d = 2) => (x === null ? "-" : x.toFixed(d));
  const steps = curves.flatMap((c) =>
    c.steps.map((st) => [
      book.get(c.side).short,
      OP_WORDS[c.op],
      String(st.rep + 1),
      st.ratePerSecond.toLocaleString("en-US"),
      String(st.planned),
      String(st.sent),
      String(st.failed),
      ms(st.p50),
      ms(st.p99),
      st.held ? "held" : `missed: ${escapeMd(st.why)}`,
      fmt(st.ownCpuMsPerOp, 3),
      fmt(st.driverCpuMsPerOp, 3),
    ]),
  );
  const head = [
    "side",
    "operation",
    "repetition",
    "rate",
    "planned",
    "sent",
    "failed",
    "p50 ms",
    "p99 ms",
    "verdict",
    "CPU ms/op, its processes",
    "CPU ms/op, driver",
  ];
  return `${summary}\n\n### Every step\n\n${CAPACITY_STEPS_NOTE}\n\n${table(head, steps)}`;
}

/** Cost per million operations against sustained load: where a machine priced by CPU becomes cheaper than a price per operation. */
export function renderCostLoad(model: CostLoadModel | null, book: SideBook): string {
  if (!model) return "";
  const usd = (x: number) => (x >= 100 ? `$${x.toFixed(0)}` : x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`);
  const rows = model.ops.flatMap((o) =>
    o.machine.map((m) => [
      `${o.op} (${o.metric})`,
      `${book.get(m.side).short}: ${escapeMd(m.pricing)}`,
      `${rate(m.maxLoad)}/s (${m.maxFrom === "capacity" ? "capacity held" : "CPU-bound"})`,
      usd(m.points[m.points.length - 1].usdPerMillion),
      m.cheaperAbove
        .map(
          (c) =>
            `than ${book.get(c.side).short} ${escapeMd(c.pricing)} (${usd(o.flat.find((f) => f.side === c.side && f.pricing === c.pricing)!.usdPerMillion)}): ${c.load === null ? "-" : `${rate(c.load)}/s`}`,
        )
        .join("; ") || "no side priced per operation in this run",
    ]),
  );
  const price = `$${model.vcpuPrice.usd} per ${escapeMd(model.vcpuPrice.per)}`;
  return `## Cost against load

${costLoadNote(model.vcpus, price)}

${table(["operation", "priced by CPU", "most load", "per million at that load", "cheaper above"], rows)}`;
}

/** Cost as the work grows: the scaling group, per side and level, on the driver's clock for creates and bursts. */
export function renderScale(rows: readonly ScaleRow[], s: Pick<RunSummary, "sides">): string {
  if (rows.length === 0) return "";
  const lines: string[][] = [];
  for (const side of [...new Set(rows.map((r) => r.side))]) {
    for (const level of [...new Set(rows.filter((r) => r.side === side).map((r) => r.level))]) {
      const at = (op: ScaleRow["op"]) => rows.find((r) => r.side === side && r.level === level && r.op === op);
      const lat = (r: ScaleRow | undefined) =>
        r
          ? `${ms(r.p50)} / ${ms(r.p99)} (n ${r.n}${r.errors ? `, ${r.errors} errors` : ""}${r.ended ? `; ${r.ended.map(escapeMd).join("; ")}` : ""})`
          : "-";
      const b = at("burst");
      const existing = at("wake")?.existing ?? at("create")?.existing;
      lines.push([
        s.sides.get(side).name,
        level.toLocaleString("en-US"),
        existing === null || existing === undefined ? "-" : existing.toLocaleString("en-US"),
        lat(at("wake")),
        lat(at("create")),
        b && b.perSecond !== null ? `${rate(b.perSecond)}/s (${b.errors} errors of ${b.n + b.errors})` : "-",
      ]);
    }
  }
  return (
    "## Cost as the work grows\n\n" +
    `${scaleNote(SCALE_BURST_CONCURRENCY)}\n\n` +
    table(
      ["side", "level", "actors existing", "wake p50 / p99 ms", "create p50 / p99 ms", `burst c${SCALE_BURST_CONCURRENCY} (measured)`],
      lines,
    )
  );
}
