import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { cpuPerOp } from "./cpuPerOp";
import { summarizeRun } from "./summary";
import { verifyRunDir } from "../contract/verify";
import type { StageRecord } from "../contract/runDirContract";

const rec = (reps: Array<{ attempts: number; errors: number; cpuMs?: Record<string, number | null> }>): StageRecord => ({
  side: "s", metric: "warm.ping", file: "raw/s.warm.ping.jsonl", attempts: 0, errors: 0, wallMs: 1, concurrency: 1, startedAt: "",
  repetitions: reps.map((r, rep) => ({ rep, attempts: r.attempts, errors: r.errors, wallMs: 1, startedAt: "", ...(r.cpuMs ? { notes: { cpuMs: r.cpuMs } } : {}) })),
});

describe("CPU per operation", () => {
  it("sums each process over the repetitions, over the operations that succeeded; the driver apart", () => {
    const c = cpuPerOp(rec([{ attempts: 10, errors: 2, cpuMs: { engine: 30, app: 10, driver: 4 } }, { attempts: 10, errors: 0, cpuMs: { engine: 50, app: 0, driver: 5 } }]))!;
    expect(c.ops).toBe(18);
    expect(c.processes).toEqual({ engine: 80, app: 10, driver: 9 });
    expect(c.ownMsPerOp).toBe(90 / 18);
    expect(c.driverMsPerOp).toBe(9 / 18);
    expect(c.resolutionMs).toBe(10 / 18);
  });
  it("leaves out a process one repetition could not read, and says nothing where no CPU was recorded or nothing succeeded", () => {
    const c = cpuPerOp(rec([{ attempts: 4, errors: 0, cpuMs: { workerd: null, driver: 4 } }, { attempts: 4, errors: 0, cpuMs: { workerd: 8, driver: 4 } }]))!;
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
      const sum = (k: string) => reps.reduce((t, r) => t + ((r.notes!.cpuMs as Record<string, number>)[k]), 0);
      return { own: own.length ? own.reduce((t, k) => t + sum(k), 0) / ops : null, driver: sum("driver") / ops };
    };
    for (const [side, metric, own] of [["rivet", "create.ping", ["engine", "app"]], ["cloudflare", "warm.ping", []], ["floor", "sqlite.write", ["server"]]] as const) {
      const cpu = rows.find((r) => r.side === side && r.metric === metric)!.cpu!;
      const want = fromRecord(side, metric, [...own]);
      expect(cpu.ownMsPerOp, `${side} ${metric}`).toBe(want.own);
      expect(cpu.driverMsPerOp, `${side} ${metric}`).toBe(want.driver);
    }
  });
});
