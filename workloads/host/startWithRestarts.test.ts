import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnManaged } from "./processes";
import { startWithRestarts } from "./startWithRestarts";
import { restartLines } from "../../cluster/restartPolicy";

/** A real process that fails its first `failures` starts (exit 1), then stays up; "up" is a file it writes. */
function flaky(dir: string, failures: number, finalCode?: number) {
  const count = join(dir, "count");
  const script =
    `n=$(cat ${count} 2>/dev/null || echo 0); echo $((n+1)) > ${count}; ` +
    (finalCode !== undefined
      ? `exit ${finalCode}`
      : `if [ "$n" -lt ${failures} ]; then echo "start $n lost the race" >&2; exit 1; fi; touch ${dir}/up; exec sleep 30`);
  const spawn = () => spawnManaged({ name: "flaky", command: "sh", args: ["-c", script], env: process.env, logFile: join(dir, "log") });
  return { spawn, ready: async () => existsSync(join(dir, "up")), starts: () => Number(readFileSync(count, "utf8")) };
}

describe("a start under a unit's restart policy", () => {
  it("tries a failed start again after RestartSec until it comes up, and counts the failures", async () => {
    const dir = mkdtempSync(join(tmpdir(), "restart-"));
    const f = flaky(dir, 2);
    const t0 = Date.now();
    const r = await startWithRestarts("flaky", f.spawn, { restartSec: 0.3, preventExitStatus: [3] }, f.ready, join(dir, "log"), 10_000);
    expect(r.restarts).toEqual([
      { code: 1, signal: null },
      { code: 1, signal: null },
    ]);
    expect(f.starts()).toBe(3);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
    await r.process.stop();
  });

  it("gives up at once on an exit the unit does not restart, with the log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "restart-"));
    const f = flaky(dir, 0, 3);
    await expect(
      startWithRestarts("flaky", f.spawn, { restartSec: 0.3, preventExitStatus: [3] }, f.ready, join(dir, "log"), 10_000),
    ).rejects.toThrow(/flaky exited 3, which its unit does not restart/);
    expect(f.starts()).toBe(1);
  });

  it("gives up when the time runs out, naming the restarts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "restart-"));
    const f = flaky(dir, 100);
    await expect(
      startWithRestarts("flaky", f.spawn, { restartSec: 0.2, preventExitStatus: [] }, f.ready, join(dir, "log"), 1_000),
    ).rejects.toThrow(/flaky failed \d+ starts within 1000 ms[\s\S]*lost the race/);
  });

  it("the unit lines say the same policy, with no start limit", () => {
    expect(restartLines({ restartSec: 2, preventExitStatus: [3] })).toEqual({
      unit: ["StartLimitIntervalSec=0"],
      service: ["Restart=on-failure", "RestartSec=2", "RestartPreventExitStatus=3"],
    });
  });
});
