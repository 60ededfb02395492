import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { createProgress, prefixed, type Progress } from "../experiment/progress";
import { onInterrupt } from "../host/processes";
import { closeRun, openRun, removeLeftovers, runRepetition, type Leftovers, type RunOutcome } from "./run";
import { HelpRequested, parseRunArgs, UsageError, type RunConfig } from "./runConfig";
import { comparisonMarkdown, runStats, type AbSettings } from "../../analysis/report/compare";
import { generateReport } from "../../analysis/report/report";
import type { RunDir } from "../experiment/runDir";

/** The options of `npm run ab`, each with its bounds and default. */
const AB_OPTIONS = {
  "--minutes": { min: 1, max: 240, default: 15, unit: "minutes" },
  "--pairs": { min: 2, max: 200, default: undefined, unit: "pairs" },
} as const;

const AB_USAGE = `usage: npm run ab -- --a "<run flags>" --b "<run flags>" [--side S] [--groups LIST] [--minutes M] [--pairs N] [--results-dir DIR] [--quiet]
       npm run ab -- --recompare results/<stack>/ab-<runId>   (a session compared again by the code as it is now)
  Runs repetitions of A and B alternately (A B B A, A B B A, ...), each on fresh runtimes, for up to M minutes (${AB_OPTIONS["--minutes"].default} by default,
  ${AB_OPTIONS["--minutes"].min} to ${AB_OPTIONS["--minutes"].max}) or N pairs (${AB_OPTIONS["--pairs"].min} to ${AB_OPTIONS["--pairs"].max}), then compares them pair by pair.
  --side and --groups (and any other run flag given outside --a and --b) apply to both arms; an arm's own flags may not set
  --side, --groups, --repeat, --results-dir or --quiet.`;

interface AbConfig {
  a: RunConfig;
  b: RunConfig;
  /** The arms' own flags, as given. */
  flags: { a: string; b: string };
  minutes: number;
  pairs?: number;
  resultsDir: string;
  quiet: boolean;
}

/** Flags an arm may not set: the session sets them for both. */
const SESSION_FLAGS = ["--side", "--groups", "--repeat", "--results-dir", "--quiet"];

function bounded(flag: keyof typeof AB_OPTIONS, v: string | undefined): number {
  const o = AB_OPTIONS[flag];
  const n = v !== undefined && /^[0-9]{1,6}$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= o.min && n <= o.max))
    throw new UsageError(`${flag} takes a whole number of ${o.unit} from ${o.min} to ${o.max}, got ${JSON.stringify(v ?? "")}`);
  return n;
}

/** An arm's flags, split on white space (no quoting: no run flag takes a value with a space). */
const words = (s: string) => s.split(/\s+/).filter(Boolean);

