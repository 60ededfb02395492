/**
 * The idle ladder: actors left untouched for a set of idle lengths, then
 * called once. Each length is a stage of its own, `wake.idle.<length>`
 * (`wake.idle.30s`, `wake.idle.2m`), read alike by the driver, which runs the
 * ladder, and the report, which draws wake latency against idle length.
 */

/** Lengths are whole seconds, from one second to two hours. */
export const IDLE_BOUNDS = { minMs: 1_000, maxMs: 7_200_000, maxSteps: 12 } as const;

/** The ladders a run takes when --idle-ladder is not given: local presets stop at 5 minutes, `full` and a cloud stack go on past 10. */
export const IDLE_LADDERS = {
  local: [10_000, 30_000, 60_000, 120_000, 300_000],
  long: [10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_200_000],
} as const;

/** `30s`, `2m`, `1h`, `90s`: the shortest exact form of a whole number of seconds. */
export function idleLabel(ms: number): string {
  const s = ms / 1000;
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s % 60 === 0) return `${s / 60}m`;
  return `${s}s`;
}

const LENGTH = /^([1-9]\d{0,4})(s|m|h)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** A length as written (`30s`, `2m`, `1h`) in ms, or null. */
export function parseIdleLength(text: string): number | null {
  const m = LENGTH.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : null;
}

/** A ladder as written (`10s,30s,1m`): its lengths ascending, or the reason it is not one. */
export function parseIdleLadder(text: string): { lengths: number[] } | { error: string } {
  const items = text
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
  const lengths: number[] = [];
  for (const item of items) {
    const ms = parseIdleLength(item);
    if (ms === null) return { error: `"${item}" is not a length such as 30s, 2m or 1h` };
    if (ms < IDLE_BOUNDS.minMs || ms > IDLE_BOUNDS.maxMs)
      return { error: `${item} is outside ${idleLabel(IDLE_BOUNDS.minMs)} to ${idleLabel(IDLE_BOUNDS.maxMs)}` };
    if (lengths.includes(ms)) return { error: `${item} is given twice` };
    lengths.push(ms);
  }
  if (lengths.length === 0) return { error: "no length given" };
  if (lengths.length > IDLE_BOUNDS.maxSteps) return { error: `${lengths.length} lengths, at most ${IDLE_BOUNDS.maxSteps}` };
  return { lengths: lengths.sort((a, b) => a - b) };
}

export const idleMetric = (ms: number): string => `wake.idle.${idleLabel(ms)}`;
const IDLE_ID = /^wake\.idle\.([1-9]\d{0,4}[smh])$/;

/** The idle length of a ladder metric, or undefined for any other id. Only the shortest form is one (`wake.idle.60s` is not). */
export function parseIdleMetric(id: string): { idleMs: number } | undefined {
  const m = IDLE_ID.exec(id);
  const ms = m ? parseIdleLength(m[1]) : null;
  return ms !== null && ms >= IDLE_BOUNDS.minMs && ms <= IDLE_BOUNDS.maxMs && idleMetric(ms) === id ? { idleMs: ms } : undefined;
}

/**
 * Whether a ladder step's wakes must each prove a fresh instance: only past
 * the idle after which the runtime itself is sure to have slept or evicted
 * an actor no one called (its adapter's idleSleepMs). At or below it an
 * actor may still be running, and the cold flag is reported, not required.
 */
export const coldRequired = (idleMs: number, idleSleepMs: number): boolean => idleMs > idleSleepMs;
