/**
 * What each operation costs in CPU: the CPU time each process the run
 * watched used during a stage (its record's notes.cpuMs, from
 * /proc/<pid>/stat utime + stime, in clock ticks of 10 ms), summed over the
 * stage's repetitions, over the operations that succeeded. The side's own
 * processes (its runtime's) are counted apart from the driver's, which
 * sends and times the calls. Pure.
 */
import { stageReps, type StageRecord } from "../contract/runDirContract";
import { repInterval, type RepInterval } from "./repetitions";

/** The name under which every run records its own process (the load driver) beside the side's. */
export const DRIVER_PROCESS = "driver";

export interface CpuPerOp {
  /** CPU ms of the side's own processes per successful operation; null where none of them was measured. */
  ownMsPerOp: number | null;
  /** The driver's CPU ms per successful operation; null where it was not measured. */
  driverMsPerOp: number | null;
  /** Operations that succeeded, over every repetition. */
  ops: number;
  /** Each process's CPU ms over the stage, summed over repetitions (the processes measured in every repetition). */
  processes: Record<string, number>;
  /** The step of the per-operation figure: one clock tick over the operations. */
  resolutionMs: number;
  /** The side's own CPU ms per successful operation in each repetition (where there are several), and the 95% interval of a fresh run's figure from them. */
  ownPerRep?: number[];
  ownInterval?: RepInterval;
}

const TICK_MS = 10;

/** The CPU per operation of one stage, or null where its record holds no CPU figures (a run made before they were taken). */
export function cpuPerOp(st: StageRecord): CpuPerOp | null {
  const reps = stageReps(st);
  const notes = reps.map((r) => (r.notes?.cpuMs ?? null) as Record<string, unknown> | null);
  if (notes.some((n) => n === null || typeof n !== "object")) return null;
  // A process counts only where every repetition measured it: a sum over some of them would read low.
  const names = Object.keys(notes[0]!).filter((k) => notes.every((n) => typeof n![k] === "number" && Number.isFinite(n![k] as number)));
  const processes = Object.fromEntries(names.map((k) => [k, notes.reduce((t, n) => t + (n![k] as number), 0)]));
  const ops = reps.reduce((t, r) => t + Math.max(0, r.attempts - r.errors), 0);
  if (ops === 0) return null;
  const own = names.filter((k) => k !== DRIVER_PROCESS);
  const result: CpuPerOp = {
    ownMsPerOp: own.length ? own.reduce((t, k) => t + processes[k], 0) / ops : null,
    driverMsPerOp: DRIVER_PROCESS in processes ? processes[DRIVER_PROCESS] / ops : null,
    ops,
    processes,
    resolutionMs: TICK_MS / ops,
  };
  if (reps.length < 2 || own.length === 0) return result;
  // Each repetition's own figure, on a clock that steps one tick over that repetition's operations.
  const repOps = reps.map((r) => Math.max(0, r.attempts - r.errors));
  if (repOps.some((n) => n === 0)) return result;
  const ownPerRep = reps.map((_, i) => own.reduce((t, k) => t + (notes[i]![k] as number), 0) / repOps[i]);
  return { ...result, ownPerRep, ownInterval: repInterval(ownPerRep, { tick: TICK_MS / Math.min(...repOps) }) };
}
