import { stageKey } from "../../analysis/contract/runDirContract";
import { CpuLock, runOverlapped } from "../host/cpuLock";
import { groupShape, LAST_GROUPS, OVERLAPPING_GROUPS } from "./stagePlan";
import { CATALOG, metricEntry, type Group, type SampleCounts, type Side } from "../../analysis/contract/catalog";
import type { SideProfile } from "../../analysis/contract/sideProfile";

/** One stage group on one side: the unit a run's order is written in. */
export interface Task {
  side: Side;
  group: Group;
}

export const taskLabel = (t: Task): string => `${t.side} ${t.group}`;

/**
 * Runs the tasks in order under the lock (runOverlapped): a group with an
 * idle wait before a wake is not awaited, so the next tasks, of either side,
 * run during it; a last group waits for the groups of its own side before it.
 * The order rule the driver measures by and the schedule simulates.
 */
export function runTasks(tasks: readonly Task[], run: (t: Task) => Promise<void>, lock: CpuLock): Promise<void> {
  const byLabel = new Map(tasks.map((t) => [taskLabel(t), t]));
  const labelsWhere = (set: ReadonlySet<Group>) => new Set(tasks.filter((t) => set.has(t.group)).map(taskLabel));
  return runOverlapped(
    tasks.map(taskLabel),
    (label) => run(byLabel.get(label)!),
    lock,
    labelsWhere(OVERLAPPING_GROUPS),
    labelsWhere(LAST_GROUPS),
    (label) => byLabel.get(label)!.side,
  );
}

/** Every selected group of each side, side after side, in suite order: what `npm start` runs. */
export function suiteTasks(sides: readonly Side[], groups: readonly Group[]): Task[] {
  return sides.flatMap((side) => groups.map((group) => ({ side, group })));
}

/**
 * A local stack's pass, one task per run: the sides whose actors sleep by idle
 * only first (as a cloud pass's host), then the others, each side's groups in
 * suite order, so no side measures beside actors another side's bursts left awake.
 */
export function localPassOrder(sides: readonly Pick<SideProfile, "id" | "sleepsByIdleOnly">[], groups: readonly Group[]): Task[] {
  const first = sides.filter((p) => p.sleepsByIdleOnly);
  return suiteTasks(
    [...first, ...sides.filter((p) => !first.includes(p))].map((p) => p.id),
    groups,
  );
}

/** One run of a pass on the runner: its tasks in order, measured into one run directory. */
export interface PassRun {
  tasks: Task[];
}

/** A run's name in resource names and blob prefixes: "<side>.create", or "<host>.wake+<guest>.create+<guest>.wake". */
export const passRunName = (r: PassRun): string => r.tasks.map((t) => stageKey(t.side, t.group)).join("+");

/**
 * The runs of a cloud pass, decided from the selected sides and groups alone
 * (so a stack's resources never change with an estimate). Each group is a run
 * of its own, side after side, unless `overlap` is on and a selected side
 * sleeps by idle alone (its wake groups wait out an eviction that measures
 * nothing, the side's wake idle) beside others:
 * then each of that side's groups with an idle wait hosts a share of the
 * other sides' groups in its run, which measure during that idle under the
 * run's one lock. The guests keep their order, split in order into as many
 * near-equal shares as there are hosts (a side's last groups, bursts and
 * scaling, still wait for every group of their side before them, not for the
 * host's idle); the idle ladders of every side share one run, the host's
 * first (their waits overlap, each wake measured alone); the host's other
 * groups follow, each alone.
 */
export function planPass(
  sides: readonly Pick<SideProfile, "id" | "sleepsByIdleOnly">[],
  groups: readonly Group[],
  overlap: boolean,
): PassRun[] {
  const alone = (side: Side, gs: readonly Group[]) => gs.map((group) => ({ tasks: [{ side, group }] }));
  const host = sides.find((p) => p.sleepsByIdleOnly);
  // The idle ladder hosts only the other sides' ladders: a guest's long group would hold the lock past its wakes.
  const hosts = host ? groups.filter((g) => OVERLAPPING_GROUPS.has(g) && g !== "idle") : [];
  const guests = sides.filter((p) => p !== host).flatMap((p) => groups.filter((g) => g !== "idle").map((group) => ({ side: p.id, group })));
  if (!overlap || !host || hosts.length === 0 || guests.length === 0) return sides.flatMap((p) => alone(p.id, groups));
  const ladders: PassRun[] = groups.includes("idle")
    ? [{ tasks: [host, ...sides.filter((p) => p !== host)].map((p) => ({ side: p.id, group: "idle" as Group })) }]
    : [];
  const runs: PassRun[] = [];
  let next = 0;
  for (const [i, g] of hosts.entries()) {
    const share = Math.ceil((guests.length - next) / (hosts.length - i));
    runs.push({ tasks: [{ side: host.id, group: g }, ...guests.slice(next, next + share)] });
    next += share;
  }
  return [
    ...runs,
    ...ladders,
    ...alone(
      host.id,
      groups.filter((g) => !OVERLAPPING_GROUPS.has(g)),
    ),
  ];
}

