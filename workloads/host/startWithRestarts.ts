/**
 * A start that follows a unit's restart policy (cluster/restartPolicy.ts): the
 * local twin starts its Engines the way systemd starts the VMs' units, all at
 * once, a failed start tried again after RestartSec.
 */
import { logTail } from "./waitFor";
import type { Managed } from "./processes";
import type { RestartPolicy } from "../../cluster/restartPolicy";

interface StartedWithRestarts {
  process: Managed;
  /** Failed starts before the one that came up, with how each ended. */
  restarts: Array<{ code: number | null; signal: string | null }>;
}

/**
 * Spawns, and until `ready()` says yes, spawns again RestartSec after every
 * failed start, as systemd would; an exit listed in preventExitStatus, or
 * `timeoutMs` passing, ends it with the log's last lines.
 */
export async function startWithRestarts(
  name: string,
  spawn: () => Managed,
  policy: RestartPolicy,
  ready: () => Promise<boolean>,
  logFile: string,
  timeoutMs: number,
): Promise<StartedWithRestarts> {
  const deadline = Date.now() + timeoutMs;
  const restarts: StartedWithRestarts["restarts"] = [];
  for (;;) {
    const m = spawn();
    let ended: { code: number | null; signal: string | null } | undefined;
    void m.exited.then((e) => (ended = e));
    while (!ended && Date.now() < deadline) {
      if (await ready()) return { process: m, restarts };
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!ended) {
      await m.stop();
      throw new Error(
        `${name} did not come up within ${timeoutMs} ms (${restarts.length} restarts). Last log lines of ${logFile}:\n${logTail(logFile)}`,
      );
    }
    if (ended.code !== null && policy.preventExitStatus.includes(ended.code)) {
      throw new Error(`${name} exited ${ended.code}, which its unit does not restart. Last log lines of ${logFile}:\n${logTail(logFile)}`);
    }
    restarts.push(ended);
    if (Date.now() + policy.restartSec * 1000 > deadline)
      throw new Error(
        `${name} failed ${restarts.length} starts within ${timeoutMs} ms. Last log lines of ${logFile}:\n${logTail(logFile)}`,
      );
    await new Promise((r) => setTimeout(r, policy.restartSec * 1000));
  }
}
