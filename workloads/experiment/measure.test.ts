import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { measure, measureOpen, type Outcome } from "./measure";
import { createProgress } from "./progress";
import { RunDir } from "./runDir";
import { SampleFile } from "./samples";
import { RuntimeLost, RuntimeWatch } from "../host/runtimeWatch";
import { verifyRunDir } from "../../analysis/contract/verify";
import { rawText } from "../../test/fixtures";

/** A real process standing in for a runtime, and a call that answers in 5 ms while it lives and fails fast once it is gone. */
function runtimeProcess() {
  const c = spawn("sleep", ["60"], { stdio: "ignore" });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    c.once("exit", (code, signal) => r({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const call = async (): Promise<Outcome> => {
    await new Promise((r) => setTimeout(r, 5));
    return gone
      ? { ok: false, ms: 0.1, error: "HTTP1_CLOSED: connection closed before the reply" }
      : { ok: true, ms: 5, reply: { cold: false, actorMs: null, sqlMs: null } };
  };
  return { watch: new RuntimeWatch([{ name: "rivet-engine", pid: c.pid, exited }]), kill: () => c.kill("SIGKILL"), call, pid: c.pid };
}

describe("measure", () => {
  it("keeps at most `concurrency` calls in flight, writes every call's sample once, and each sample is on disk before its worker's call after next", async () => {
    const root = mkdtempSync(join(tmpdir(), "ab-measure-"));
    try {
      const run = new RunDir(root, "local", "quick", {});
      const ctx = { run, progress: createProgress(process.stderr, true) };
      const file = join(run.dir, "raw/t.m.jsonl");
      let inFlight = 0;
      let most = 0;
      const started: number[] = [];
      const onDiskAtStart: number[] = [];
      const call = async (i: number): Promise<Outcome> => {
        started.push(i);
        onDiskAtStart[i] = readFileSync(file, "utf8").split("\n").filter(Boolean).length;
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 1 + (i % 3)));
        inFlight--;
        return i % 5 === 4
          ? { ok: false, ms: i, error: `failed ${i}` }
          : { ok: true, ms: i, reply: { cold: i === 0, actorMs: null, sqlMs: null } };
      };
      await measure({ ctx, side: "t", metric: "m", n: 20, concurrency: 3, call });
      expect(most).toBe(3);
      expect(started).toHaveLength(20);
      const samples = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { seq: number; ok: boolean; ms: number; cold: boolean | null });
      expect(samples.map((s) => s.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      // Each sample is the outcome of its own call.
      for (const s of samples) expect([s.ms, s.ok, s.cold]).toEqual([s.seq, s.seq % 5 !== 4, s.seq % 5 === 4 ? null : s.seq === 0]);
      expect(run.manifest.stages["t.m"]).toMatchObject({ attempts: 20, errors: 4, concurrency: 3 });
      // A worker sends its next call, then writes the sample just taken: by the time that worker
      // starts the call after, every call started two rounds earlier has its line on disk.
      for (let k = 6; k < 20; k++) expect(onDiskAtStart[started[k]]).toBeGreaterThanOrEqual(k - 6);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("stops a stage the moment its runtime's process dies: the record and the samples before it kept, the process and signal named", async () => {
    for (const open of [false, true]) {
      const run = new RunDir(mkdtempSync(join(tmpdir(), "ab-loss-")), "local", "quick", {});
      const rt = runtimeProcess();
      const ctx = { run, progress: createProgress(process.stderr, true), runtime: rt.watch };
      setTimeout(rt.kill, 300);
      const t0 = Date.now();
      const stage = open
        ? measureOpen({ ctx, side: "rivet", metric: "open.r50", ratePerSecond: 50, n: 10_000, maxInFlight: 8, call: rt.call })
        : measure({ ctx, side: "rivet", metric: "warm.ping", n: 100_000, concurrency: 4, call: rt.call });
      await expect(stage).rejects.toThrow(RuntimeLost);
      // at once: not after the 100,000 calls (about 2 minutes) or a timeout
      expect(Date.now() - t0).toBeLessThan(3000);
      const metric = open ? "open.r50" : "warm.ping";
      const st = run.manifest.stages[`rivet.${metric}`];
      expect(st.status).toBe("failed");
      expect(st.failure).toMatch(
        new RegExp(`^rivet-engine \\(pid ${rt.pid}\\) was killed by SIGKILL at 20.*the ${st.attempts} samples taken before it are kept$`),
      );
      expect(st.attempts).toBeGreaterThan(5);
      expect(st.attempts).toBeLessThan(open ? 100 : 2000);
      run.finish("failed", "lost");
      // every sample under its hash, the record matching the file
      expect(() => verifyRunDir(run.dir)).not.toThrow();
      expect(rawText(run.dir, st.file).trim().split("\n")).toHaveLength(st.attempts);
    }
  });

  it("a stage whose samples cannot be written (a full device) stops, keeps no half line, and records why", async () => {
    const run = new RunDir(mkdtempSync(join(tmpdir(), "ab-full-")), "local", "quick", {});
    let calls = 0;
    const call = async (): Promise<Outcome> => {
      calls++;
      return { ok: true, ms: 1, reply: { cold: false, actorMs: null, sqlMs: null } };
    };
    const ctx = { run, progress: createProgress(process.stderr, true) };
    // The stage's samples go to /dev/full, where every write fails with ENOSPC.
    run.rawFile = () => new SampleFile("/dev/full");
    await expect(measure({ ctx, side: "rivet", metric: "warm.ping", n: 1000, concurrency: 2, call })).rejects.toThrow(
      /ENOSPC: .*\/dev\/full.*the 0 samples before it are kept/,
    );
    expect(calls).toBeLessThan(10);
    expect(run.manifest.stages["rivet.warm.ping"]).toMatchObject({ status: "failed", attempts: 0 });
    expect(run.diskFull).toMatch(/ENOSPC/);
  });
});

describe("a stage's deadline", () => {
  it("stops sending at the deadline, keeps every sample taken, and records the outcome by name, closed loop and open model alike", async () => {
    const root = mkdtempSync(join(tmpdir(), "ab-deadline-"));
    try {
      const run = new RunDir(root, "local", "quick", {});
      const ctx = { run, progress: createProgress(process.stderr, true), deadlineMs: 300 };
      const slow = async (): Promise<Outcome> => (
        await new Promise((r) => setTimeout(r, 50)), { ok: true, ms: 50, reply: { cold: true, actorMs: null, sqlMs: null } }
      );
      await measure({ ctx, side: "t", metric: "wake.ping", n: 200, concurrency: 1, call: slow });
      const st = run.manifest.stages["t.wake.ping"];
      const lines = readFileSync(join(run.dir, "raw/t.wake.ping.jsonl"), "utf8").trim().split("\n");
      // About 300 ms of 50 ms calls, one at a time: far fewer than 200, each on disk, none lost.
      expect(lines.length).toBe(st.attempts);
      expect(st.attempts).toBeGreaterThan(2);
      expect(st.attempts).toBeLessThan(20);
      expect(st.status).toBeUndefined();
      expect(st.notes?.deadline).toEqual({
        ms: 300,
        done: st.attempts,
        planned: 200,
        outcome: `deadline: ${st.attempts} of 200 calls done in 0.3 s`,
      });
      await measureOpen({ ctx, side: "t", metric: "open.r50", n: 500, ratePerSecond: 50, maxInFlight: 256, call: slow });
      const open = run.manifest.stages["t.open.r50"];
      expect(open.attempts).toBeLessThan(40);
      expect((open.notes?.deadline as { outcome: string } | undefined)?.outcome).toBe(
        `deadline: ${open.attempts} of 500 arrivals done in 0.3 s`,
      );
      // Without a deadline nothing is noted.
      await measure({ ctx: { ...ctx, deadlineMs: undefined }, side: "t", metric: "warm.ping", n: 5, concurrency: 1, call: slow });
      expect(run.manifest.stages["t.warm.ping"].notes?.deadline).toBeUndefined();
      expect(() => verifyRunDir(run.dir)).not.toThrow();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
