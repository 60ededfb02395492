import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RESERVE_FILE, RunDir } from "../workloads/experiment/runDir";
import { readListed } from "../analysis/contract/runDirContract";

/** Small counts (`--samples`), the same for every e2e run of the stage plan. */
export const TINY_SAMPLES =
  "createPing=3,createRead=3,createWrite=3,wake=2,warm=10,sqliteRead=5,sqliteWrite=5,sqliteScan=3,burstAttempts=8,seqWrite=10,openSeconds=1";

export type S = {
  ms: number;
  ok?: boolean;
  cold?: boolean | null;
  clientMs?: number;
  actorMs?: number;
  sqlMs?: number;
  colo?: string;
  rep?: number;
};

/**
 * A run directory written through the same RunDir/SampleFile code the driver
 * uses. With `repetitions`, the run has that many and each sample goes into
 * the repetition its `rep` names (0 when it names none).
 */
export function fixture(
  stages: Record<string, { samples: S[]; concurrency?: number; wallMs?: number }>,
  o: {
    root?: string;
    preset?: string;
    at?: Date;
    config?: Record<string, unknown>;
    settings?: Record<string, unknown>;
    repetitions?: number;
    /** What the manifest says of the machine, over this machine's (a test that needs two machines makes the difference). */
    machine?: Record<string, unknown>;
  } = {},
): string {
  const root = o.root ?? mkdtempSync(join(tmpdir(), "ab-report-"));
  const preset = o.preset ?? "quick";
  const sides = [...new Set(Object.keys(stages).map((k) => k.split(".")[0]))];
  const run = new RunDir(root, "local", preset, { preset, sides, ...o.config }, o.at ?? new Date(Date.UTC(2026, 11, 2, 13, 5)));
  for (let rep = 0; rep < (o.repetitions ?? 1); rep++) {
    if (o.repetitions !== undefined) run.beginRepetition(rep, sides);
    for (const [key, st] of Object.entries(stages)) {
      const [side, ...rest] = key.split(".");
      const metric = rest.join(".");
      const own = st.samples.filter((s) => (s.rep ?? 0) === rep);
      const f = run.rawFile(side, metric);
      own.forEach((s, i) =>
        f.write({
          seq: i,
          at: 1_796_000_000_000 + i,
          ok: s.ok ?? true,
          ms: s.ms,
          cold: s.ok === false ? null : (s.cold ?? false),
          clientMs: s.clientMs,
          actorMs: s.actorMs,
          sqlMs: s.sqlMs,
          ...(s.colo ? { colo: s.colo } : {}),
          ...(s.ok === false ? { error: "HTTP 504" } : {}),
        }),
      );
      f.close();
      run.recordStage({
        side,
        metric,
        file: `raw/${side}.${metric}.jsonl`,
        attempts: own.length,
        errors: own.filter((s) => s.ok === false).length,
        wallMs: st.wallMs ?? 1000,
        concurrency: st.concurrency ?? 1,
        startedAt: "2026-12-02T13:05:00.000Z",
      });
    }
    if (o.repetitions !== undefined) run.endRepetition();
  }
  if (o.settings) run.manifest.settings = o.settings;
  if (o.machine) Object.assign(run.manifest.machine, o.machine);
  run.manifest.finishedAt = "2026-12-02T13:06:00.000Z";
  run.manifest.status = "complete";
  run.rehash();
  run.save();
  rmSync(join(run.dir, RESERVE_FILE));
  return run.dir;
}

/** Ways a run directory from another machine can try to write or read outside itself, or hold what no run holds. */
/** A run's listed raw file as text, stored plain or (once the run ended) compressed. */
export const rawText = (dir: string, file: string): string => readListed(dir, file).toString("utf8");

export const HOSTILE = ["dotdot", "absolute", "symlink", "unknown side", "unknown group"] as const;
export type Hostile = (typeof HOSTILE)[number];

/**
 * A run directory whose manifest lists one hostile entry, with a matching hash
 * (so only the name check can stop it). Returns the entry's name.
 */
