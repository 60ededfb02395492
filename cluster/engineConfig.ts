/** Pure rendering of the local Engine's config file and environment. */

export interface EnginePorts {
  gateway: number;
  apiPeer: number;
  metrics: number;
}

export interface EngineSettings {
  /** Guard sets TCP_NODELAY on its sockets (Nagle off). */
  tcpNodelay: boolean;
  /** Keep RUST_BACKTRACE from the environment (costly: backtrace capture on every error path). */
  keepRustBacktrace: boolean;
  /** RUST_LOG for the engine; undefined leaves the engine's default. */
  rustLog?: string;
  /**
   * The Engine's workflow load shedding (gasoline pulls fewer workflows as
   * CPU use passes 70% and 5% of them past 90%). It reads the whole machine's
   * CPU (or its cgroup's), so on one machine shared with the driver, the app
   * and workerd it sheds on their load, not its own: creates then stall up to
   * the gateway's 15 s route timeout (docs/engine-latency.md). Off for a
   * local run; on (the Engine's default) on a VM of its own.
   */
  loadShedding: boolean;
  /** Where the Engine exports its OpenTelemetry traces (every span, over gRPC); undefined: no export. */
  otelGrpcEndpoint?: string;
}

/** The settings of a local run's Engines: one machine shared with the driver, the app and workerd. */
export const DEFAULT_ENGINE_SETTINGS: EngineSettings = { tcpNodelay: true, keepRustBacktrace: false, loadShedding: false };

/** An Engine on a VM of its own keeps the Engine's load shedding. */
export const DEDICATED_ENGINE_SETTINGS: EngineSettings = { ...DEFAULT_ENGINE_SETTINGS, loadShedding: true };

/** A pull ratio of 100% at any CPU use: the curve's two points (permille CPU, permille pulled) leave nothing to shed. */
export const NO_LOAD_SHEDDING_CURVE = [
  [1000, 1000],
  [1001, 999],
] as const;

/** The config's runtime section for `settings`: absent when the Engine keeps its own default. */
export function runtimeSection(settings: EngineSettings): { runtime?: { worker_load_shedding_curve: typeof NO_LOAD_SHEDDING_CURVE } } {
  return settings.loadShedding ? {} : { runtime: { worker_load_shedding_curve: NO_LOAD_SHEDDING_CURVE } };
}

/**
 * The Engine 2.3.19 settings that cap what one client or one process may do,
 * raised so that the benchmark (every request from one driver, one address)
 * measures the Engine and not its abuse limits. The same on every Engine,
 * local or cluster, and recorded in the manifest with the config.
 *
 * - guard.rate_limit: requests per client address per period. Guard's source
 *   has 10,000 per 60 s as its built-in value; a full preset sends more than
 *   that from the runner's one address.
 * - guard.max_in_flight: concurrent requests per client address (2,000 built in).
 * - pegboard.actor_create_rate_limit_*: a token bucket on actor creation; when
 *   empty, a create is refused at once with HTTP 429 creation_rate_limit (its
 *   built-in size is not documented; a test sets it to 5 and sees the 429s).
 *
 * Nothing to turn off for placement: Engine 2.3.19 moves no live actor
 * between runners or nodes on its own (rescheduling is an API call), and
 * with the one RivetKit app per pass every actor is allocated to that app
 * (pegboard.envoy_load_balancer only chooses among runners).
 */
export const ENGINE_CAPS = {
  guard: { rate_limit: { requests: 1_000_000_000, period_ms: 60_000 }, max_in_flight: 1_000_000 },
  pegboard: { actor_create_rate_limit_requests: 1_000_000_000, actor_create_rate_limit_drip_rate_ms: 1 },
} as const;

export const PLACEMENT_NOTE =
  "no automatic balancing to turn off: Engine 2.3.19 moves no live actor between runners or nodes on its own; every actor is allocated to the one RivetKit app";

export function renderEngineConfig(dataDir: string, ports: EnginePorts, settings: EngineSettings, host = "127.0.0.1") {
  return {
    file_system: { path: dataDir },
    telemetry: { enabled: false },
    guard: { host, port: ports.gateway, tcp_nodelay: settings.tcpNodelay, ...ENGINE_CAPS.guard },
    pegboard: { ...ENGINE_CAPS.pegboard },
    ...runtimeSection(settings),
    api_peer: { host, port: ports.apiPeer },
    metrics: { host, port: ports.metrics },
  };
}

/** The engine's environment: the parent's, minus what distorts the measurement. */
export function engineEnv(parent: NodeJS.ProcessEnv, settings: EngineSettings): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...parent };
  if (!settings.keepRustBacktrace) {
    delete env.RUST_BACKTRACE;
    env.RUST_LIB_BACKTRACE = "0";
  }
  if (settings.rustLog === undefined) delete env.RUST_LOG;
  else env.RUST_LOG = settings.rustLog;
  for (const k of ["RIVET_OTEL_ENABLED", "RIVET_OTEL_GRPC_ENDPOINT", "RIVET_OTEL_SAMPLER_RATIO"]) delete env[k];
  if (settings.otelGrpcEndpoint) {
    env.RIVET_OTEL_ENABLED = "1";
    env.RIVET_OTEL_GRPC_ENDPOINT = settings.otelGrpcEndpoint;
    // Every span: the waterfall sets a call's own trace beside its segments.
    env.RIVET_OTEL_SAMPLER_RATIO = "1";
  }
  return env;
}
