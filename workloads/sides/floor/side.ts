import type { WatchedProcess } from "../../host/runtimeWatch";
import { packageVersion } from "../../host/versions";
import { ActorProtocolClient } from "../actorProtocol";
import { watched, watchOf, type SideDescriptor } from "../side";
import { floorAdapter, FLOOR_SETTINGS } from "./adapter";
import { startLocalFloor } from "./localFloor";
import { plantNote } from "../plant";
import { FLOOR_PROFILE } from "./profile";
import { hasPlant, type Plant } from "../plantSpec";

/** A running floor server. */
interface FloorTarget {
  url: string;
  serverPid?: number;
  idleCloseMs: number;
  /** A planted delay, microseconds by operation (--plant-delay-us). */
  plant: Plant;
  startedBy: string;
  /** The server, when this run started it: watched for an exit it did not ask for. */
  processes?: WatchedProcess[];
}

/**
 * The floor: the same stage plan against a plain Node server over SQLite
 * files, started with the actors' idle sleep timeout. Only the server's
 * own process loads better-sqlite3 (a dev dependency). It speaks the
 * project's own actor protocol (../actorProtocol.ts) on the driver's client.
 */
export const floorSide: SideDescriptor<FloorTarget, Record<string, never>> = {
  profile: FLOOR_PROFILE,
  options: [],
  defaults: {},
  wakeIdleMs: (s) => s.wakeIdleMs,
  open(cfg, target) {
    const client = new ActorProtocolClient(target.url, cfg.requestTimeoutMs);
    return {
      adapter: floorAdapter(client, { wakeIdleMs: floorSide.wakeIdleMs(cfg), idleCloseMs: target.idleCloseMs }),
      cpuPids: () => ({ server: target.serverPid, driver: process.pid }),
      ...watchOf(target.processes),
      versions: { "better-sqlite3": packageVersion("better-sqlite3") },
      settings: {
        ...FLOOR_SETTINGS,
        idleCloseMs: target.idleCloseMs,
        startedBy: target.startedBy,
        client: client.calls.description,
        ...(hasPlant(target.plant)
          ? { plantedDelay: plantNote(target.plant, "a spin on performance.now() in the server's handler before it replies") }
          : {}),
        caveats: [
          "The floor ran on the same machine in the same run, after or before the runtimes, and beside them only in the idle ladder, under the same one-measurement-at-a-time lock: it shares nothing with them but the machine.",
        ],
      },
      close: (abort) => client.close(abort),
    };
  },
  async launch(cfg, workDir) {
    const plant = cfg.plant;
    const floor = await startLocalFloor({ workDir, idleCloseMs: cfg.actorSleepTimeoutMs, plant });
    return {
      target: {
        url: floor.url,
        serverPid: floor.server.child.pid,
        idleCloseMs: cfg.actorSleepTimeoutMs,
        plant,
        startedBy: "npm start: the floor server started for this run, its files in a temp dir, removed after it",
        processes: [watched(floor.server)],
      },
      processes: [watched(floor.server)],
      stop: () => floor.stop(),
    };
  },
};
