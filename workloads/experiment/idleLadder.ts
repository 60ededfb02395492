/**
 * The idle ladder's order: the whole ladder costs about its longest step, not
 * the sum of its steps. The longest step's actors are prepared first; while
 * they sit idle, each shorter step that fits before their wake is run whole
 * inside that wait (prepared, left idle, woken), nested the same way; a step
 * that fits nowhere runs after. Whether a step fits is judged from the
 * preparations and wakes already timed, so a slow runtime nests less.
 */

interface LadderSteps {
  /** Prepares the actors of the step of `idleMs`; its idle starts when this resolves. */
  prepare(idleMs: number): Promise<void>;
  /** Waits until `at` (ms on `now`'s clock); other work may run meanwhile. */
  waitUntil(at: number, idleMs: number): Promise<void>;
  /** Wakes the actors of the step of `idleMs`, each once. */
  wake(idleMs: number): Promise<void>;
  now(): number;
}

/** Slack a nested step must leave before the wake of the step around it. */
export const LADDER_MARGIN_MS = 2_000;
/** Before any wake is timed, a wake set is taken to cost this many times its preparation (prepared several at a time, woken one at a time). */
const FIRST_WAKE_FACTOR = 8;

/** Runs the ladder (see above); returns what happened in order, e.g. ["prepare 5m", "prepare 2m", ..., "wake 2m", "wake 5m"]. */
export async function runLadder(lengths: readonly number[], steps: LadderSteps, label: (ms: number) => string = String): Promise<string[]> {
  const queue = [...lengths].sort((a, b) => b - a);
  const order: string[] = [];
  let prepMs = 0;
  let wakeMs: number | undefined;
  const cost = (idleMs: number) => prepMs + idleMs + (wakeMs ?? prepMs * FIRST_WAKE_FACTOR) + LADDER_MARGIN_MS;
  const fill = async (until: number | null): Promise<void> => {
    for (;;) {
      const k = queue.findIndex((ms) => until === null || steps.now() + cost(ms) <= until);
      if (k < 0) return;
      const [idleMs] = queue.splice(k, 1);
      const t0 = steps.now();
      await steps.prepare(idleMs);
      order.push(`prepare ${label(idleMs)}`);
      const ready = steps.now();
      prepMs = Math.max(prepMs, ready - t0);
      const due = ready + idleMs;
      await fill(due);
      await steps.waitUntil(due, idleMs);
      const t1 = steps.now();
      await steps.wake(idleMs);
      order.push(`wake ${label(idleMs)}`);
      wakeMs = Math.max(wakeMs ?? 0, steps.now() - t1);
    }
  };
  await fill(null);
  return order;
}
