/**
 * The report's sections about the run itself, rendered from its notes
 * (notesModel.ts): the head, start states, the sides' differences, placement,
 * the platform's times and calibration.
 */
import { DIFFERENCES_NOTE, platformNote, startStateNote } from "../prose";
import { controlsOf, LEGACY_BOOK, runtimesOf, type SideBook, type SideProfile } from "../../contract/sideProfile";
import { codeBlock, codeSpan, escapeMd, ms, table } from "../format";
import type { PlatformBlock } from "../../stats/platformTimes";
import type { RunSamples } from "../../stats/summary";
import type { CalibrationRow, Differences, RunHead, StartStateRow } from "../notesModel";

/** "A, B, and C": each side's way of putting its actors to sleep: the first runtime, the floors, the other runtimes. */
function sleepWords(book: SideBook): string {
  const [first, ...rest] = [...runtimesOf(book).slice(0, 1), ...controlsOf(book), ...runtimesOf(book).slice(1)].map(
    (x) => book.get(x).sleep,
  );
  return rest.length ? `${[first, ...rest.slice(0, -1)].join(", ")}, and ${rest[rest.length - 1]}` : first;
}

/** A platform's own wall time inside its actors, per block of calls (one stage), from the stored analytics responses; in the words of the block's side. */
export function platformTable(blocks: readonly PlatformBlock[], book: SideBook): string {
  if (blocks.length === 0) return "";
  return [...new Set(blocks.map((b) => String(b.block).split(".")[0]))]
    .map((side) =>
      sidePlatformTable(
        blocks.filter((b) => String(b.block).startsWith(`${side}.`)),
        book.get(side).platform,
      ),
    )
    .filter(Boolean)
    .join("\n\n");
}

function sidePlatformTable(blocks: readonly PlatformBlock[], w: SideProfile["platform"]): string {
  if (!w || blocks.length === 0) return "";
  const rows: string[][] = [];
  for (const b of blocks) {
    // Every field here comes from a stored analytics response: shown literally, never as Markdown.
    const window = escapeMd(`${String(b.window.from).slice(11, 19)}-${String(b.window.to).slice(11, 19)}`);
    const block = escapeMd(String(b.block).replace(/^[a-z]+\./, ""));
    if (b.groups.length === 0) rows.push([block, window, escapeMd(b.calls), "0", "-", "-", "-", "-", "-", "-"]);
    for (const g of b.groups) {
      rows.push([
        block,
        window,
        escapeMd(b.calls),
        escapeMd(g.requests),
        escapeMd(g.errors),
        escapeMd(g.colo),
        ms(g.meanMs),
        ms(g.p50Ms),
        ms(g.p90Ms),
        ms(g.p99Ms),
      ]);
    }
  }
  const short = blocks.filter((b) => b.groups.reduce((s, g) => s + g.requests, 0) < b.calls).map((b) => escapeMd(b.block));
  return (
    `### In the ${w.actor}: ${w.name}'s wall time per block of calls (GraphQL analytics)\n\n` +
    `${platformNote(w)}\n\n` +
    table(
      ["metric", "window (UTC)", `${w.front}-timed calls`, `${w.actor} invocations`, "errors", "colo", "mean", "p50", "p90", "p99"],
      rows,
    ) +
    (short.length
      ? `\n\nAnalytics counted fewer invocations than the ${w.front} made calls for ${short.join(", ")} when they were last asked.`
      : "")
  );
}

/**
 * Where a platform ran a side's calls: the front's data centers from the
 * colo on its replies, the actors' from the platform's analytics. Empty when
 * neither says (a local runtime).
 */
