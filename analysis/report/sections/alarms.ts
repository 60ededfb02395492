/** Alarm lateness: per side, delay and case, the lateness percentiles on the actor's clock, failures and cold proofs. Renders the run model. */
import { ALARM } from "../../contract/catalog";
import type { SideBook } from "../../contract/sideProfile";
import type { AlarmRow } from "../../stats/alarms";
import type { LedgerRow } from "../../stats/claims";
import { ci, escapeMd, ms, table } from "../format";
import { claimTable } from "./claims";

const seconds = (ms: number) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);

export const ALARMS_NOTE =
  "Each alarm is set on a new store actor with the runtime's own mechanism (the Durable Object's Alarms API, RivetKit's scheduled action, a timer in the floor's server), the delay ahead; the actor records when it is due and, when its handler begins, when it fired and whether that instance was fresh. " +
  '"awake": the actor stays live until it fires; "asleep": it lets its instance go at once after setting the alarm (RivetKit sleep, DurableObjectState.abort(), the floor closing its file), so the alarm has to start a fresh one, which it must prove (not cold: not counted). ' +
  `Lateness is the handler's start less its due time on the actor's own Date.now() (whole ms; a DO's clock stands still within a call), with the p50's 95% interval over repetitions; an alarm not fired ${ALARM.boundMs / 1000} s after it was due is a failure.`;

export function renderAlarms(rows: readonly AlarmRow[], book: SideBook, claims: readonly LedgerRow[] = []): string {
  if (rows.length === 0) return "";
  const body = rows.map((r) => [
    book.get(r.side).short,
    seconds(r.delayMs),
    r.asleep ? "asleep" : "awake",
    r.p50 === null ? "-" : `${ms(r.p50)} ${ci(r.p50Interval)}`,
    ms(r.p90),
    ms(r.p99),
    String(r.n),
    `${r.failed}${r.firstError ? `: ${escapeMd(r.firstError.slice(0, 120))}` : ""}`,
    r.asleep ? String(r.notCold) : "-",
  ]);
  const head = ["side", "delay", "actor", "lateness p50 ms [95%]", "p90 ms", "p99 ms", "n", "failed", "not cold"];
  const stated = claims.filter((c) => "metric" in c.claim.measure && c.claim.measure.metric.startsWith("alarm."));
  return `## Alarm lateness\n\n${ALARMS_NOTE}\n\n${table(head, body)}${
    stated.length ? `\n\n### Beside the vendors' words\n\n${claimTable(stated, book)}` : ""
  }`;
}
