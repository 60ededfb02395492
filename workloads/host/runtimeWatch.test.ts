import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { describeExit, RuntimeLost, RuntimeWatch, StallClock, STALL_MS, type WatchedProcess } from "./runtimeWatch";

/** A real child process to watch. */
function child(name = "sleeper"): WatchedProcess & { kill(sig: NodeJS.Signals): void } {
  const c = spawn("sleep", ["30"], { stdio: "ignore" });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    c.once("exit", (code, signal) => r({ code, signal })),
  );
  return { name, pid: c.pid, exited, kill: (sig) => c.kill(sig) };
}

describe("the runtime watch", () => {
  it("names the process and its signal or code in one line", () => {
    expect(describeExit("rivet-engine", 123, null, "SIGKILL")).toBe("rivet-engine (pid 123) was killed by SIGKILL");
    expect(describeExit("workerd", 9, 1, null)).toBe("workerd (pid 9) exited with code 1");
    expect(describeExit("floor-server", null, null, null)).toBe("floor-server ended");
  });

  it("knows at once when a watched process is killed, and only the first loss counts", async () => {
    const a = child("rivet-engine");
    const b = child("rivetkit-app");
    const watch = new RuntimeWatch([a, b]);
    expect(watch.dead).toBeUndefined();
    expect(() => watch.check()).not.toThrow();
    const t0 = Date.now();
    a.kill("SIGKILL");
    const loss = await watch.lost;
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(loss).toMatchObject({
      process: "rivet-engine",
      pid: a.pid,
      signal: "SIGKILL",
      code: null,
      message: `rivet-engine (pid ${a.pid}) was killed by SIGKILL`,
    });
    b.kill("SIGTERM");
    await b.exited;
    expect(watch.dead?.process).toBe("rivet-engine");
    expect(() => watch.check()).toThrow(RuntimeLost);
    expect(() => watch.check()).toThrow(/rivet-engine \(pid \d+\) was killed by SIGKILL at 20\d\d-/);
  });

  it("an exit after disarm (a planned stop) is no loss", async () => {
    const a = child();
    const watch = new RuntimeWatch([a]);
    watch.disarm();
    a.kill("SIGTERM");
    await a.exited;
    await new Promise((r) => setTimeout(r, 10));
    expect(watch.dead).toBeUndefined();
  });

  it("a sleep ends early when the runtime is lost, and at once once it is", async () => {
    const a = child();
    const watch = new RuntimeWatch([a]);
    const t0 = Date.now();
    const slept = watch.sleep(20_000);
    setTimeout(() => a.kill("SIGKILL"), 100);
    await slept;
    expect(Date.now() - t0).toBeLessThan(5000);
    const t1 = Date.now();
    await watch.sleep(20_000);
    expect(Date.now() - t1).toBeLessThan(50);
  });

  it("a runtime that answers nothing for STALL_MS is stalled; a pause that recovers before is not", () => {
    expect(STALL_MS).toBe(120_000);
    let now = 0;
    const watch = new RuntimeWatch([]);
    const clock = new StallClock(watch, "rivet wake.ping", 120_000, () => now);
    // a 20 s pause: failures, then a success, then more failures a while later
    for (; now < 20_000; now += 4000) expect(clock.saw(false, "timeout after 4000 ms")).toBeUndefined();
    expect(clock.saw(true)).toBeUndefined();
    for (now = 30_000; now < 149_000; now += 30_000) expect(clock.saw(false, "HTTP 503: actor_ready_timeout")).toBeUndefined();
    now = 150_000;
    const loss = clock.saw(false, "HTTP 503: actor_ready_timeout");
    expect(loss?.message).toBe(
      "rivet wake.ping: no call succeeded for 130 s (5 failed in a row, the first: HTTP 503: actor_ready_timeout): the runtime stalled",
    );
    expect(watch.dead).toBe(loss);
    expect(() => watch.check()).toThrow(/the runtime stalled/);
  });
});
