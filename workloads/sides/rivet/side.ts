import { PLACEMENT_NOTE } from "../../../cluster/engineConfig";
import type { WatchedProcess } from "../../host/runtimeWatch";
import { watched, watchOf, type SideDescriptor, type SideRunSettings } from "../side";
import { rivetAdapter } from "./adapter";
import { GatewayClient } from "./gateway";
import { startEngineTopology } from "./localCluster";
import { engineBinaryFor, type EngineBinary } from "./engineFetch";
import { plantNote } from "../plant";
import { loopbackNote } from "../../host/loopback";
import { packageVersion } from "../../host/versions";
import { RIVET_PROFILE } from "./profile";
import { RIVET_DEFAULTS, RIVET_OPTIONS, rivetCheck, type RivetSettings } from "./settings";
import { hasPlant, type Plant } from "../plantSpec";

/** A running Engine + app the Rivet stages measure against, however it was started. */
interface RivetTarget {
  gatewayUrl: string;
  /** The Engine's admin token, where its API requires one; never written. */
  adminToken?: string;
  engineVersion: string;
  engineConfig: unknown;
  enginePid?: number;
  appPid?: number;
  /** How the processes were started, for the manifest. */
  startedBy: string;
  /** A local Engine's log, read after each stage for failures from a machine limit. */
  logFile?: string;
  /** The processes the runtime is made of, when this run started them: watched for an exit it did not ask for. */
  processes?: WatchedProcess[];
  /** The Engine release a run asked for (--engine-version), checked against its pin. */
  engineBinary?: EngineBinary;
  /** A planted delay, microseconds by operation (--plant-delay-us). */
  plant?: Plant;
}

/** What the manifest records about the Engine a run measured, besides its version. */
function engineSettings(cfg: SideRunSettings<RivetSettings>, target: RivetTarget): Record<string, unknown> {
  const e = cfg.own.engine;
  return {
    engineConfig: { ...(target.engineConfig as object), file_system: "(run temp dir)" },
    engineEnv: {
      RUST_BACKTRACE: e.keepRustBacktrace ? (process.env.RUST_BACKTRACE ?? null) : "removed",
      RUST_LIB_BACKTRACE: e.keepRustBacktrace ? (process.env.RUST_LIB_BACKTRACE ?? null) : "0",
      RUST_LOG: e.rustLog ?? null,
      RIVET_OTEL_ENABLED: cfg.otelEndpoint ? "1 (every span, to the run's collector on the loopback: --otel)" : null,
    },
    guardTcpNodelay: e.tcpNodelay,
    loadShedding: e.loadShedding
      ? "the Engine's default (workflow pulls cut past 70% machine CPU)"
      : "off (runtime.worker_load_shedding_curve): on one machine the Engine would shed on the driver's, the app's and workerd's CPU; see docs/engine-latency.md",
    placement: PLACEMENT_NOTE,
    guardGatewayV3: false,
    appTcpNodelay: "not settable (RivetKit native module)",
    actorSleepTimeoutMs: cfg.actorSleepTimeoutMs,
    engineAuth: target.adminToken
      ? "admin token required by the Engine's API and for runner registration (random per run or a stack secret; never written); actor calls through the gateway are public, as the Engine has them"
      : "none (one Engine on loopback)",
  };
}

/** What the report must say of the Rivet figures of this run. */
function rivetCaveats(cfg: SideRunSettings<RivetSettings>, target: RivetTarget): string[] {
  const out: string[] = [];
  if (target.engineBinary)
    out.push(
      `The Rivet Engine is release ${target.engineBinary.version} (asked for with --engine-version; binary sha256 ${target.engineBinary.sha256.slice(0, 16)}..., checked against its pin).`,
    );
  if (cfg.own.engineTopology === "single" && target.enginePid !== undefined)
    out.push("No replication: the Engine stored on one local file system and waited for no other zone.");
  const loopback = loopbackNote();
  if (loopback.quickack)
    out.push(
      `Delayed ACKs were off on the loopback route (quickack 1${loopback.privateNetns ? ", in a private network namespace" : ""}); see docs/engine-latency.md.`,
    );
  else
    out.push(
      "Delayed ACKs were on (the host's default loopback route): creates include 40 ms delayed-ACK stalls on the app's connection; see docs/engine-latency.md.",
    );
  if (!cfg.own.engine.keepRustBacktrace) out.push("The Engine and the app ran without RUST_BACKTRACE.");
  return out;
}