/** Parses `npm run ab` arguments; a UsageError names what is wrong. */
export function parseAbArgs(argv: readonly string[]): AbConfig {
  let a: string | undefined;
  let b: string | undefined;
  let minutes: number = AB_OPTIONS["--minutes"].default;
  let pairs: number | undefined;
  let resultsDir = "results";
  let quiet = false;
  const shared: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value\n${AB_USAGE}`);
      return v;
    };
    if (flag === "--a") a = value();
    else if (flag === "--b") b = value();
    else if (flag === "--minutes") minutes = bounded(flag, value());
    else if (flag === "--pairs") pairs = bounded(flag, value());
    else if (flag === "--results-dir") resultsDir = value();
    else if (flag === "--quiet") quiet = true;
    else if (flag === "--help" || flag === "-h") throw new HelpRequested(AB_USAGE);
    else if (flag === "--repeat")
      throw new UsageError(
        "--repeat is not an ab flag: ab runs one repetition of each arm at a time, as many as --minutes or --pairs allow",
      );
    else if (flag.startsWith("--")) {
      shared.push(flag);
      if (argv[i + 1] !== undefined && !argv[i + 1].startsWith("--")) shared.push(argv[++i]);
    } else throw new UsageError(`unknown argument "${flag}"\n${AB_USAGE}`);
  }
  // A flag for both arms is npm start's: one it does not know is named before anything else is asked for.
  if (shared.length > 0) {
    try {
      parseRunArgs([...shared, "--repeat", "1", "--results-dir", resultsDir]);
    } catch (err) {
      if (err instanceof UsageError) throw new UsageError(err.message.split("\n")[0]);
      throw err;
    }
  }
  if (a === undefined || b === undefined) throw new UsageError(`ab needs both --a and --b (either may be "")\n${AB_USAGE}`);
  const arm = (name: "a" | "b", flags: string) => {
    const own = words(flags);
    const bad = own.filter((w) => SESSION_FLAGS.includes(w));
    if (bad.length) throw new UsageError(`--${name} may not set ${bad.join(", ")}: give it once, outside --a and --b, for both arms`);
    try {
      return { ...parseRunArgs([...shared, ...own, "--repeat", "1", "--results-dir", resultsDir]), quiet };
    } catch (err) {
      if (err instanceof UsageError) throw new UsageError(`--${name}: ${err.message.split("\n")[0]}`);
      throw err;
    }
  };
  return { a: arm("a", a), b: arm("b", b), flags: { a, b }, minutes, ...(pairs ? { pairs } : {}), resultsDir, quiet };
}

/** The arms' order for `blocks` blocks: A B B A, repeated; repetition i of each arm sits beside repetition i of the other. */
export function abbaOrder(blocks: number): Array<"A" | "B"> {
  return Array.from({ length: blocks }, () => ["A", "B", "B", "A"] as Array<"A" | "B">).flat();
}

/** Whether another block should start: `pairs` not yet reached, or the slowest block so far still fits in what is left of the time. */
export function anotherBlock(o: {
  blocksDone: number;
  pairs?: number;
  elapsedMs: number;
  slowestBlockMs: number;
  budgetMs: number;
}): boolean {
  if (o.blocksDone === 0) return true;
  if (o.pairs !== undefined) return o.blocksDone * 2 < o.pairs;
  return o.elapsedMs + o.slowestBlockMs <= o.budgetMs;
}

interface AbOutcome {
  a: RunOutcome;
  b: RunOutcome;
  /** The folder holding the comparison (comparison.md, comparison.json). */
  comparisonDir: string;
  markdown: string;
  order: Array<"A" | "B">;
}

/**
 * Runs an interleaved A/B session: both run directories open at once, then
 * blocks of four repetitions, A B B A, each on fresh runtimes, until the time
 * or the pairs are used up; then both manifests are finished, both reports
 * made, and the comparison of the two, pair by pair, written beside them.
 * As in runLocalSuite, the runtimes' files are removed once nothing more is
 * measured, never between repetitions. The session stops at the first block
 * in which either arm failed.
 */
export async function runAb(cfg: AbConfig, progress: Progress = createProgress(process.stdout, cfg.quiet)): Promise<AbOutcome> {
  const root = resolve(cfg.resultsDir);
  const runs: Record<"A" | "B", { run: RunDir; cfg: RunConfig; failures: string[]; reps: number }> = {
    A: { run: await openRun(root, cfg.a), cfg: cfg.a, failures: [], reps: 0 },
    B: { run: await openRun(root, cfg.b), cfg: cfg.b, failures: [], reps: 0 },
  };
  const id = `ab-${runs.A.run.manifest.runId}`;
  const order: Array<"A" | "B"> = [];
  const note = (arm: "A" | "B") => {
    const other = arm === "A" ? "B" : "A";
    const ab: AbSettings = { id, arm, partnerRunId: runs[other].run.manifest.runId, order };
    runs[arm].run.manifest.settings.ab = { ...ab, flags: cfg.flags[arm === "A" ? "a" : "b"] };
    runs[arm].run.manifest.config.repeat = runs[arm].reps;
    runs[arm].run.save();
  };
  note("A");
  note("B");
  const removeHook = onInterrupt((sig) => {
    for (const r of Object.values(runs)) r.run.finish("failed", `interrupted by ${sig}`);
  });
  const budgetMs = cfg.minutes * 60_000;
  const t0 = Date.now();
  let slowest = 0;
  let blocks = 0;
  const leftovers: Leftovers = [];
  try {
    while (
      anotherBlock({
        blocksDone: blocks,
        ...(cfg.pairs ? { pairs: cfg.pairs } : {}),
        elapsedMs: Date.now() - t0,
        slowestBlockMs: slowest,
        budgetMs,
      })
    ) {
      const b0 = Date.now();
      for (const arm of abbaOrder(1)) {
        const r = runs[arm];
        if (r.run.diskFull) break;
        order.push(arm);
        await runRepetition(
          r.cfg,
          r.run,
          r.reps,
          prefixed(progress, `[block ${blocks + 1}, ${arm} ${r.reps + 1}] `),
          r.failures,
          leftovers,
        );
        r.reps++;
        note("A");
        note("B");
      }
      blocks++;
      slowest = Math.max(slowest, Date.now() - b0);
      if (runs.A.failures.length || runs.B.failures.length || runs.A.run.diskFull || runs.B.run.diskFull) break;
      if (blocks === 1 && !cfg.pairs) {
        const fit = Math.max(0, Math.floor((budgetMs - (Date.now() - t0)) / slowest));
        progress.note(
          `the first block (A B B A) took ${(slowest / 1000).toFixed(0)} s: about ${fit} more fit in the ${cfg.minutes} minutes, ${2 * (fit + 1)} pairs in all`,
        );
      }
    }
  } finally {
    removeHook();
    removeLeftovers(leftovers);
  }
  const a = closeRun(runs.A.run, runs.A.failures);
  const b = closeRun(runs.B.run, runs.B.failures);
  await generateReport(a.runDir);
  await generateReport(b.runDir);
  const comparisonDir = join(root, cfg.a.stack, id);
  const markdown = writeComparison(comparisonDir, { id, flags: cfg.flags, order, a: a.runDir, b: b.runDir });
  return { a, b, comparisonDir, markdown, order };
}

/** What a session's comparison is of: its id, the arms' flags, the order, and the two run directories. */
interface Session {
  id: string;
  flags: { a: string; b: string };
  order: string[];
  a: string;
  b: string;
}

/** Writes a session's comparison.md and comparison.json into `comparisonDir` (the arms' paths relative to it); the Markdown. */
function writeComparison(comparisonDir: string, s: Session): string {
  mkdirSync(comparisonDir, { recursive: true });
  const rel = (d: string) => relative(comparisonDir, d);
  const { markdown, rows } = comparisonMarkdown(rel(s.a), rel(s.b), runStats(s.a), runStats(s.b));
  const head = `# A/B ${s.id}\n\nA: \`${s.flags.a || "(no flags)"}\`; B: \`${s.flags.b || "(no flags)"}\`. ${s.order.length} repetitions in this order: ${s.order.join(" ")}, each on fresh runtimes, in one session; repetition i of A was run beside repetition i of B and the two are compared pair by pair.\n\n`;
  writeFileSync(join(comparisonDir, "comparison.md"), head + markdown);
  writeFileSync(
    join(comparisonDir, "comparison.json"),
    `${JSON.stringify({ id: s.id, a: rel(s.a), b: rel(s.b), flags: s.flags, order: s.order, rows }, null, 2)}\n`,
  );
  return head + markdown;
}

/** Compares a committed session again with the code as it is now (`npm run ab -- --recompare <dir>`), from its comparison.json. */
export function recompare(comparisonDir: string): string {
  const file = join(comparisonDir, "comparison.json");
  if (!existsSync(file)) throw new UsageError(`${file} not found: --recompare takes a session's folder, results/<stack>/ab-<runId>`);
  const j = JSON.parse(readFileSync(file, "utf8")) as Partial<Session>;
  if (
    typeof j.id !== "string" ||
    typeof j.a !== "string" ||
    typeof j.b !== "string" ||
    !Array.isArray(j.order) ||
    typeof j.flags?.a !== "string"
  ) {
    throw new UsageError(`${file} is not a session's comparison (it needs id, a, b, flags and order)`);
  }
  return writeComparison(comparisonDir, {
    id: j.id,
    flags: j.flags,
    order: j.order,
    a: join(comparisonDir, j.a),
    b: join(comparisonDir, j.b),
  });
}
