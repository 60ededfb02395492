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
 * step of its clock and its timers. A plant names the operations it slows
 * (plantSpec.ts).
 */
import { plantWords, type Plant } from "./plantSpec";

/** Spins for `us` microseconds on performance.now() (monotonic, sub-microsecond). */
export function spinUs(us: number): void {
  if (!(us > 0)) return;
  const until = performance.now() + us / 1000;
  while (performance.now() < until) {
    // Busy: the delay is the handler's own time.
  }
}

/** How the planted delay of a side reads in its manifest settings and the report. */
export function plantNote(plant: Plant, how: string): string {
  return `${plantWords(plant)} planted before it replies (--plant-delay-us): ${how}; a planted slowdown, not the side's own cost`;
}
