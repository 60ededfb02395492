import { ALARM, metricEntry, metricsOf } from "../../../analysis/contract/catalog";
import type { AlarmState } from "../../../analysis/contract/operations";
import type { ActorRef, PlanContext, SideOutcome } from "../adapter";
import type { Outcome } from "../measure";
import { holdOf, measureStage, setup, stageSize } from "../stageKit";
import type { GroupUnit } from "./unit";

/** An alarmResult reply's value, checked (the runtime's answer is untrusted): an AlarmState, or why not. */
export function readAlarmState(value: unknown): AlarmState | string {
  if (value === null || value === undefined) return "the actor has no alarm recorded";
  const v = value as Partial<AlarmState>;
  if (typeof v !== "object" || !Number.isFinite(v.due) || !(v.fired === null || Number.isFinite(v.fired)))
    return `alarmResult answered ${JSON.stringify(value).slice(0, 120)}, not {due, fired, cold}`;
  return { due: v.due!, fired: v.fired ?? null, cold: v.cold === true ? true : v.cold === false ? false : null };
}

/**
 * One alarm's sample from its actor's alarmResult: the read's round trip as
 * `ms` (driver hrtime), its lateness (handler start less due time, the
 * actor's own clock) as `lateMs`, and as the cold flag whether the handler ran
 * on a fresh instance. An alarm not fired by the time it is read failed.
 */
export function alarmOutcome(r: SideOutcome, boundMs: number): Outcome {
  if (!r.ok) return r;
  const st = readAlarmState(r.reply.value);
  if (typeof st === "string") return { ok: false, ms: r.ms, error: st };
  if (st.fired === null) return { ok: false, ms: r.ms, error: `the alarm had not fired ${boundMs} ms after it was due` };
  return { ok: true, ms: r.ms, reply: { cold: st.cold === true, actorMs: null, sqlMs: null }, lateMs: st.fired - st.due };
}

/** Sets one alarm on each of `n` new store actors, `delayMs` ahead; those `asleep` go to sleep at once. */
async function setAlarms(ctx: PlanContext, metric: string, delayMs: number, asleep: boolean): Promise<ActorRef[]> {
  const refs: ActorRef[] = [];
  const n = stageSize(ctx, metric);
  for (let i = 0; i < n; i++) {
    const first = await setup(ctx, `${metric} actor create`, () =>
      ctx.adapter.call({ key: `${ctx.keyPrefix}-${metric}-${i}`, actor: "store" }, "ping"),
    );
    refs.push({ id: first.actorId });
  }
  for (const ref of refs)
    await setup(ctx, `${metric} alarm set`, () => ctx.adapter.call(ref, asleep ? "setAlarmSleep" : "setAlarm", delayMs));
  return refs;
}

/**
 * Alarm lateness: for each delay, alarms set on actors that stay awake and on
 * actors that go to sleep at once (the alarm has to wake them), a new actor for
 * each; the run waits, holding the machine, until the last is `boundMs` past
 * due, then reads each actor's record: one sample per alarm.
 */
async function alarmsGroup(ctx: PlanContext): Promise<void> {
  const metrics = metricsOf(ctx.adapter.profile, "alarms");
  for (const delayMs of ALARM.delaysMs) {
    const sets: Array<{ metric: string; refs: ActorRef[] }> = [];
    for (const metric of metrics.filter((m) => metricEntry(m)?.alarm?.delayMs === delayMs)) {
      sets.push({ metric, refs: await setAlarms(ctx, metric, delayMs, metricEntry(metric)!.alarm!.asleep) });
    }
    await holdOf(ctx)(delayMs + ALARM.boundMs);
    for (const s of sets) {
      await measureStage(ctx, s.metric, async (i) => alarmOutcome(await ctx.adapter.call(s.refs[i], "alarmResult"), ALARM.boundMs), {
        n: s.refs.length,
        notes: { delayMs, boundMs: ALARM.boundMs, asleep: metricEntry(s.metric)!.alarm!.asleep },
      });
    }
  }
}

export const alarms: GroupUnit = {
  run: alarmsGroup,
  order: "inline",
  shape: () => ({ heldIdleMs: ALARM.delaysMs.reduce((t, d) => t + d + ALARM.boundMs, 0) }),
};