/** What a task is expected to take: busy time before its idle wait, the idle itself, and busy time after. */
export interface TaskEstimate {
  beforeIdleMs: number;
  idleMs: number;
  afterIdleMs: number;
}

/** Per-request wall time (stage wall time over attempts) by "side.metric", from a measured run. */
export type CallCosts = ReadonlyMap<string, number>;

/** Per-request wall times of every stage of a run's manifest. */
export function callCostsOf(
  stages: Record<string, { side: string; metric: string; attempts: number; wallMs: number }>,
): Map<string, number> {
  const costs = new Map<string, number>();
  for (const s of Object.values(stages)) if (s.attempts > 0 && s.wallMs >= 0) costs.set(stageKey(s.side, s.metric), s.wallMs / s.attempts);
  return costs;
}

/** What the estimate of a pass needs besides the call costs. */
interface EstimateInputs {
  counts: Record<Side, SampleCounts>;
  scaleLevels: readonly number[];
  idleMs: Record<Side, number>;
  /** The idle ladder's lengths, ms. */
  idleLadder: readonly number[];
  /** Each side's profile: which metrics it measures. */
  profiles: Record<Side, Pick<SideProfile, "optionalMetrics" | "openRates">>;
}

/**
 * A request's expected cost: the measured one of that metric; a scaling
 * stage not measured falls back to the same stage at the nearest level
 * measured; failing that, one sequential create.
 */
function costOf(costs: CallCosts, side: Side, metric: string): { ms: number; known: boolean } {
  const own = costs.get(stageKey(side, metric));
  if (own !== undefined) return { ms: own, known: true };
  const scale = metricEntry(metric)?.scale;
  const measured = scale ? CATALOG.filter((e) => e.scale?.op === scale.op && costs.has(stageKey(side, e.id))) : [];
  if (scale && measured.length > 0) {
    const nearest = measured.reduce((a, b) => (Math.abs(b.scale!.level - scale.level) < Math.abs(a.scale!.level - scale.level) ? b : a));
    return { ms: costs.get(stageKey(side, nearest.id))!, known: true };
  }
  return { ms: costs.get(`${side}.create.ping`) ?? 0, known: false };
}

/**
 * A task's expected time from the call costs of a measured run and the
 * group's shape (the stage plan's own account of what it does): each stage's
 * samples times its per-request wall time, the actors it prepares at the cost
 * of a create at concurrency 8, and its idle waits exactly as configured (the
 * one before its wakes, which other groups may use, and the scaling group's,
 * held). Settling between groups is not counted.
 */
export function estimateTask(t: Task, inputs: EstimateInputs, costs: CallCosts): TaskEstimate & { unknown: string[] } {
  const shape = groupShape(t.group, {
    profile: inputs.profiles[t.side],
    counts: inputs.counts[t.side],
    scaleLevels: inputs.scaleLevels,
    wakeIdleMs: inputs.idleMs[t.side],
    idleLadder: inputs.idleLadder,
  });
  const unknown: string[] = [];
  let measureMs = 0;
  for (const stage of shape.stages) {
    const c = costOf(costs, t.side, stage.metric);
    if (!c.known) unknown.push(stage.metric);
    measureMs += stage.n * c.ms;
  }
  const prepare = costs.get(`${t.side}.burst.c8`) ?? costOf(costs, t.side, "create.ping").ms;
  const prepMs = shape.prepared * prepare;
  if (shape.sharedIdleMs > 0) return { beforeIdleMs: prepMs, idleMs: shape.sharedIdleMs, afterIdleMs: measureMs, unknown };
  return { beforeIdleMs: prepMs + shape.heldIdleMs + measureMs + shape.timedMs, idleMs: 0, afterIdleMs: 0, unknown };
}

interface TaskSpan {
  task: Task;
  startMs: number;
  endMs: number;
  /** The idle wait, when the task has one: other tasks may measure inside it. */
  idle?: { fromMs: number; toMs: number };
}

interface RunSchedule {
  run: PassRun;
  startMs: number;
  endMs: number;
  spans: TaskSpan[];
}

/**
 * A run's timeline under the same lock and order code the driver runs
 * (CpuLock, runOverlapped), on a virtual clock: each task's busy time holds
 * the lock, its idle wait gives it up.
 */