export const rivetSide: SideDescriptor<RivetTarget, RivetSettings> = {
  profile: RIVET_PROFILE,
  options: RIVET_OPTIONS,
  defaults: RIVET_DEFAULTS,
  check: rivetCheck,
  wakeIdleMs: (s) => s.wakeIdleMs,
  open(cfg, target) {
    const client = new GatewayClient(target.gatewayUrl, cfg.requestTimeoutMs, undefined, target.adminToken);
    return {
      adapter: rivetAdapter(client, {
        wakeIdleMs: rivetSide.wakeIdleMs(cfg),
        sleepConfirmTimeoutMs: cfg.own.sleepConfirmTimeoutMs,
        actorSleepTimeoutMs: cfg.actorSleepTimeoutMs,
        ...(target.logFile ? { runtimeLog: { name: "Engine", file: target.logFile } } : {}),
      }),
      cpuPids: () => ({ engine: target.enginePid, app: target.appPid, driver: process.pid }),
      ...watchOf(target.processes),
      versions: {
        engine: target.engineVersion,
        rivetkit: packageVersion("rivetkit"),
        "@rivetkit/engine-cli": packageVersion("@rivetkit/engine-cli"),
      },
      settings: {
        startedBy: target.startedBy,
        ...engineSettings(cfg, target),
        client: client.calls.description,
        engineApi: GatewayClient.API_CLIENT,
        ...(target.engineBinary
          ? {
              engineRelease: {
                version: target.engineBinary.version,
                sha256: target.engineBinary.sha256,
                source: target.engineBinary.source,
              },
            }
          : {}),
        ...(hasPlant(target.plant)
          ? { plantedDelay: plantNote(target.plant, "a spin on performance.now() at the end of the actor's action") }
          : {}),
        caveats: rivetCaveats(cfg, target),
      },
      close: (abort) => client.close(abort),
    };
  },
  async launch(cfg, workDir) {
    const engineBinary = cfg.own.engineVersion ? await engineBinaryFor(cfg.own.engineVersion) : undefined;
    const plant = cfg.plant;
    const rivet = await startEngineTopology(cfg.own.engineTopology, {
      workDir,
      settings: { ...cfg.own.engine, ...(cfg.otelEndpoint ? { otelGrpcEndpoint: cfg.otelEndpoint } : {}) },
      actorSleepTimeoutMs: cfg.actorSleepTimeoutMs,
      plant,
      ...(engineBinary ? { engineBinary: engineBinary.path } : {}),
    });
    return {
      target: {
        gatewayUrl: rivet.gatewayUrl,
        adminToken: rivet.adminToken,
        engineVersion: rivet.engineVersion,
        engineConfig: rivet.engineConfig,
        enginePid: rivet.engine.child.pid,
        appPid: rivet.app.child.pid,
        logFile: rivet.engineLog,
        processes: rivet.processes().map(watched),
        ...(engineBinary ? { engineBinary } : {}),
        ...(hasPlant(plant) ? { plant } : {}),
        startedBy: `npm start: ${cfg.own.engineTopology === "cluster" ? "three Engines (Postgres + NATS, haproxy in front)" : "Engine"} and app started for this run, stopped after it`,
      },
      processes: rivet.processes().map(watched),
      stop: () => rivet.stop(),
    };
  },
  daemonTarget(target) {
    const { adminToken, processes: _p, engineBinary: _b, ...rest } = target;
    const secrets: Record<string, string> = adminToken ? { adminToken } : {};
    return { target: rest as Record<string, unknown>, secrets, endpoint: target.gatewayUrl, health: `${target.gatewayUrl}/health` };
  },
};
