/**
 * A planted change of known size: each side's own handler waits this long
 * before it replies (`--plant-delay-us`), so a comparison can be shown to
 * catch a change it was told of. On Rivet and the floor the handler spins on
 * the monotonic clock: the thread stays busy, as the work it stands for
 * would keep it. Putting the thread to sleep instead frees its core, and on
 * a 2-core machine that moves where the runtime's threads run: the round
 * trip then came out faster or slower than without it from one repetition
 * to the next (docs/repetitions.md), no change of known size. The Durable
 * Object waits on a timer in whole milliseconds (durableObjectPlantMs), the
 * step of its clock and its timers.
 */

/** Spins for `us` microseconds on performance.now() (monotonic, sub-microsecond). */
export function spinUs(us: number): void {
  if (!(us > 0)) return;
  const until = performance.now() + us / 1000;
  while (performance.now() < until) {
    // Busy: the delay is the handler's own time.
  }
}

/** The Durable Object's timer for a planted delay: whole milliseconds, rounded up, so it is never shorter than asked. */
export const durableObjectPlantMs = (us: number) => Math.ceil(us / 1000);

/** How the planted delay of a side reads in its manifest settings and the report. */
export function plantNote(us: number, how: string): string {
  return `${us} us planted in every action before it replies (--plant-delay-us): ${how}; a planted slowdown, not the side's own cost`;
}
