import { PAYLOAD_LIMIT_SIZES, payloadMetric } from "../../../analysis/contract/catalog";
import type { SideProfile } from "../../../analysis/contract/sideProfile";

/** SQLite-backed Durable Objects behind a Worker: how every view names them, their clocks (the Worker's and the driver's), their rates. */
export const CLOUDFLARE_PROFILE: SideProfile = {
  id: "cloudflare",
  name: "Durable Object",
  short: "DO",
  clock: "Worker's Date.now() around the awaited DO call",
  clockShort: "Worker-timed DO call",
  clientColumn: "Durable Object (client, via the Worker)",
  ownColumn: "Durable Object (Worker's clock)",
  route: "through the Worker (which then calls the DO) on the Durable Object side",
  runtimeProcess: "workerd",
  sleep:
    "on the Durable Object side, which has no sleep call, each live DO is reset at once (DurableObjectState.abort(): its next call is a fresh instance), and only for those a wake left idle, whose idle is measured, the group waits (holding the machine) until the last call to any of them is older than the idle eviction",
  about: "SQLite-backed Durable Objects called through a Worker.",
  platform: { name: "Cloudflare", actor: "DO", actors: "Durable Objects", front: "Worker" },
  pricing: [
    {
      name: "published formula",
      kind: "usage",
      requests: ["workersRequests", "doRequests"],
      durationGbS: "doDurationGbS",
      rowsRead: "doRowsRead",
      rowsWritten: "doRowsWritten",
    },
  ],
  ownClockNote:
    "the Worker column is the Durable Object on the reference's clock (the Worker's Date.now() around the awaited DO call, whole ms)",
  baseline: {
    what: "to the Worker with no DO call (/noop)",
    missing: "No /noop baseline in this run (the DO side's warm group takes it).",
    column: "DO client p50 minus /noop p50",
  },
  colour: "#f58518",
  role: "runtime",
  sleepsByIdleOnly: true,
  msIsClientClock: false,
  msTick: 1,
  throughputMethod: "littles-law",
  openRates: [50, 100, 200],
  // Cloudflare documents 2 MB as the largest string, BLOB or row of a SQLite-backed DO: the payload group tries it.
  optionalMetrics: [
    "create.unique",
    "baseline.noop",
    ...PAYLOAD_LIMIT_SIZES.flatMap((b) => [payloadMetric("write", b), payloadMetric("read", b)]),
  ],
  // Local workerd runs the Worker and its Durable Objects in one process: no inner hop on the wire.
  hops: {
    request: "POST /do/",
    front: "workerd",
    own: { field: "ms", name: "the Worker's Date.now() around the DO call (whole ms)", short: "DO call, Worker's clock" },
  },
};