export function placementLine(
  samples: RunSamples,
  platform: readonly PlatformBlock[],
  book: SideBook = samples.sides ?? LEGACY_BOOK,
): string {
  const list = (m: Map<string, number>, unit: string) =>
    [...m]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([c, n]) => `${escapeMd(c)} (${n.toLocaleString("en-US")} ${unit})`)
      .join(", ");
  const lines = book.order.flatMap((side) => {
    const w = book.get(side).platform;
    if (!w) return [];
    const fronts = new Map<string, number>();
    for (const [key, xs] of samples) {
      if (!key.startsWith(`${side}.`)) continue;
      for (const x of xs) if (x.ok && x.colo) fronts.set(x.colo, (fronts.get(x.colo) ?? 0) + 1);
    }
    const actors = new Map<string, number>();
    for (const b of platform)
      if (String(b.block).startsWith(`${side}.`)) for (const g of b.groups) actors.set(g.colo, (actors.get(g.colo) ?? 0) + g.requests);
    const parts = [
      fronts.size ? `the ${w.front} in ${list(fronts, "calls")}` : "",
      actors.size ? `the ${w.actors} in ${list(actors, `invocations, per ${w.name}'s analytics`)}` : "",
    ].filter(Boolean);
    return parts.length ? [`Where ${w.name} ran it: ${parts.join("; ")}.`] : [];
  });
  return lines.join(" ");
}

export const json = (x: unknown) => codeBlock("json", JSON.stringify(x, null, 2));

/** The report's title and first line: when, which preset, status, machine and code. */
export function renderHead(h: RunHead): string {
  const mach = h.machine;
  const machineLine = `${escapeMd(mach.cpus)} x ${escapeMd(mach.cpuModel)}, ${mach.memoryGiB === null ? "?" : mach.memoryGiB.toFixed(1)} GiB, ${escapeMd(mach.os)}`;
  return [
    `# actor-bench run ${escapeMd(h.runId)} (${escapeMd(h.stack)})`,
    `Started ${escapeMd(h.startedAt)}, finished ${h.finishedAt === null ? "(not finished)" : escapeMd(h.finishedAt)}, preset ${codeSpan(h.preset)}, status ${codeSpan(h.status)}. Machine: ${machineLine}. ${codeLine(h.code)} Generated from \`raw/\` and \`stages/\` by \`npm run report\`; every number below comes from those hashed files.`,
  ].join("\n\n");
}

/** Which code made the run. */
function codeLine(c: RunHead["code"]): string {
  if (!c.commit) return `Code: commit not recorded${c.source !== null ? ` (${escapeMd(c.source)})` : ""}.`;
  const commit = /^[0-9a-f]{7,64}$/.test(c.commit) ? `\`${c.commit.slice(0, 12)}\`` : escapeMd(c.commit);
  return `Code: commit ${commit}${c.dirty ? " with uncommitted changes" : ""} (${escapeMd(c.source)}).`;
}

/** What each group started from, per side. */
export function renderStartStates(rows: readonly StartStateRow[], book: SideBook): string {
  if (rows.length === 0) return "";
  const lines = rows.map((r) => [
    book.get(r.side).name,
    escapeMd(r.group) + (r.rep !== null ? ` (repetition ${r.rep + 1})` : ""),
    String(r.before.existing),
    String(r.before.awake),
    String(r.atStartAwake),
    (r.settleMs / 1000).toFixed(1),
    String(r.sleepFailures),
  ]);
  const head = [
    "side",
    "group",
    "actors of the run when reached",
    "awake then",
    "awake at the start",
    "seconds to put them to sleep",
    "sleep calls failed",
  ];
  return `## What each group started from\n\n${startStateNote(sleepWords(book))}\n\n${table(head, lines)}`;
}

/** The differences between the sides, as each side's adapter states them. */
export function renderDifferences(d: Differences | null, book: SideBook): string {
  if (!d) return "";
  const rows = d.rows.map((r) => [escapeMd(r.key), ...r.values.map((v) => escapeMd(v ?? "-"))]);
  return `## How the sides differ\n\n${DIFFERENCES_NOTE}\n\n${table(["", ...d.sides.map((side) => book.get(side).name)], rows)}`;
}

/** The machine's calibration at the run's start; nothing for a run made before calibrations. */
export function renderCalibration(rows: readonly CalibrationRow[] | null): string {
  if (!rows) return "";
  const lines = rows.map((r) => [r.measure, r.what, ms(r.medianMs), `${ms(r.minMs)} to ${ms(r.maxMs)}`, String(r.rounds)]);
  return `\n\nCalibration, taken before the run measured anything (driver clock), so that \`npm run compare\` can say when two runs' machines differ beyond these rounds' own noise:\n\n${table(["measure", "what", "median ms", "range ms", "rounds"], lines)}`;
}
