/** Writes and reads by value size: per side and size, the round trip, the actor's own SQL interval and the failures. Renders the run model. */
import { bytesWords } from "../../contract/catalog";
import type { SideBook } from "../../contract/sideProfile";
import type { LedgerRow } from "../../stats/claims";
import type { PayloadCell, PayloadRow } from "../../stats/payload";
import { ci, escapeMd, ms, table } from "../format";
import { claimTable } from "./claims";

export const PAYLOAD_NOTE =
  "One-row writes and point reads of values of each size, each size on a store actor of its own, created and warmed up first; the value is made inside the actor (the request names only its size), so the transfer does not dominate. " +
  "Round trips are the client's clock (driver hrtime) on every side, with the 95% interval of the p50 over repetitions; in the actor is the side's own SQL interval (performance.now() around the statement) where the side can time it (a Durable Object cannot: its clock stands still during synchronous SQL). " +
  "A size a side refuses fails its writes, each counted with the runtime's error; its reads are then not taken.";

const p50 = (c: PayloadCell | null) => (c?.p50 == null ? "-" : `${ms(c.p50)} ${ci(c.p50Interval)}`);
const failures = (c: PayloadCell | null) =>
  c ? `${c.errors} of ${c.n + c.errors}${c.firstError ? `: ${escapeMd(c.firstError.slice(0, 120))}` : ""}` : "-";

export function renderPayload(rows: readonly PayloadRow[], book: SideBook, claims: readonly LedgerRow[] = []): string {
  if (rows.length === 0) return "";
  const body = rows.map((r) => [
    book.get(r.side).short,
    bytesWords(r.bytes),
    p50(r.write),
    ms(r.write?.p99),
    ms(r.write?.sqlP50),
    p50(r.read),
    ms(r.read?.p99),
    ms(r.read?.sqlP50),
    failures(r.write),
  ]);
  const head = [
    "side",
    "value",
    "write p50 ms [95%]",
    "write p99 ms",
    "write, in the actor p50 ms",
    "read p50 ms [95%]",
    "read p99 ms",
    "read, in the actor p50 ms",
    "writes failed",
  ];
  const published = claims.filter((c) => "metric" in c.claim.measure && c.claim.measure.metric.startsWith("payload."));
  return `## Writes and reads by value size\n\n${PAYLOAD_NOTE}\n\n${table(head, body)}${
    published.length ? `\n\n### Beside the published figures\n\n${claimTable(published, book)}` : ""
  }`;
}
