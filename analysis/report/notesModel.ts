/**
 * What the report says of the run itself, computed once from its manifest:
 * its head line's facts, whether it is partial and why, its caveats, what each
 * group started from, how the sides differ, the code, versions, config and
 * calibration. The report's sections render this; none reads the manifest.
 */
import { describeMachineLimit, type MachineLimitNote } from "../contract/machineLimits";
import type { ManifestLike } from "../contract/verify";
import { stageReps, unendedRepetition, stageKey, type RepStage, type StageRecord } from "../contract/runDirContract";
import { orderedStages } from "../stats/summary";
import { LOCAL_RUN_CAVEAT } from "./prose";
import { sideBookOf, type SideBook } from "../contract/sideProfile";
import { codeSpan, escapeMd } from "./format";
import { legacyCaveats, legacyReleaseLine } from "../contract/legacySides";
import { ANALYTICS_FILE } from "../stats/platformTimes";
import { captureNoteOf, otlpOf } from "../contract/hops";
import { CALIBRATION_MEASURES, calibrationMedian, readCalibration, type CalibrationMeasure } from "../stats/calibration";

/** How many repetitions the run made, for the interval's label: with one, it covers only the noise within that run. */
function repetitionCount(m: ManifestLike): number {
  return Array.isArray(m.repetitions) ? m.repetitions.length : 1;
}

/** The facts of the report's first lines. */
export interface RunHead {
  runId: string;
  stack: string;
  startedAt: string;
  finishedAt: string | null;
  preset: string;
  status: string;
  machine: { cpus: unknown; cpuModel: unknown; memoryGiB: number | null; os: unknown };
  /** The commit that made the run (as the manifest has it), whether the tree had changes, and how it was found. */
  code: { commit: string | null; dirty: boolean; source: string | null };
}

/** One group's start on one side in one repetition (a stage's notes.startState). */
export interface StartStateRow {
  side: string;
  group: string;
  /** Its repetition, where the run made several. */
  rep: number | null;
  before: { existing: number; awake: number };
  atStartAwake: number;
  settleMs: number;
  sleepFailures: number;
}

/** Each side's adapter properties (manifest settings.<side>.adapter), and the timed calls' client where the sides name it. */
export interface Differences {
  sides: string[];
  rows: Array<{ key: string; values: Array<string | null> }>;
}

export interface CalibrationRow {
  measure: string;
  what: string;
  medianMs: number;
  minMs: number;
  maxMs: number;
  rounds: number;
}

export interface RunNotes {
  sides: SideBook;
  /** Every stage's side and metric, in the report's order (sides, then the catalog). */
  stages: Array<{ side: string; metric: string }>;
  head: RunHead;
  partial: string[];
  repetitions: { count: number; orders: string[][] };
  startStates: StartStateRow[];
  differences: Differences | null;
  caveats: string[];
  versions: Array<[string, string]>;
  machine: unknown;
  config: unknown;
  settings: unknown;
  calibration: CalibrationRow[] | null;
}

interface StartNote {
  group: string;
  before: { existing: number; awake: number };
  atStart: { existing: number; awake: number };
  settleMs: number;
  sleepFailures: number;
}

/** What each group started from, per side and repetition: the first stage of each group's startState note; a note of another shape is left out. */
export function startStateRows(m: ManifestLike): StartStateRow[] {
  const rows: StartStateRow[] = [];
  const seen = new Set<string>();
  const multi = repetitionCount(m) > 1;
  const n = (x: unknown) => typeof x === "number" && Number.isFinite(x);
  for (const part of orderedStages(m).flatMap((st) =>
    stageReps(m.stages[stageKey(st.side, st.metric)]).map((r) => ({ ...st, rep: r.rep, notes: r.notes })),
  )) {
    const s = part.notes?.startState as StartNote | undefined;
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
    const key = `${part.side}.${s.group}.${part.rep}`;
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push({
      side: part.side,
      group: s.group,
      rep: multi ? part.rep : null,
      before: { existing: s.before.existing, awake: s.before.awake },
      atStartAwake: s.atStart.awake,
      settleMs: s.settleMs,
      sleepFailures: s.sleepFailures,
    });
  }
  return rows;
}