export function makeHostile(dir: string, kind: Hostile): string {
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { files: Record<string, unknown> };
  const body = '{"seq":0,"at":1,"ok":true,"ms":1,"cold":false}\n';
  let name: string;
  if (kind === "dotdot") {
    name = "../escape.jsonl";
    writeFileSync(join(dir, name), body);
  } else if (kind === "absolute") {
    name = join(mkdtempSync(join(tmpdir(), "ab-abs-")), "abs.jsonl");
    writeFileSync(name, body);
  } else if (kind === "symlink") {
    const outside = join(mkdtempSync(join(tmpdir(), "ab-link-")), "target.jsonl");
    writeFileSync(outside, body);
    name = "raw/cloudflare.create.ping.jsonl";
    symlinkSync(outside, join(dir, name));
  } else {
    name = kind === "unknown side" ? "raw/evil.warm.ping.jsonl" : "raw/cloudflare.analytics.nap.jsonl";
    writeFileSync(join(dir, name), body);
  }
  m.files[name] = { sha256: createHash("sha256").update(body).digest("hex"), lines: 1 };
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(m, null, 2)}\n`);
  return name;
}

/** Every path below `root`, for checking that nothing was written around a run directory. */
export function tree(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" }).sort();
}

/** Text a compromised runner could put in every string field a report prints: HTML, a script, backticks, pipes, a newline and a heading. */
export const HOSTILE_TEXT =
  'x`</td><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">\n# forged heading | cell | ``code`` [link](javascript:alert(1))';

/**
 * A run directory whose hashes all match but whose every printed string is
 * HOSTILE_TEXT: the manifest's own fields, and the notes of a hashed stage
 * record (a machine limit, a retried setup call, a preparation error).
 */
export function hostileRun(root: string, at = new Date(Date.UTC(2026, 10, 28, 9, 0))): string {
  const run = new RunDir(root, "local", "quick", { preset: "quick", sides: ["rivet"] }, at);
  const f = run.rawFile("rivet", "wake.ping");
  f.write({ seq: 0, at: 1_796_000_000_000, ok: true, ms: 20, cold: true });
  f.write({ seq: 1, at: 1_796_000_000_001, ok: false, ms: 30000, cold: null, error: HOSTILE_TEXT });
  f.close();
  run.recordStage({
    side: "rivet",
    metric: "wake.ping",
    file: "raw/rivet.wake.ping.jsonl",
    attempts: 2,
    errors: 1,
    wallMs: 100,
    concurrency: 1,
    startedAt: HOSTILE_TEXT,
    notes: {
      machineLimit: { samples: { [HOSTILE_TEXT]: 1 }, runtimeLog: {} },
      setupRetries: [HOSTILE_TEXT],
      preparationFailures: 1,
      preparationErrors: [HOSTILE_TEXT],
      startState: {
        group: HOSTILE_TEXT,
        before: { existing: 1, awake: 1 },
        atStart: { existing: 1, awake: 0 },
        settleMs: 1,
        sleepFailures: 0,
      },
    },
  });
  Object.assign(run.manifest, {
    startedAt: HOSTILE_TEXT,
    finishedAt: HOSTILE_TEXT,
    preset: HOSTILE_TEXT,
    failure: HOSTILE_TEXT,
    versions: { ...run.manifest.versions, [HOSTILE_TEXT]: HOSTILE_TEXT },
    machine: { cpus: HOSTILE_TEXT, cpuModel: HOSTILE_TEXT, memory: 1, os: HOSTILE_TEXT },
    code: { commit: HOSTILE_TEXT, dirty: true, source: HOSTILE_TEXT },
    settings: { rivet: { adapter: { clock: HOSTILE_TEXT, [HOSTILE_TEXT]: HOSTILE_TEXT } } },
  });
  (run.manifest as { status: string }).status = HOSTILE_TEXT;
  run.save();
  rmSync(join(run.dir, RESERVE_FILE));
  return run.dir;
}
