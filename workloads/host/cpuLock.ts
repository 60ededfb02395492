/**
 * One measurement at a time on this machine. A group holds the lock while it
 * runs (setup and measured stages alike, since setup loads the same CPUs);
 * only an idle wait gives it up, so another group's stages can use the time
 * an actor spends asleep. FIFO: a group that finishes its idle wait measures
 * before any group that asks later.
 */
export class CpuLock {
  private held = false;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms))) {}

  async acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return;
    }
    await new Promise<void>((r) => this.queue.push(r));
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.held = false;
  }

  async exclusive<T>(f: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await f();
    } finally {
      this.release();
    }
  }

  /** Called by a holder: lets others run for `ms` (or while `sleep` sleeps), then waits its turn again. Resolves holding the lock. */
  async idle(ms: number, sleep: (ms: number) => Promise<void> = this.sleep): Promise<void> {
    this.release();
    try {
      await sleep(ms);
    } finally {
      await this.acquire();
    }
  }
}

/**
 * Runs groups in suite order under one CpuLock. Groups in `overlapping` (the
 * wakes, whose idle wait needs no CPU) are started and not awaited, so the next
 * groups run during their idle wait; `last` groups (bursts) wait for every
 * group before them in their lane, so they still run last and alone there.
 * Lanes (`laneOf`, one by default) are the sides of a run that takes both: a
 * side's last group waits for that side's groups, while the other side's idle
 * wait, which measures nothing, may still be going on.
 */
export async function runOverlapped<G extends string>(
  groups: readonly G[],
  run: (g: G) => Promise<void>,
  lock: CpuLock,
  overlapping: ReadonlySet<G>,
  last: ReadonlySet<G>,
  laneOf: (g: G) => string = () => "",
): Promise<void> {
  const pending: Array<{ lane: string; task: Promise<void> }> = [];
  for (const g of groups) {
    if (last.has(g)) await Promise.all(pending.filter((p) => p.lane === laneOf(g)).map((p) => p.task));
    const task = lock.exclusive(() => run(g));
    if (overlapping.has(g)) pending.push({ lane: laneOf(g), task });
    else await task;
  }
  await Promise.all(pending.map((p) => p.task));
}
