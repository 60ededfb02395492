/**
 * The comparison of two runs as one model, pure and free of Node imports:
 * `npm run compare` renders it as Markdown (compare.ts) and the site's
 * comparison page renders the same model in the browser (browser/comparePage.ts),
 * so the two cannot disagree. A run comes in as what its manifest says about
 * the session and machine, its rows' statistics, and its capacity curves.
 */
import { compareRows, type CompareRow, type StageStats } from "../stats/compareRows";
import { calibrationDifferences, readCalibration } from "../stats/calibration";
import type { KneeInterval } from "../stats/repetitions";

/** What a comparison reads of a manifest (a verified run's manifest is one). */
export interface ManifestLike {
  runId: string;
  startedAt: string;
  preset: string;
  config?: unknown;
  repetitions?: unknown;
  calibration?: unknown;
  machine?: unknown;
  settings?: unknown;
}

/** What `npm run ab` writes into each arm's manifest (settings.ab): which comparison, which arm, and its partner. */
export interface AbSettings {
  id: string;
  arm: "A" | "B";
  partnerRunId: string;
  /** The arms in the order their repetitions ran, e.g. A B B A A B ... */
  order: string[];
}

/** A run's capacity curve as a comparison needs it. */
export interface CapacityHeld {
  side: string;
  op: string;
  objective: { p99Ms: number; maxFailureShare: number };
  held: KneeInterval;
}

/** One run as a comparison takes it. */
export interface ComparedRun {
  m: ManifestLike;
  stats: Record<string, StageStats>;
  capacity: CapacityHeld[];
}

export const abOf = (m: ManifestLike): AbSettings | null => {
  const ab = (m.settings as Record<string, unknown> | undefined)?.ab as AbSettings | undefined;
  return ab && typeof ab.id === "string" && (ab.arm === "A" || ab.arm === "B") ? ab : null;
};

/** Whether two runs are the two arms of one interleaved A/B session, so repetition i of each can be paired. */
export function interleaved(a: ManifestLike, b: ManifestLike): boolean {
  const x = abOf(a);
  const y = abOf(b);
  return !!x && !!y && x.id === y.id && x.arm !== y.arm && x.partnerRunId === b.runId && y.partnerRunId === a.runId;
}

const repeatsOf = (m: ManifestLike) => (Array.isArray(m.repetitions) ? m.repetitions.length : 1);

/** The manifests' machine records where they differ: CPU model and core count. */
export function machineDifferences(a: ManifestLike, b: ManifestLike): string[] {
  const mach = (m: ManifestLike) => ((m as { machine?: unknown }).machine ?? {}) as { cpuModel?: unknown; cpus?: unknown };
  const x = mach(a);
  const y = mach(b);
  const out: string[] = [];
  if (x.cpuModel !== y.cpuModel)
    out.push(`the machine differs: CPU model A ${String(x.cpuModel ?? "unrecorded")}, B ${String(y.cpuModel ?? "unrecorded")}`);
  if (x.cpus !== y.cpus) out.push(`the machine differs: cores A ${String(x.cpus ?? "unrecorded")}, B ${String(y.cpus ?? "unrecorded")}`);
  return out;
}

/** What differs between the two runs besides what was meant to: each a line the reader must weigh. */
export function comparisonWarnings(a: ManifestLike, b: ManifestLike): string[] {
  const out: string[] = [];
  if (a.runId === b.runId && a.startedAt === b.startedAt)
    out.push(
      "A and B are the same run: every ratio is 1, and only the detectable column says anything (what a second run with the same spread could show)",
    );
  const cfg = (m: ManifestLike) => (m.config ?? {}) as Record<string, unknown>;
  if (a.preset !== b.preset) out.push(`the presets differ (A ${a.preset}, B ${b.preset}): rows of different sample counts are compared`);
  else if (JSON.stringify(cfg(a).counts) !== JSON.stringify(cfg(b).counts))
    out.push("the sample counts differ (--samples): a percentile of fewer samples sits lower in its tail");
  if (repeatsOf(a) !== repeatsOf(b))
    out.push(`the repetitions differ (A ${repeatsOf(a)}, B ${repeatsOf(b)}): Welch's test, each run's spread its own`);
  out.push(...machineDifferences(a, b));
  const ca = readCalibration((a as { calibration?: unknown }).calibration);
  const cb = readCalibration((b as { calibration?: unknown }).calibration);
  if (ca && cb) out.push(...calibrationDifferences(ca, cb).map((d) => `the machine differs: ${d}`));
  else out.push(`no calibration in ${ca ? "B" : cb ? "A" : "either run"} (made before runs recorded one): its speed cannot be compared`);
  return out;
}

