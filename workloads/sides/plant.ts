/**
 * A planted change of known size: each side's own handler waits this long
 * before it replies (`--plant-delay-us`), so a comparison can be shown to
 * catch a change it was told of. On Rivet and the floor the handler's thread
 * is held: it sleeps (Atomics.wait) until HOLD_SPIN_MS before the end, then
 * spins on the monotonic clock to the microsecond. A spin alone would keep a
 * core busy and on a small machine slow the runtime's other processes too,
 * a larger change than the one planted (docs/repetitions.md has the
 * measurement). The Durable Object waits on a
 * timer in whole milliseconds (durableObjectPlantMs), the step of its clock
 * and its timers.
 */

/** How long before its end a hold stops sleeping and spins: more than a futex wake-up is late by (docs/repetitions.md). */
export const HOLD_SPIN_MS = 0.15;

const cell = new Int32Array(new SharedArrayBuffer(4));

/** Holds the calling thread for `us` microseconds: asleep, then a short spin on performance.now(). */
export function holdUs(us: number): void {
  if (!(us > 0)) return;
  const until = performance.now() + us / 1000;
  const sleep = us / 1000 - HOLD_SPIN_MS;
  // Nothing ever notifies this cell: the wait always runs to its timeout.
  if (sleep > 0) Atomics.wait(cell, 0, 0, sleep);
  while (performance.now() < until) {
    // The last stretch, to the microsecond.
  }
}

/** The Durable Object's timer for a planted delay: whole milliseconds, rounded up, so it is never shorter than asked. */
export const durableObjectPlantMs = (us: number) => Math.ceil(us / 1000);

/** How the planted delay of a side reads in its manifest settings and the report. */
export function plantNote(us: number, how: string): string {
  return `${us} us planted in every action before it replies (--plant-delay-us): ${how}; a planted slowdown, not the side's own cost`;
}
