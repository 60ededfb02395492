/**
 * What the report says of the run itself: partial runs, caveats, start states,
 * the sides' differences, placement, the platform's times, code and calibration.
 */
import { describeMachineLimit, type MachineLimitNote } from "../../contract/machineLimits";
import type { ManifestLike } from "../../contract/verify";
import { stageReps, unendedRepetition, stageKey, type RepStage, type StageRecord } from "../../contract/runDirContract";
import { orderedStages, type RunSamples } from "../../stats/summary";
import { DIFFERENCES_NOTE, LOCAL_RUN_CAVEAT, platformNote, startStateNote } from "../prose";
import { controlsOf, LEGACY_BOOK, runtimesOf, sideBookOf, type SideBook, type SideProfile } from "../../contract/sideProfile";
import { codeBlock, codeSpan, escapeMd, ms, table } from "../format";
import { legacyCaveats, legacyReleaseLine } from "../../contract/legacySides";
import { ANALYTICS_FILE, type PlatformBlock } from "../../stats/platformTimes";
import { CALIBRATION_MEASURES, calibrationMedian, readCalibration, type CalibrationMeasure } from "../../stats/calibration";

import { repetitionCount } from "./tables";

/** "A, B, and C": each side's way of putting its actors to sleep: the first runtime, the floors, the other runtimes. */
export function sleepWords(book: SideBook): string {
  const [first, ...rest] = [...runtimesOf(book).slice(0, 1), ...controlsOf(book), ...runtimesOf(book).slice(1)].map(
    (x) => book.get(x).sleep,
  );
  return rest.length ? `${[first, ...rest.slice(0, -1)].join(", ")}, and ${rest[rest.length - 1]}` : first;
}

export interface StartNote {
  group: string;
  before: { existing: number; awake: number };
  atStart: { existing: number; awake: number };
  settleMs: number;
  sleepFailures: number;
}

/** What each group started from, per side: the first stage of each group's startState note. */
export function startStateMarkdown(m: ManifestLike): string {
  const book = sideBookOf(m);
  const rows: string[][] = [];
  const seen = new Set<string>();
  const multi = repetitionCount(m) > 1;
  for (const part of orderedStages(m).flatMap((st) =>
    stageReps(m.stages[stageKey(st.side, st.metric)]).map((r) => ({ ...st, rep: r.rep, notes: r.notes })),
  )) {
    const st = part;
    const s = part.notes?.startState as StartNote | undefined;
    const n = (x: unknown) => typeof x === "number" && Number.isFinite(x);
    // A note of another shape (an older run, a hand-edited record) is not shown rather than misread.
    if (
      !s ||
      typeof s.group !== "string" ||
      !n(s.before?.existing) ||
      !n(s.before?.awake) ||
      !n(s.atStart?.awake) ||
      !n(s.settleMs) ||
      !n(s.sleepFailures)
    )
      continue;
    if (seen.has(`${st.side}.${s.group}.${part.rep}`)) continue;
    seen.add(`${st.side}.${s.group}.${part.rep}`);
    rows.push([
      book.get(st.side).name,
      escapeMd(s.group) + (multi ? ` (repetition ${part.rep + 1})` : ""),
      String(s.before.existing),
      String(s.before.awake),
      String(s.atStart.awake),
      (s.settleMs / 1000).toFixed(1),
      String(s.sleepFailures),
    ]);
  }
  if (rows.length === 0) return "";
  return (
    "## What each group started from\n\n" +
    `${startStateNote(sleepWords(book))}\n\n` +
    table(
      [
        "side",
        "group",
        "actors of the run when reached",
        "awake then",
        "awake at the start",
        "seconds to put them to sleep",
        "sleep calls failed",
      ],
      rows,
    )
  );
}

