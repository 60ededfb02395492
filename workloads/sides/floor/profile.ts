import type { SideProfile } from "../../../analysis/contract/sideProfile";
import { CLIENT_TICK_MS } from "../../../analysis/contract/catalog";

/** The floor: the same operations with no actor system, read beside the runtimes: how every view names it, its clock, its rates. */
export const FLOOR_PROFILE: SideProfile = {
  id: "floor",
  name: "Floor (Node http + SQLite file)",
  short: "Floor",
  clock: "client round trip to a plain Node server (driver hrtime)",
  clockShort: "client round trip",
  clientColumn: "Floor (client)",
  ownColumn: "Floor (client)",
  route: "straight to the floor server on the floor side",
  runtimeProcess: "floor server",
  sleep: "the floor closes their files",
  about:
    "The floor is the same operations on a plain Node server over one SQLite file per key, with no actor system: the least this machine can do them in.",
  controlAbout:
    "The floor does each operation with no actor system: one plain Node http server on this machine, the driver's own client and protocol, one SQLite file per key (a create opens a new file, a wake reopens a closed one, a write is answered after its commit is fsynced).",
  colour: "#54a24b",
  role: "control",
  sleepsByIdleOnly: false,
  msIsClientClock: true,
  msTick: CLIENT_TICK_MS,
  throughputMethod: "measured",
  openRates: [50, 100, 200],
  optionalMetrics: [],
  hops: {
    request: "POST /actor/",
    front: "floor server",
    own: { field: "actorMs", name: "operation (the server's performance.now)", short: "operation" },
  },
};
