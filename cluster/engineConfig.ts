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
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = { tcpNodelay: true, keepRustBacktrace: false };

export function renderEngineConfig(dataDir: string, ports: EnginePorts, settings: EngineSettings, host = "127.0.0.1") {
  return {
    file_system: { path: dataDir },
    telemetry: { enabled: false },
    guard: { host, port: ports.gateway, tcp_nodelay: settings.tcpNodelay },
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
  return env;
}