/** The differences between the sides, as each side's adapter states them (manifest settings.<side>.adapter). */
export function differencesMarkdown(m: ManifestLike): string {
  const book = sideBookOf(m);
  const props = (side: string) => (m.settings?.[side] as { adapter?: Record<string, string> } | undefined)?.adapter ?? null;
  const sides = book.order.filter((side) => props(side));
  if (sides.length === 0) return "";
  const keys = [...new Set(sides.flatMap((side) => Object.keys(props(side)!)))];
  const rows = keys.map((k) => [escapeMd(k), ...sides.map((side) => escapeMd(props(side)![k] ?? "-"))]);
  // The client is the same object on every side; its own description, as the manifest has it, shows that.
  const client = (side: string) => (m.settings?.[side] as { client?: unknown } | undefined)?.client;
  if (sides.some((side) => typeof client(side) === "string"))
    rows.unshift([
      "timed calls' client",
      ...sides.map((side) => escapeMd(typeof client(side) === "string" ? (client(side) as string) : "-")),
    ]);
  return `## How the sides differ\n\n${DIFFERENCES_NOTE}\n\n${table(["", ...sides.map((side) => book.get(side).name)], rows)}`;
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

export function sidePlatformTable(blocks: readonly PlatformBlock[], w: SideProfile["platform"]): string {
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

/** Every stage's part in every repetition, with the stage's side and metric: where the notes are. */
export function stageParts(m: ManifestLike): Array<RepStage & Pick<StageRecord, "side" | "metric">> {
  return Object.values(m.stages).flatMap((st) => stageReps(st).map((r) => ({ ...r, side: st.side, metric: st.metric })));
}

/** "<side> wake.ping" or, in a run of several repetitions, "<side> wake.ping (repetition 2)". */
export const partName = (m: ManifestLike, p: { side: string; metric: string; rep: number }) =>
  `${p.side} ${p.metric}${repetitionCount(m) > 1 ? ` (repetition ${p.rep + 1})` : ""}`;

/**
 * What a run that did not complete measured and why it stopped: its status,
 * the stages that ended early (a runtime lost, samples that could not be
 * written), and samples kept of a stage that never ended. Empty for a complete run.
 */
export function partialRun(m: ManifestLike): string[] {
  if (!m.status || m.status === "complete") return [];
  const out: string[] = [];
  if (m.status === "running") {
    out.push(
      "This run is partial: it never finished (its driver was killed or its machine stopped before it recorded an end). Only the stages recorded before that are reported; samples written after the last checkpoint are not under a hash and are left out.",
    );
  } else {
    out.push(
      `This run is partial: its status is "${escapeMd(String(m.status))}".${m.failure ? ` Why: ${escapeMd(m.failure.split("\n").join("; ").slice(0, 800))}` : ""}`,
    );
  }
  const early = stageParts(m).filter((p) => p.status === "failed");
  if (early.length)
    out.push(
      `Stages that ended early, with every sample taken before the fault kept: ${early.map((p) => `${partName(m, p)}: ${escapeMd(String(p.failure ?? "?").slice(0, 300))}`).join("; ")}.`,
    );
  const recorded = new Set(Object.values(m.stages).map((s) => s.file));
  const unended = Object.keys(m.files).filter((f) => f.startsWith("raw/") && f.endsWith(".jsonl") && !recorded.has(f));
  const rep = unendedRepetition(m);
  const cut = Object.values(m.stages).filter(
    (s) => rep !== null && s.repetitions && !s.repetitions.some((r) => r.rep === rep) && m.files[s.file],
  );
  if (unended.length || cut.length) {
    out.push(
      `Samples of a stage that never ended are kept under their hash and left out of every figure: ${[...unended.map((f) => `${codeSpan(f)} (${m.files[f].lines} samples)`), ...cut.map((s) => `${codeSpan(s.file)} (repetition ${rep! + 1})`)].join(", ")}.`,
    );
  }
  return out;
}

/** Caveats that follow from the run's own manifest, nothing typed per run. */
export function caveats(m: ManifestLike): string[] {
  const out: string[] = [...partialRun(m), ...loopbackCaveat(m), ...plantedCaveats(m)];
  const legacy = m.sideProfiles ? null : legacyCaveats(m, ANALYTICS_FILE);
  out.push(...(legacy ? legacy.head : sideCaveats(m)));
  const parts = stageParts(m);
  const limited = parts.filter((s) => s.notes?.machineLimit);
  if (limited.length) {
    const book = sideBookOf(m);
    const runtimeOf = (side: string) => book.get(side).runtimeProcess;
    out.push(
      `A local artifact, not either runtime's behaviour: these stages failed on a limit of the machine the run was on, named by the failures themselves or by the runtime's log while the stage ran: ${limited
        .map(
          (s) =>
            `${partName(m, s)}: ${s.errors} of ${s.attempts} failed; ${escapeMd(describeMachineLimit(s.notes!.machineLimit as MachineLimitNote, runtimeOf(s.side)))}`,
        )
        .join("; ")}.`,
    );
  }
  const ended = parts.filter((s) => typeof (s.notes?.deadline as { outcome?: unknown } | undefined)?.outcome === "string");
  if (ended.length) {
    out.push(
      `Stages ended by their deadline, their samples kept (where a runtime stopped keeping up, this is the end of its curve, not a crash): ${ended.map((s) => `${partName(m, s)}: ${escapeMd((s.notes!.deadline as { outcome: string }).outcome)}`).join("; ")}.`,
    );
  }
  // A scaling curve's last level: the first of each side's stages there that carries the end, once per repetition.
  const curveEnds = new Map<string, string>();
  for (const s of parts)
    if (typeof s.notes?.curveEnd === "string")
      curveEnds.set(partName(m, { ...s, metric: "scale" }), `${escapeMd(String(s.notes.level))}: ${escapeMd(s.notes.curveEnd)}`);
  if (curveEnds.size)
    out.push(
      `Scaling curves that ended before the preset's last level, at the level named (the levels above it were not reached): ${[...curveEnds].map(([k, v]) => `${k} at ${v}`).join("; ")}.`,
    );
  const errs = Object.values(m.stages).filter((s) => s.errors > 0);
  if (errs.length)
    out.push(
      `Failures were counted, not retried, and left out of the percentiles: ${errs.map((s) => `${s.side} ${s.metric} ${s.errors} of ${s.attempts}`).join(", ")}.`,
    );
  const retried = parts.filter((s) => Array.isArray(s.notes?.setupRetries) && (s.notes!.setupRetries as unknown[]).length > 0);
  if (retried.length) {
    out.push(
      `Setup calls (not samples) that failed with a gateway error were tried once more before these stages: ${retried.map((s) => `${partName(m, s)} (${(s.notes!.setupRetries as string[]).map((r) => escapeMd(String(r).slice(0, 160))).join("; ")})`).join(", ")}. Samples are never retried.`,
    );
  }
  const prep = parts.filter((s) => Number(s.notes?.preparationFailures ?? 0) > 0);
  if (prep.length) {
    out.push(
      `Actors that could not be prepared were left out of their stage, not retried: ${prep.map((s) => `${partName(m, s)} ${String(s.notes!.preparationFailures)} (e.g. ${escapeMd(String((s.notes!.preparationErrors as string[] | undefined)?.[0] ?? "?").slice(0, 160))})`).join(", ")}.`,
    );
  }
  if (legacy) out.push(...legacy.tail);
  return out;
}

/**
 * What each side says of its own figures in this run: recorded by the side
 * (settings.<side>.caveats) beside one line for a local run; for a run made
 * before the sides recorded them, the report's words of that time.
 */
export function sideCaveats(m: ManifestLike): string[] {
  const book = sideBookOf(m);
  const measured = new Set(Object.values(m.stages).map((s) => s.side));
  const recorded = book.order
    .filter((side) => measured.has(side))
    .flatMap((side) => {
      const c = (m.settings?.[side] as { caveats?: unknown } | undefined)?.caveats;
      return Array.isArray(c) ? c.filter((x): x is string => typeof x === "string").map(escapeMd) : [];
    });
  const local = m.stack === "local" ? [LOCAL_RUN_CAVEAT] : [];
  return [...local, ...recorded];
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

/** Which code made the run, from the manifest. */
export function codeLine(m: ManifestLike): string {
  const c = m.code;
  if (!c?.commit) return `Code: commit not recorded${c ? ` (${escapeMd(c.source)})` : ""}.`;
  const commit = /^[0-9a-f]{7,64}$/.test(String(c.commit)) ? `\`${String(c.commit).slice(0, 12)}\`` : escapeMd(c.commit);
  return `Code: commit ${commit}${c.dirty ? " with uncommitted changes" : ""} (${escapeMd(c.source)}).`;
}

export const json = (x: unknown) => codeBlock("json", JSON.stringify(x, null, 2));

/** A run that asked for the quickack loopback and measured on the host's: its round trips carry delayed ACKs. */
export function loopbackCaveat(m: ManifestLike): string[] {
  const why = (m.config as { loopbackFallback?: unknown } | undefined)?.loopbackFallback;
  if (typeof why !== "string") return [];
  return [
    `**Host loopback.** The run asked for \`--loopback quickack\` and could not make a private network namespace (${escapeMd(why.slice(0, 200))}), so it measured on the host loopback, where delayed ACKs add to round trips: compare it only with runs on the same loopback (docs/engine-latency.md).`,
  ];
}

/** A planted delay per side, first among the caveats: the figures include it. */
export function plantedCaveats(m: ManifestLike): string[] {
  const out: string[] = [];
  const book = sideBookOf(m);
  for (const [side, st] of Object.entries(m.settings ?? {})) {
    const planted = (st as { plantedDelay?: unknown } | null)?.plantedDelay;
    if (typeof planted === "string")
      out.push(`**A planted change**, ${escapeMd(book.get(side).name)}: ${escapeMd(planted)}. Every figure of that side includes it.`);
    const release = m.sideProfiles ? null : legacyReleaseLine(st);
    if (release) out.push(escapeMd(release));
  }
  const ab = (m.settings as { ab?: { arm?: unknown; partnerRunId?: unknown; id?: unknown } } | undefined)?.ab;
  if (ab && typeof ab.arm === "string")
    out.push(
      `Arm ${escapeMd(ab.arm)} of the A/B session ${escapeMd(String(ab.id))}: its repetitions alternated with those of run ${escapeMd(String(ab.partnerRunId))}; the comparison is \`results/${escapeMd(m.stack)}/${escapeMd(String(ab.id))}/comparison.md\`.`,
    );
  return out;
}

/** The machine's calibration at the run's start, each measure's median and range over its rounds; nothing for a run made before calibrations. */
export function calibrationMarkdown(m: ManifestLike): string {
  const c = readCalibration(m.calibration);
  if (!c) return "";
  const rows = (Object.entries(CALIBRATION_MEASURES) as Array<[CalibrationMeasure, string]>).map(([k, what]) => {
    const r = c.rounds[k];
    return [k, what, ms(calibrationMedian(r)), `${ms(Math.min(...r))} to ${ms(Math.max(...r))}`, String(r.length)];
  });
  return `\n\nCalibration, taken before the run measured anything (driver clock), so that \`npm run compare\` can say when two runs' machines differ beyond these rounds' own noise:\n\n${table(["measure", "what", "median ms", "range ms", "rounds"], rows)}`;
}
