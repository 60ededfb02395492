/**
 * A run's calibration: three short measures of the machine taken at its
 * start (a fixed CPU loop, a 4 KB write with its fsync, a loopback round
 * trip), each repeated in rounds, so two runs' machines can be told apart.
 * Pure and free of Node imports: read from a manifest that may come from
 * another machine, so its shape is checked, never trusted.
 */
import { nearestRank } from "./percentiles";

export const CALIBRATION_MEASURES = {
  cpu: "a fixed loop of integer arithmetic (ms a round)",
  fsync: "a 4 KB write and its fsync in the runtimes' temp folder (ms each, mean of a round)",
  loopback: "a 64-byte TCP round trip over the run's loopback (ms, median of a round)",
} as const;
export type CalibrationMeasure = keyof typeof CALIBRATION_MEASURES;

export interface Calibration {
  /** Each measure's rounds, in ms, in the order taken. */
  rounds: Record<CalibrationMeasure, number[]>;
}

/** Rounds a calibration may hold per measure: more is no manifest this code wrote. */
const MAX_ROUNDS = 100;

/** The calibration a manifest holds, or null where it has none or its shape is not this code's. */
export function readCalibration(x: unknown): Calibration | null {
  const rounds = (x as { rounds?: unknown } | null)?.rounds as Record<string, unknown> | undefined;
  if (!rounds || typeof rounds !== "object") return null;
  for (const k of Object.keys(CALIBRATION_MEASURES)) {
    const r = rounds[k];
    if (
      !Array.isArray(r) ||
      r.length === 0 ||
      r.length > MAX_ROUNDS ||
      !r.every((v) => typeof v === "number" && Number.isFinite(v) && v > 0)
    )
      return null;
  }
  return { rounds: Object.fromEntries(Object.keys(CALIBRATION_MEASURES).map((k) => [k, rounds[k] as number[]])) as Calibration["rounds"] };
}

/** A measure's median over its rounds. */
export const calibrationMedian = (rounds: readonly number[]) =>
  nearestRank(
    [...rounds].sort((a, b) => a - b),
    50,
  );

/** How far apart two medians must be, besides their rounds not overlapping, to count as another machine. */
const CALIBRATION_TOLERANCE = 0.1;

/**
 * The measures on which two runs' machines differ beyond their own noise:
 * the two runs' rounds do not overlap at all and their medians are more than
 * CALIBRATION_TOLERANCE apart. Each in words.
 */
export function calibrationDifferences(a: Calibration, b: Calibration): string[] {
  const out: string[] = [];
  for (const [k, what] of Object.entries(CALIBRATION_MEASURES) as Array<[CalibrationMeasure, string]>) {
    const ra = a.rounds[k];
    const rb = b.rounds[k];
    const apart = Math.max(...ra) < Math.min(...rb) || Math.max(...rb) < Math.min(...ra);
    const ma = calibrationMedian(ra);
    const mb = calibrationMedian(rb);
    if (apart && Math.abs(Math.log(mb / ma)) > Math.log(1 + CALIBRATION_TOLERANCE)) {
      out.push(
        `${k}, ${what}: ${fmt(ma)} in A, ${fmt(mb)} in B (B/A ${(mb / ma).toFixed(2)}; medians of ${ra.length} and ${rb.length} rounds that do not overlap)`,
      );
    }
  }
  return out;
}

const fmt = (x: number) => `${x < 1 ? x.toFixed(3) : x.toFixed(2)} ms`;
