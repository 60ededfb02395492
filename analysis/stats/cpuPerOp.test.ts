import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { cpuPerOp } from "./cpuPerOp";
import { summarizeRun } from "./summary";
import { verifyRunDir } from "../contract/verify";
import type { StageRecord } from "../contract/runDirContract";

const rec = (reps: Array<{ attempts: number; errors: number; cpuMs?: Record<string, number | null> }>): StageRecord => ({
  side: "s",
  metric: "warm.ping",
  file: "raw/s.warm.ping.jsonl",
  attempts: 0,
  errors: 0,
  wallMs: 1,
  concurrency: 1,
  startedAt: "",
  repetitions: reps.map((r, rep) => ({
    rep,
    attempts: r.attempts,
    errors: r.errors,
    wallMs: 1,
    startedAt: "",
    ...(r.cpuMs ? { notes: { cpuMs: r.cpuMs } } : {}),
  })),
});

describe("CPU per operation", () => {
  it("sums each process over the repetitions, over the operations that succeeded; the driver apart", () => {
    const c = cpuPerOp(
      rec([
        { attempts: 10, errors: 2, cpuMs: { engine: 30, app: 10, driver: 4 } },
        { attempts: 10, errors: 0, cpuMs: { engine: 50, app: 0, driver: 5 } },
      ]),
    )!;
    expect(c.ops).toBe(18);
    expect(c.processes).toEqual({ engine: 80, app: 10, driver: 9 });
    expect(c.ownMsPerOp).toBe(90 / 18);
    expect(c.driverMsPerOp).toBe(9 / 18);
    expect(c.resolutionMs).toBe(10 / 18);
  });
  it("gives each repetition's own figure and the 95% interval of a fresh run's from them (t on the logs, k - 1 degrees of freedom)", () => {
    const c = cpuPerOp(
      rec([
        { attempts: 100, errors: 0, cpuMs: { engine: 1000, driver: 9 } },
        { attempts: 100, errors: 0, cpuMs: { engine: 1200, driver: 9 } },
        { attempts: 100, errors: 0, cpuMs: { engine: 1100, driver: 9 } },
      ]),
    )!;
    expect(c.ownPerRep).toEqual([10, 12, 11]);
    const logs = [10, 12, 11].map(Math.log);
    const m = logs.reduce((a, b) => a + b) / 3;
    const sd = Math.sqrt(logs.reduce((t, x) => t + (x - m) ** 2, 0) / 2);
    // t(0.975, 2) = 4.303.
    expect(c.ownInterval!.lo).toBeCloseTo(Math.exp(m - (4.302653 * sd) / Math.sqrt(3)), 4);
    expect(c.ownInterval!.hi).toBeCloseTo(Math.exp(m + (4.302653 * sd) / Math.sqrt(3)), 4);
    // One repetition: no interval; a figure within a few clock ticks: none either, and why.
    expect(cpuPerOp(rec([{ attempts: 10, errors: 0, cpuMs: { engine: 30, driver: 1 } }]))!.ownInterval).toBeUndefined();
    expect(
      cpuPerOp(
        rec([
          { attempts: 10, errors: 0, cpuMs: { engine: 10, driver: 1 } },
          { attempts: 10, errors: 0, cpuMs: { engine: 20, driver: 1 } },
        ]),
      )!.ownInterval,
    ).toMatchObject({ lo: null, none: "under 5 ticks of a 1 ms clock" });
  });
  it("leaves out a process one repetition could not read, and says nothing where no CPU was recorded or nothing succeeded", () => {
    const c = cpuPerOp(
      rec([
        { attempts: 4, errors: 0, cpuMs: { workerd: null, driver: 4 } },
        { attempts: 4, errors: 0, cpuMs: { workerd: 8, driver: 4 } },
      ]),
    )!;
    expect(c.processes).toEqual({ driver: 8 });
    expect(c.ownMsPerOp).toBeNull();
    expect(cpuPerOp(rec([{ attempts: 4, errors: 0 }]))).toBeNull();
    expect(cpuPerOp(rec([{ attempts: 4, errors: 4, cpuMs: { engine: 8, driver: 1 } }]))).toBeNull();
  });
  it("one cell of each side of a committed run, recomputed from its hashed stage records", () => {
    const dir = resolve(__dirname, "../../results/local/20261205T0153Z");
    const rows = summarizeRun(dir, verifyRunDir(dir)).rows;
    const fromRecord = (side: string, metric: string, own: string[]) => {
      const st = JSON.parse(readFileSync(join(dir, "stages", `${side}.${metric}.json`), "utf8")) as StageRecord;
      const reps = st.repetitions!;
      const ops = reps.reduce((t, r) => t + r.attempts - r.errors, 0);
      const sum = (k: string) => reps.reduce((t, r) => t + (r.notes!.cpuMs as Record<string, number>)[k], 0);
      return { own: own.length ? own.reduce((t, k) => t + sum(k), 0) / ops : null, driver: sum("driver") / ops };
    };
    for (const [side, metric, own] of [
      ["rivet", "create.ping", ["engine", "app"]],
      ["cloudflare", "warm.ping", []],
      ["floor", "sqlite.write", ["server"]],
    ] as const) {
      const cpu = rows.find((r) => r.side === side && r.metric === metric)!.cpu!;
      const want = fromRecord(side, metric, [...own]);
      expect(cpu.ownMsPerOp, `${side} ${metric}`).toBe(want.own);
      expect(cpu.driverMsPerOp, `${side} ${metric}`).toBe(want.driver);
    }
  });
});
