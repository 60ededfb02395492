import { join } from "node:path";
import { captureFileName, type CaptureNote } from "../../analysis/contract/hops";
import { startCapture } from "../host/capture";
import type { StageCapture } from "../experiment/adapter";
import type { RunDir } from "../experiment/runDir";

const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/** Pure: the port of an origin on this machine's loopback, or null where its calls leave the machine. */
export function loopbackPort(origin: string | undefined): number | null {
  if (!origin) return null;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return null;
  }
  if (!LOOPBACK_HOSTS.includes(u.hostname)) return null;
  return Number(u.port || (u.protocol === "https:" ? 443 : 80));
}

/**
 * The capture of a side's stages (--capture): each stage's repetition to its
 * own file in the run directory, hashed with it. One that cannot start or stop
 * is noted in the stage's record; the stage is measured all the same.
 */
export function stageCapturer(run: RunDir, side: string, port: number): (metric: string) => Promise<StageCapture> {
  return async (metric) => {
    const note: CaptureNote = { file: captureFileName(side, metric, run.repetition), port };
    try {
      const c = await startCapture(join(run.dir, note.file), port);
      return {
        note,
        stop: async () => {
          try {
            return { ...note, ...(await c.stop()) };
          } catch (err) {
            return { ...note, error: (err as Error).message };
          }
        },
      };
    } catch (err) {
      const failed = { ...note, error: (err as Error).message };
      return { note: failed, stop: async () => failed };
    }
  };
}