/** Whether two intervals of the rate held overlap (they agree within them); null where either has none. */
export function intervalsOverlap(a: KneeInterval, b: KneeInterval): boolean | null {
  if (a.lo === null || a.hi === null || b.lo === null || b.hi === null) return null;
  return a.lo <= b.hi && b.lo <= a.hi;
}

interface CapacityRow {
  key: string;
  a: KneeInterval | null;
  b: KneeInterval | null;
  verdict: string;
}

/** Each side's and operation's rate held in A and in B, with whether their 95% intervals overlap. */
export function capacityRows(a: readonly CapacityHeld[], b: readonly CapacityHeld[]): CapacityRow[] {
  const keys = [...new Set([...a, ...b].map((c) => `${c.side} ${c.op}`))];
  return keys.map((key) => {
    const [ca, cb] = [a, b].map((x) => x.find((c) => `${c.side} ${c.op}` === key));
    const overlap = ca && cb ? intervalsOverlap(ca.held, cb.held) : null;
    const objective =
      ca && cb && (ca.objective.p99Ms !== cb.objective.p99Ms || ca.objective.maxFailureShare !== cb.objective.maxFailureShare)
        ? "different objectives: not comparable"
        : null;
    const verdict =
      objective ??
      (!ca || !cb
        ? "in one run only"
        : overlap === null
          ? "cannot tell (an interval is missing)"
          : overlap
            ? "agree: the intervals overlap"
            : "differ: the intervals are apart");
    return { key, a: ca?.held ?? null, b: cb?.held ?? null, verdict };
  });
}

/** The whole comparison of B against A. */
export interface Comparison {
  paired: boolean;
  /** The arms' order when paired, e.g. A B B A. */
  order: string[] | null;
  warnings: string[];
  rows: CompareRow[];
  capacity: CapacityRow[];
}

export function comparison(a: ComparedRun, b: ComparedRun): Comparison {
  const paired = interleaved(a.m, b.m);
  const warnings = comparisonWarnings(a.m, b.m);
  if (!paired)
    warnings.push(
      "A and B were measured in separate sessions: whatever differs between sessions (time of day, the machine's state) is in neither run's spread; `npm run ab` interleaves them and pairs their repetitions",
    );
  return {
    paired,
    order: paired ? abOf(a.m)!.order : null,
    warnings,
    rows: compareRows(a.stats, b.stats, { paired }),
    capacity: capacityRows(a.capacity, b.capacity),
  };
}

/**
 * The two runs a comparison opens on: the newest run, against its A/B partner
 * when it is an arm of a session, else the newest earlier run that shares a
 * compared row with it. Older first (A). Empty with fewer than two.
 */
export function defaultPair(runs: ReadonlyArray<{ id: string; m: ManifestLike; stats: Record<string, unknown> }>): string[] {
  const byAge = [...runs].sort((x, y) => String(y.m.startedAt).localeCompare(String(x.m.startedAt)));
  const [newest, ...rest] = byAge;
  if (!newest) return [];
  const partner = rest.find((r) => interleaved(r.m, newest.m));
  // An A/B session's arms in their own order (A first); any other pair older first.
  if (partner) return (abOf(newest.m)!.arm === "A" ? [newest, partner] : [partner, newest]).map((r) => r.id);
  const other = rest.find((r) => Object.keys(r.stats).some((k) => k in newest.stats));
  return other ? [other.id, newest.id] : [];
}
