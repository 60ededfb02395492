/** The Rivet side's own settings: the Engine's, with their flags and stack keys, and what it refuses. */
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "../../../cluster/engineConfig";
import { oneOf, on, UsageError, type OptionSpec } from "../options";

export interface RivetSettings {
  engine: EngineSettings;
  /** single: one Engine on its file system; cluster: three Engines on Postgres + NATS behind haproxy, as in the cloud. */
  engineTopology: "single" | "cluster";
  /** The Engine release to run (absent: the one installed with the project), fetched once from the registry and checked against its pinned sha256. */
  engineVersion?: string;
  /** Upper bound on waiting for the Engine to report actors asleep. */
  sleepConfirmTimeoutMs: number;
}

export const RIVET_DEFAULTS: RivetSettings = { engine: DEFAULT_ENGINE_SETTINGS, engineTopology: "single", sleepConfirmTimeoutMs: 60_000 };

const engine = (p: Partial<RivetSettings>, e: Partial<EngineSettings>) => (p.engine = { ...RIVET_DEFAULTS.engine, ...p.engine, ...e });

export const RIVET_OPTIONS: readonly OptionSpec<Partial<RivetSettings>>[] = [
  {
    flag: "--engine-version",
    value: "X.Y.Z",
    default: "the installed Engine",
    help: "runs that Rivet Engine release, fetched once from the npm registry, its sha256 checked against the pin in cluster/engineRelease.ts",
    read: (v, name, p) => {
      if (!/^\d{1,4}\.\d{1,4}\.\d{1,4}(-[0-9A-Za-z.]{1,40})?$/.test(v))
        throw new UsageError(`${name} takes a release number such as 2.3.18, got ${JSON.stringify(v)}`);
      p.engineVersion = v;
    },
  },
  {
    flag: "--engine-nagle",
    default: "off",
    help: "leave the Engine's gateway without TCP_NODELAY",
    ...on((p) => engine(p, { tcpNodelay: false })),
  },
  {
    flag: "--engine-keep-backtrace",
    default: "off",
    help: "leave RUST_BACKTRACE to the Engine and the app",
    ...on((p) => engine(p, { keepRustBacktrace: true })),
  },
  {
    flag: "--engine-load-shedding",
    default: "off",
    help: "keep the Engine's workflow load shedding on",
    ...on((p) => engine(p, { loadShedding: true })),
  },
  {
    flag: "--engine-rust-log",
    value: "LEVEL",
    default: "off",
    help: "set RUST_LOG for the Engine",
    read: (v, _name, p) => engine(p, { rustLog: v }),
  },
  {
    flag: "--engine-topology",
    value: "single|cluster",
    key: "engineTopology",
    default: RIVET_DEFAULTS.engineTopology,
    stackDefault: RIVET_DEFAULTS.engineTopology,
    help: "one Engine on its file system, or three on Postgres and NATS behind haproxy, as in the cloud",
    ...oneOf(["single", "cluster"] as const, "single or cluster", (p, v) => (p.engineTopology = v)),
  },
];

/** The Rivet side's settings out of a run config's sideSettings (its defaults where the config has none). */
export const rivetSettingsOf = (sideSettings: Record<string, unknown>): RivetSettings => ({
  ...RIVET_DEFAULTS,
  ...(sideSettings.rivet as Partial<RivetSettings> | undefined),
});

/** A cluster cannot run in the quickack namespace. */
export function rivetCheck(s: { loopback: string; own: RivetSettings }): string | null {
  // The quickack namespace is a user namespace too, where only root is mapped, and Postgres refuses to run as root.
  return s.own.engineTopology === "cluster" && s.loopback === "quickack"
    ? "--engine-topology cluster needs --loopback host: its Postgres cannot run inside the quickack namespace (a user namespace with root as its only user)"
    : null;
}
