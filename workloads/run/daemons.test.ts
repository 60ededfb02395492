import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { nsenterArgv, unshareFlags } from "../host/netns";
import { daemonAlive, processStartTime, reachArgv } from "./daemons";

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
});
