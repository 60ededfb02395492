/**
 * The `sleep` op sent to many actors, a few at a time (setup, not
 * measured), as a progress step: Rivet's sleep and the floor's close both
 * use it, each over its own client.
 */
import { forEachBounded } from "../host/bounded";
import type { Progress } from "../experiment/progress";

/** Sleep calls and sleep queries in flight at once (setup, not measured). */
export const SLEEP_CONCURRENCY = 8;

/** One sleep call's result, as any side's client gives it. */
type SleepCall = (id: string) => Promise<{ ok: true; reply: { value: unknown } } | { ok: false; error: string }>;

/**
 * Sends `sleep` to each actor, SLEEP_CONCURRENCY at a time: which answered,
 * what each said, and the failures with their text. Past `deadlineMs` no
 * more are sent: each actor left is a failure that says so.
 */
export async function sendSleepCalls(
  sleep: SleepCall,
  ids: readonly string[],
  progress: Progress | undefined,
  stage: string,
  summary: (t: { told: Set<string>; failures: string[]; values: Map<string, unknown> }) => string,
  deadlineMs?: number,
): Promise<{ told: Set<string>; failures: string[]; values: Map<string, unknown> }> {
  const t = { told: new Set<string>(), failures: [] as string[], values: new Map<string, unknown>() };
  const step = progress?.start(stage, ids.length, "actors");
  const until = deadlineMs === undefined ? Infinity : Date.now() + deadlineMs;
  try {
    await forEachBounded(ids.length, SLEEP_CONCURRENCY, async (i) => {
      if (Date.now() > until) {
        t.failures.push(`sleep of actor ${ids[i]}: not sent, the deadline of ${deadlineMs} ms had passed`);
        return;
      }
      const r = await sleep(ids[i]);
      if (r.ok) {
        t.told.add(ids[i]);
        t.values.set(ids[i], r.reply.value);
      } else t.failures.push(`sleep of actor ${ids[i]}: ${r.error}`);
      step?.tick(t.told.size + t.failures.length, t.failures.length);
    });
  } finally {
    step?.finish(summary(t));
  }
  return t;
}
