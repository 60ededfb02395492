import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { nsenterArgv, unshareFlags } from "../host/netns";
import { daemonAlive, groupMembers, processStartTime, reachArgv, stopDaemon, type DaemonHandle } from "./daemons";

/** A detached "daemon" (a group leader) whose one child runs `child` in its process group. */
async function fakeDaemon(child: string): Promise<DaemonHandle> {
  const leader = spawn("sh", ["-c", `(${child}) & exec sleep 60`], { detached: true, stdio: "ignore" });
  leader.unref();
  const pid = leader.pid!;
  // Until the child has forked, the group holds the leader alone.
  while (groupMembers(pid).length < 2) await new Promise((r) => setTimeout(r, 20));
  return { kind: "test", pid, startTime: processStartTime(pid)!, netns: false, stateDir: "", log: "", ready: {} };
}

describe("daemon identity", () => {
  it("a pid's start time is stable while it lives and gone after", async () => {
    const child = spawn("sleep", ["30"]);
    const st = processStartTime(child.pid!);
    expect(st).toMatch(/^\d+$/);
    expect(processStartTime(child.pid!)).toBe(st);
    expect(daemonAlive({ pid: child.pid!, startTime: st! })).toBe(true);
    // Same pid, other start time: a reused pid is not the daemon.
    expect(daemonAlive({ pid: child.pid!, startTime: String(Number(st) + 1) })).toBe(false);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(daemonAlive({ pid: child.pid!, startTime: st! })).toBe(false);
  });
  it("reaches a namespaced daemon through nsenter (into its user namespace too where it has one), a host one directly", () => {
    // Real root makes the namespace with `unshare -n` alone; anyone else with `-rn`, a user namespace around it.
    const asRoot = process.geteuid?.() === 0;
    expect(reachArgv({ pid: 42, netns: true }, ["node", "x.js"])).toEqual([
      "nsenter",
      "-t",
      "42",
      ...(asRoot ? [] : ["-U"]),
      "-n",
      "--preserve-credentials",
      "--",
      "node",
      "x.js",
    ]);
    expect(reachArgv({ pid: 42, netns: false }, ["node", "x.js"])).toEqual(["node", "x.js"]);
    expect(nsenterArgv(42, ["true"], 1000)).toContain("-U");
    expect(nsenterArgv(42, ["true"], 0)).not.toContain("-U");
    expect(unshareFlags(0)).toEqual(["-n"]);
    expect(unshareFlags(1000)).toEqual(["-rn"]);
  });
  it("a stop returns once every process of the daemon's group has exited, not just the daemon", async () => {
    // The child outlives SIGTERM by a second, as a runtime's own child does after its wrapper exits.
    const h = await fakeDaemon(`trap "" TERM; sleep 1; exit 0`);
    expect(groupMembers(h.pid)).toContain(h.pid);
    await stopDaemon(h, 2_000);
    expect(daemonAlive(h)).toBe(false);
    expect(groupMembers(h.pid)).toEqual([]);
  });
  it("a child that ignores SIGTERM is killed after the grace time, and the stop still returns", async () => {
    const h = await fakeDaemon(`trap "" TERM; sleep 60`);
    await stopDaemon(h, 1_000);
    expect(groupMembers(h.pid)).toEqual([]);
  }, 20_000);
});