/** The differences between the sides, as each side's adapter states them; null when no side recorded any. */
export function differencesOf(m: ManifestLike): Differences | null {
  const book = sideBookOf(m);
  const props = (side: string) => (m.settings?.[side] as { adapter?: Record<string, string> } | undefined)?.adapter ?? null;
  const sides = book.order.filter((side) => props(side));
  if (sides.length === 0) return null;
  const keys = [...new Set(sides.flatMap((side) => Object.keys(props(side)!)))];
  const rows: Differences["rows"] = keys.map((key) => ({ key, values: sides.map((side) => props(side)![key] ?? null) }));
  // The client is the same object on every side; its own description, as the manifest has it, shows that.
  const client = (side: string) => (m.settings?.[side] as { client?: unknown } | undefined)?.client;
  if (sides.some((side) => typeof client(side) === "string"))
    rows.unshift({
      key: "timed calls' client",
      values: sides.map((side) => (typeof client(side) === "string" ? (client(side) as string) : null)),
    });
  return { sides, rows };
}

/** The machine's calibration at the run's start, each measure's median and range over its rounds; null for a run made before calibrations. */
function calibrationRows(m: ManifestLike): CalibrationRow[] | null {
  const c = readCalibration(m.calibration);
  if (!c) return null;
  return (Object.entries(CALIBRATION_MEASURES) as Array<[CalibrationMeasure, string]>).map(([measure, what]) => {
    const r = c.rounds[measure];
    return { measure, what, medianMs: calibrationMedian(r), minMs: Math.min(...r), maxMs: Math.max(...r), rounds: r.length };
  });
}

function headOf(m: ManifestLike): RunHead {
  const mach = m.machine as { cpus?: number; cpuModel?: string; memory?: number; os?: string };
  const c = m.code;
  return {
    runId: m.runId,
    stack: m.stack,
    startedAt: m.startedAt,
    finishedAt: m.finishedAt,
    preset: m.preset,
    status: m.status ?? "unknown",
    machine: {
      cpus: mach.cpus ?? "?",
      cpuModel: mach.cpuModel ?? "?",
      memoryGiB: mach.memory ? Number(mach.memory) / 2 ** 30 : null,
      os: mach.os ?? "?",
    },
    code: { commit: c?.commit ? String(c.commit) : null, dirty: Boolean(c?.dirty), source: c ? String(c.source) : null },
  };
}

/** The run's notes: everything the report says of the run itself, from its manifest, once. */
export function runNotes(m: ManifestLike): RunNotes {
  return {
    sides: sideBookOf(m),
    stages: orderedStages(m).map(({ side, metric }) => ({ side, metric })),
    head: headOf(m),
    partial: partialRun(m),
    repetitions: { count: repetitionCount(m), orders: (m.repetitions ?? []).map((r) => [...r.order]) },
    startStates: startStateRows(m),
    differences: differencesOf(m),
    caveats: caveats(m),
    versions: Object.entries(m.versions),
    machine: m.machine,
    config: m.config,
    settings: m.settings ?? null,
    calibration: calibrationRows(m),
  };
}

/** Every stage's part in every repetition, with the stage's side and metric: where the notes are. */
function stageParts(m: ManifestLike): Array<RepStage & Pick<StageRecord, "side" | "metric">> {
  return Object.values(m.stages).flatMap((st) => stageReps(st).map((r) => ({ ...r, side: st.side, metric: st.metric })));
}

/** "<side> wake.ping" or, in a run of several repetitions, "<side> wake.ping (repetition 2)". */
const partName = (m: ManifestLike, p: { side: string; metric: string; rep: number }) =>
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
  const captured = [...new Set(parts.filter((s) => captureNoteOf(s.notes)).map((s) => s.metric))];
  if (captured.length)
    out.push(
      `A run made with --capture: ${captured.join(", ")} were measured with tcpdump capturing the loopback beside them, which slows the fastest calls measurably (docs/hops.md, the cost of looking). Their waterfall says where the time goes; their round trips are read from a run made without it.`,
    );
  const exporting = [...new Set(Object.keys(m.files).flatMap((f) => otlpOf(f)?.side ?? []))];
  if (exporting.length)
    out.push(
      `A run made with --otel: a trace collector ran on the loopback for ${exporting.join(", ")}, and the Rivet Engine exported every span to it, which costs the Engine time (docs/hops.md, the Engine's own spans). Read round trips from a run made without it.`,
    );
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
function sideCaveats(m: ManifestLike): string[] {
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

/** A run that asked for the quickack loopback and measured on the host's: its round trips carry delayed ACKs. */
function loopbackCaveat(m: ManifestLike): string[] {
  const why = (m.config as { loopbackFallback?: unknown } | undefined)?.loopbackFallback;
  if (typeof why !== "string") return [];
  return [
    `**Host loopback.** The run asked for \`--loopback quickack\` and could not make a private network namespace (${escapeMd(why.slice(0, 200))}), so it measured on the host loopback, where delayed ACKs add to round trips: compare it only with runs on the same loopback (docs/engine-latency.md).`,
  ];
}

/** A planted delay per side, first among the caveats: the figures include it. */
function plantedCaveats(m: ManifestLike): string[] {
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
