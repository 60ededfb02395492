/**
 * The actors a run has on one side, as the driver knows them: every actor a
 * reply named, when it was last called, and when the runtime confirmed it
 * asleep. What a group starts from (how many exist, how many are awake) is
 * read from here, the same way on every side.
 */
export interface ActorCount {
  /** Actors of this run on this side so far. */
  existing: number;
  /** Of those, the ones called since they were last confirmed asleep (or, where the runtime evicts by idle, called within its eviction time). */
  awake: number;
}

export class ActorCensus {
  private readonly lastCall = new Map<string, number>();
  private readonly asleepAt = new Map<string, number>();
  /** Told to sleep and never confirmed: counted awake, not waited for again until the next call to them. */
  private readonly unconfirmed = new Set<string>();
  /** Left to go to sleep by idle for a wake (a sleep on a runtime that sleeps by idle alone): never released, only waited out. */
  private readonly idling = new Set<string>();
  /** `evictAfterMs`: where the runtime puts an actor to sleep by idle alone (profile.sleepsByIdleOnly), how long that takes; null where sleep is confirmed. */
  constructor(
    readonly evictAfterMs: number | null,
    /** The clock of the census and of the wait for idle eviction (ms). */
    readonly clock: () => number = Date.now,
  ) {}

  called(id: string, at = this.clock()): void {
    this.lastCall.set(id, at);
    this.unconfirmed.delete(id);
    this.idling.delete(id);
  }
  /** Actors a wake leaves idle until the runtime's own eviction: a settle waits for them and never releases them. */
  leftIdle(ids: readonly string[]): void {
    for (const id of ids) if (this.lastCall.has(id)) this.idling.add(id);
  }
  /** The awake actors a settle may drop at once (release): all but those left idle for a wake. */
  toRelease(now = this.clock()): string[] {
    return this.awake(now).ids.filter((id) => !this.idling.has(id));
  }
  /** Actors a sleep did not confirm: they stay awake in the count, and settling skips them from now on. */
  notConfirmed(ids: readonly string[]): void {
    for (const id of ids) if (this.lastCall.has(id)) this.unconfirmed.add(id);
  }
  /** The awake actors worth telling to sleep: all but those a sleep already failed to confirm. */
  toSettle(now = this.clock()): string[] {
    return this.awake(now).ids.filter((id) => !this.unconfirmed.has(id));
  }
  confirmedAsleep(ids: readonly string[], at = this.clock()): void {
    for (const id of ids) if (this.lastCall.has(id)) this.asleepAt.set(id, at);
  }
  /** Actors awake at `now`, and the last call among them. */
  awake(now = this.clock()): { ids: string[]; lastCall: number } {
    const ids: string[] = [];
    let lastCall = 0;
    for (const [id, at] of this.lastCall) {
      const slept = this.asleepAt.get(id);
      if (slept !== undefined && slept >= at) continue;
      if (this.evictAfterMs !== null && now - at >= this.evictAfterMs) continue;
      ids.push(id);
      lastCall = Math.max(lastCall, at);
    }
    return { ids, lastCall };
  }
  count(now = this.clock()): ActorCount {
    return { existing: this.lastCall.size, awake: this.awake(now).ids.length };
  }
}
