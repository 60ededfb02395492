import type { SideProfile } from "../../../analysis/contract/sideProfile";
import { CLIENT_TICK_MS } from "../../../analysis/contract/catalog";

/** Rivet Actors behind the Rivet Engine, called through its gateway: how every view names them, their clock, their rates. */
export const RIVET_PROFILE: SideProfile = {
  id: "rivet",
  name: "Rivet Actor",
  short: "Rivet",
  clock: "client round trip through the Engine gateway (driver hrtime)",
  clockShort: "client round trip",
  clientColumn: "Rivet Actor (client)",
  ownColumn: "Rivet Actor (client)",
  route: "through the Engine gateway on the Rivet side",
  runtimeProcess: "Engine",
  sleep: "the Rivet Engine reports them asleep (sleep_ts) after the awake ones are told to sleep",
  about: "Rivet Actors behind a Rivet Engine, called through its gateway.",
  intervals: { actorMs: "handler interval", sqlMs: "SQL interval around db.execute" },
  pricing: [
    { name: "self-hosted, measured CPU", kind: "cpu", vcpuSecond: "rivetComputeVcpuS" },
    {
      name: "Rivet Cloud",
      kind: "units",
      prices: ["rivetCloudReads", "rivetCloudWrites"],
      missing: "its reads and writes are not units this run counts",
    },
  ],
  colour: "#4c78a8",
  role: "runtime",
  sleepsByIdleOnly: false,
  msIsClientClock: true,
  msTick: CLIENT_TICK_MS,
  throughputMethod: "measured",
  openRates: [5, 10, 20],
  optionalMetrics: ["warm.getOrCreate"],
  hops: {
    request: "POST /gateway/",
    front: "Engine",
    inner: { process: "RivetKit process", forwardHeader: "x-rivet-ray-id", actorHeader: "x-rivet-actor", replyFraming: "websocket" },
    own: { field: "actorMs", name: "action handler (RivetKit's performance.now)", short: "handler" },
  },
};