export async function simulateRun(run: PassRun, estimate: (t: Task) => TaskEstimate, startMs = 0): Promise<RunSchedule> {
  let now = startMs;
  let seq = 0;
  const timers: Array<{ at: number; seq: number; wake: () => void }> = [];
  const sleep = (ms: number) => new Promise<void>((wake) => timers.push({ at: now + ms, seq: seq++, wake }));
  const lock = new CpuLock(sleep);
  const spans: TaskSpan[] = [];
  let finished = false;
  const done = runTasks(
    run.tasks,
    async (task) => {
      const e = estimate(task);
      const span: TaskSpan = { task, startMs: now, endMs: now };
      spans.push(span);
      await sleep(e.beforeIdleMs);
      if (e.idleMs > 0) {
        const fromMs = now;
        await lock.idle(e.idleMs);
        span.idle = { fromMs, toMs: now };
      }
      await sleep(e.afterIdleMs);
      span.endMs = now;
    },
    lock,
  ).then(() => {
    finished = true;
  });
  while (!finished) {
    await new Promise((r) => setImmediate(r));
    if (finished) break;
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const t = timers.shift();
    if (!t) throw new Error("the schedule's simulation stalled: no task is running or waiting");
    now = t.at;
    t.wake();
  }
  await done;
  return { run, startMs, endMs: now, spans };
}

export interface PassSchedule {
  runs: RunSchedule[];
  totalMs: number;
  /** The same groups each in a run of its own, one after another: what overlapping saves is the difference. */
  aloneMs: number;
}

/** The runs one after another on the virtual clock, and the total with every group alone for comparison. */
export async function simulatePass(runs: readonly PassRun[], estimateOf: (t: Task) => TaskEstimate): Promise<PassSchedule> {
  const tasks = runs.flatMap((r) => r.tasks);
  const estimates = new Map(tasks.map((t) => [taskLabel(t), estimateOf(t)]));
  const estimate = (t: Task) => estimates.get(taskLabel(t))!;
  const out: RunSchedule[] = [];
  let at = 0;
  for (const run of runs) {
    const s = await simulateRun(run, estimate, at);
    out.push(s);
    at = s.endMs;
  }
  const aloneMs = tasks.reduce((sum, t) => {
    const e = estimate(t);
    return sum + e.beforeIdleMs + e.idleMs + e.afterIdleMs;
  }, 0);
  return { runs: out, totalMs: at, aloneMs };
}

/** When a task holds the lock: its span less its idle wait. */
export function busy(span: TaskSpan): Array<[number, number]> {
  const parts: Array<[number, number]> = span.idle
    ? [
        [span.startMs, span.idle.fromMs],
        [span.idle.toMs, span.endMs],
      ]
    : [[span.startMs, span.endMs]];
  return parts.filter(([a, b]) => b > a);
}

/** h:mm:ss on the schedule's clock (from the pass's start). */
export function clock(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * The planned schedule as text: each run and its tasks with start and end,
 * each idle wait with the tasks that measure inside it, and the total beside
 * the total with every group alone. `source` says where the estimates came from.
 */
export function renderSchedule(s: PassSchedule, source: string, unknown: readonly string[] = []): string {
  const head = ["run", "task", "starts", "ends", "idle wait", "measuring inside the idle"];
  const rows: string[][] = [];
  for (const [i, r] of s.runs.entries()) {
    for (const [j, span] of r.spans.entries()) {
      const inside = span.idle
        ? r.spans
            .filter((o) => o !== span && busy(o).some(([a, b]) => a < span.idle!.toMs && b > span.idle!.fromMs))
            .map((o) => taskLabel(o.task))
        : [];
      rows.push([
        j === 0 ? `${i + 1}` : "",
        taskLabel(span.task),
        clock(span.startMs),
        clock(span.endMs),
        span.idle ? `${clock(span.idle.fromMs)} to ${clock(span.idle.toMs)}` : "",
        inside.join(", "),
      ]);
    }
  }
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) =>
    cells
      .map((x, c) => x.padEnd(widths[c]))
      .join("  ")
      .trimEnd();
  return [
    `Planned pass: ${s.runs.length} runs on the runner, one after another (times from the pass's start, h:mm:ss).`,
    `Estimates: ${source}; idle waits as configured. Not counted: deploys, each run's start-up and upload, settling between groups.`,
    ...(unknown.length ? [`No measured cost for ${unknown.join(", ")}: estimated as one sequential create each.`] : []),
    "",
    line(head),
    ...rows.map(line),
    "",
    `Total ${clock(s.totalMs)}; with every group in a run of its own, one after another, ${clock(s.aloneMs)} (overlapping saves ${clock(s.aloneMs - s.totalMs)}).`,
  ].join("\n");
}
