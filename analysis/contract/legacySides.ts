/**
 * The three sides as the code described them before each run recorded its
 * sides' profiles in its manifest: the report of a run made then (the
 * committed runs up to 2026-12-05) reads them from here. A run made since
 * reads its own; nothing new is added here.
 */
import type { SideProfile } from "./sideProfileShape";

const CLIENT_TICK = 0.000001;

export const LEGACY_PROFILES: readonly SideProfile[] = [
  {
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
    msTick: CLIENT_TICK,
    throughputMethod: "measured",
    openRates: [5, 10, 20],
    optionalMetrics: ["warm.getOrCreate"],
  },
  {
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
      "on the Durable Object side, which has no sleep call, the group waits (holding the machine) until the last call to any of them is older than the idle eviction",
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
    optionalMetrics: ["create.unique", "baseline.noop"],
  },
  {
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
    msTick: CLIENT_TICK,
    throughputMethod: "measured",
    openRates: [50, 100, 200],
    optionalMetrics: [],
  },
];

type LegacyManifest = {
  stack: string;
  stages: Record<string, { side: string }>;
  files: Record<string, unknown>;
  settings?: Record<string, unknown>;
};

/** The line a side's settings gave when they named an Engine release (it came right after that side's planted delay). */
export function legacyReleaseLine(settings: unknown): string | null {
  const release = (settings as { engineRelease?: { version?: unknown; sha256?: unknown } } | null)?.engineRelease;
  return release && typeof release.version === "string"
    ? `The Rivet Engine is release ${release.version} (asked for with --engine-version; binary sha256 ${String(release.sha256).slice(0, 16)}..., checked against its pin).`
    : null;
}

/**
 * The caveats the report drew from a run's sides before each side recorded
 * its own (settings.<side>.caveats), in the words and order of that time:
 * `head` after the planted changes, `tail` last of all. `analyticsFile`
 * tells a stored analytics response by its name.
 */
export function legacyCaveats(m: LegacyManifest, analyticsFile: RegExp): { head: string[]; tail: string[] } {
  const out: string[] = [];
  const sides = new Set(Object.values(m.stages).map((s) => s.side));
  const settings = (m.settings ?? {}) as Record<string, Record<string, unknown> | undefined>;
  if (m.stack === "local") {
    out.push(
      "A local run: the Rivet Engine, the RivetKit app, workerd and the load driver all ran on this one machine, one side after the other, sharing its cores. These are the software's costs on a small machine, not what either cloud gives.",
    );
    out.push(
      "No replication: the Engine stores on one local file system and the DO's SQLite is a local file; neither waits for other zones.",
    );
    if (sides.has("floor"))
      out.push(
        "The floor ran on the same machine in the same run, after or before the runtimes, never beside them: it shares nothing with them but the machine.",
      );
    if (sides.has("cloudflare")) {
      out.push(
        "The Durable Object side ran on local workerd, which does not freeze timers and whose Date.now() steps in whole milliseconds: DO figures are integers and sub-millisecond calls read 0 or 1. They are not Cloudflare's figures.",
      );
      out.push(
        "No in-DO wall times: they come from Cloudflare's analytics on a cloud stack; local workerd has none. The DO side's in-system figure is the Worker-timed call, with the driver's own round trip (third clock) beside it.",
      );
    }
  }
  if (m.stack !== "local" && sides.has("cloudflare")) {
    out.push(
      "On Cloudflare a Worker's Date.now() advances only across I/O, so the Worker-timed figure is the awaited DO round trip at whole-millisecond resolution; the Worker's own CPU time is not in it.",
    );
    if (!Object.keys(m.files).some((f) => analyticsFile.test(f)))
      out.push("No in-DO wall times in this run: Cloudflare's analytics were not stored with it.");
  }
  const rivet = settings.rivet as
    | { loopback?: { quickack?: boolean | null; privateNetns?: boolean }; engineEnv?: { RUST_BACKTRACE?: string } }
    | undefined;
  if (rivet?.loopback?.quickack)
    out.push(
      `Delayed ACKs were off on the loopback route (quickack 1${rivet.loopback.privateNetns ? ", in a private network namespace" : ""}); see docs/engine-latency.md.`,
    );
  else if (rivet)
    out.push(
      "Delayed ACKs were on (the host's default loopback route): creates include 40 ms delayed-ACK stalls on the app's connection; see docs/engine-latency.md.",
    );
  if (rivet?.engineEnv?.RUST_BACKTRACE === "removed") out.push("The Engine and the app ran without RUST_BACKTRACE.");
  const tail = sides.has("cloudflare")
    ? [
        "Durable Object rates use Little's law on the Worker-timed mean, as the reference does; the driver's measured rate is shown beside them.",
      ]
    : [];
  return { head: out, tail };
}
