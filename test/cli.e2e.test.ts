/** `npm start` as a user runs it: the compiled CLI in its own process, real Engine and app. */
import { describe, expect, it } from "vitest";
import { rawText } from "./fixtures";
import { execFileSync, spawn } from "node:child_process";
import { alive, commandOf, descendants } from "./processTree";
import { CLI, startCli, waitFor } from "./cliProcess";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { netnsAvailable } from "../workloads/host/netns";
import { stageReps, type StageRecord } from "../analysis/contract/runDirContract";

function onlyRunDir(root: string): string {
  const stackDir = join(root, "local");
  const runs = readdirSync(stackDir);
  expect(runs).toHaveLength(1);
  return join(stackDir, runs[0]);
}

describe("npm start", () => {
  it("a workerd open-file limit too small for the run's DOs is refused before anything starts, in one line naming the value to raise it to", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-limit-"));
    const cli = startCli([
      "--preset",
      "quick",
      "--side",
      "cloudflare",
      "--groups",
      "create",
      "--workerd-open-files",
      "48",
      "--results-dir",
      dir,
    ]);
    const { code } = await cli.exited;
    expect(code).toBe(2);
    expect(cli.output().trim()).toBe(
      "local workerd's open-file limit 48 lets 0 SQLite DOs be live at once (3 files each past 1024 reserved, at most 3000), but create.ping brings 20 to life: raise the hard limit to at least 1084 (ulimit -Hn, or LimitNOFILE) and pass --workerd-open-files 1084, or use fewer samples",
    );
    expect(existsSync(join(dir, "local"))).toBe(false);
  });

  // One side is enough: every side's idle waits and preparations speak through the same progress steps.
  it("piped, it prints a progress line at least every 10 s through every long step, a 15 s idle wait included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-progress-"));
    const child = spawn(
      process.execPath,
      [CLI, "--preset", "quick", "--side", "rivet", "--groups", "wake", "--wake-idle-ms", "15000", "--results-dir", dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const lines: Array<{ at: number; text: string }> = [];
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString("utf8");
      const parts = buf.split("\n");
      buf = parts.pop()!;
      for (const text of parts) lines.push({ at: Date.now(), text });
    });
    const started = Date.now();
    const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    expect(code).toBe(0);
    // From the first stage line to the headline: no silence longer than the 10 s promise (plus a second of slack).
    const first = lines.findIndex((l) => /preparing/.test(l.text));
    const last = lines.findIndex((l) => l.text.startsWith("run directory:"));
    expect(first).toBeGreaterThanOrEqual(0);
    const gaps = lines.slice(first + 1, last).map((l, i) => l.at - lines[first + i].at);
    expect(Math.max(...gaps), lines.map((l) => `${l.at - started} ${l.text}`).join("\n")).toBeLessThanOrEqual(11_000);
    // The idle waits spoke while nothing else ran: a line with its count of seconds.
    expect(lines.some((l) => /^rivet wake: \d+ actors asleep, idle: \d+\/15 s idle/.test(l.text))).toBe(true);
    expect(lines.some((l) => /^rivet wake\.ping: preparing: 10 actors$/.test(l.text))).toBe(true);
  }, 240_000);

  it("rejects a bad flag with a message naming it, and starts nothing", async () => {
    const cli = startCli(["--preset", "huge"]);
    const { code } = await cli.exited;
    expect(code).toBe(2);
    expect(cli.output()).toMatch(/--preset must be one of quick, local, large, full/);
  });

  it("runs both sides and the floor one after the other into one run directory of the contract, then the idle ladder with all three up, prints the headline and leaves no process", async () => {
    const root = mkdtempSync(join(tmpdir(), "ab-cli-"));
    // A short wake idle on the sides that confirm sleep (the DO still waits out its eviction): this test is about the CLI, not the wake.
    // A 3 s actor sleep timeout: the ladder's 12 s step is past every side's own idle sleep (the DO's 10 s eviction), its 2 s step below.
    const cli = startCli([
      "--preset",
      "quick",
      "--groups",
      "warm,seqwrite,idle",
      "--idle-ladder",
      "2s,12s",
      "--actor-sleep-timeout-ms",
      "3000",
      "--wake-idle-ms",
      "1000",
      "--results-dir",
      root,
    ]);
    // Every process the run starts, whenever it starts: the tree is sampled until the CLI exits.
    const seen = new Map<number, string>();
    const sampler = setInterval(() => {
      for (const k of descendants(cli.child.pid!)) if (!seen.has(k)) seen.set(k, commandOf(k));
    }, 100);
    const { code } = await cli.exited;
    clearInterval(sampler);
    expect(code, cli.output()).toBe(0);
    const commands = [...seen.values()].join("\n");
    expect(commands).toMatch(/rivet-engine/);
    expect(commands).toMatch(/workerd/);
    expect(commands).toMatch(/floor\/server\.js/);
    await waitFor(() => [...seen.keys()].every((k) => !alive(k)), 5_000).catch(() => undefined);
    for (const [k, cmd] of seen) expect(alive(k), `${k} ${cmd}`).toBe(false);
    const dir = onlyRunDir(root);
    expect(dir).toMatch(/local[/\\]\d{8}T\d{4}Z$/);
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(m).toMatchObject({ schema: 1, stack: "local", preset: "quick", status: "complete" });
    expect(m.versions).toMatchObject({ node: process.version, rivetkit: "2.3.19" });
    expect(m.versions.engine).toMatch(/^\d+\.\d+\.\d+/);
    expect(m.settings.rivet).toMatchObject({ guardTcpNodelay: true, engineEnv: { RUST_BACKTRACE: "removed" } });
    const netns = netnsAvailable().ok;
    expect(m.settings.rivet.loopback).toMatchObject({ privateNetns: netns, ...(netns ? { quickack: true } : {}) });
    const ladder = ["cloudflare", "floor", "rivet"].flatMap((side) => [`${side}.wake.idle.12s`, `${side}.wake.idle.2s`]);
    const stages = [
      "cloudflare.baseline.noop",
      "cloudflare.seqwrite",
      "cloudflare.warm.ping",
      ...ladder,
      "floor.seqwrite",
      "floor.warm.ping",
      "rivet.seqwrite",
      "rivet.warm.getOrCreate",
      "rivet.warm.ping",
    ].sort();
    expect(Object.keys(m.files).sort()).toEqual([...stages.map((st) => `raw/${st}.jsonl`), ...stages.map((st) => `stages/${st}.json`)]);
    expect(m.code).toMatchObject({ commit: expect.stringMatching(/^[0-9a-f]{40}$/), dirty: expect.any(Boolean) });
    // never at once: the Cloudflare side starts after the Rivet side's last stage ended, the floor after the Cloudflare side's
    const all = Object.values(m.stages as Record<string, { side: string; metric: string; startedAt: string; wallMs: number }>);
    const own = all.filter((st) => !st.metric.startsWith("wake.idle."));
    const end = (side: string) => Math.max(...own.filter((st) => st.side === side).map((st) => Date.parse(st.startedAt) + st.wallMs));
    const start = (side: string) => Math.min(...own.filter((st) => st.side === side).map((st) => Date.parse(st.startedAt)));
    expect(start("cloudflare")).toBeGreaterThanOrEqual(end("rivet") - 1);
    expect(start("floor")).toBeGreaterThanOrEqual(end("cloudflare") - 1);
    // The ladder after them all, the three runtimes up at once, and still no two stages at once.
    const spans = all
      .map((st) => ({ k: `${st.side}.${st.metric}`, from: Date.parse(st.startedAt), to: Date.parse(st.startedAt) + st.wallMs }))
      .sort((a, b) => a.from - b.from);
    for (let i = 1; i < spans.length; i++)
      expect(spans[i].from, `${spans[i - 1].k} then ${spans[i].k}`).toBeGreaterThanOrEqual(spans[i - 1].to - 1);
    for (const st of all.filter((x) => x.metric.startsWith("wake.idle.")))
      expect(Date.parse(st.startedAt)).toBeGreaterThanOrEqual(end("floor") - 1);
    // Each step waited at least its length; the 12 s step is past every side's own idle sleep and proved every wake cold.
    for (const side of ["rivet", "cloudflare", "floor"]) {
      const notes = (ms: string) =>
        stageReps(m.stages[`${side}.wake.idle.${ms}`] as StageRecord)[0].notes as { idle: unknown; idleActualMs: { min: number } };
      expect(notes("12s").idle, side).toMatchObject({ ms: 12_000, coldRequired: true });
      expect(notes("12s").idleActualMs.min, side).toBeGreaterThanOrEqual(12_000);
      const wakes = rawText(dir, `raw/${side}.wake.idle.12s.jsonl`)
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { ok: boolean; cold: boolean });
      expect(wakes.length, side).toBe(5);
      expect(
        wakes.every((w) => w.ok && w.cold),
        side,
      ).toBe(true);
      expect(notes("2s").idle, side).toMatchObject({ ms: 2_000, coldRequired: false });
    }
    // Rivet's 2 s step is below its 3 s sleep timeout: its actors were still running.
    const short = rawText(dir, "raw/rivet.wake.idle.2s.jsonl")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { cold: boolean });
    expect(short.every((w) => w.cold === false)).toBe(true);
    const report = readFileSync(join(dir, "report", "results.md"), "utf8");
    expect(report).toContain("## Wake against idle length");
    expect(existsSync(join(dir, "report", "charts", "idle.svg"))).toBe(true);
    expect(m.versions["better-sqlite3"]).toMatch(/^12\./);
    expect(m.settings.floor.storage).toMatch(/synchronous = FULL/);
    expect(m.versions).toMatchObject({
      workerd: expect.stringMatching(/^1\.\d+/),
      miniflare: expect.stringMatching(/^4\./),
      wrangler: "4.86.0",
    });
    expect(m.settings.cloudflare.workerClock).toMatch(/does not freeze timers and steps in whole ms/);
    expect(JSON.stringify({ ...m, files: undefined })).not.toMatch(/Bearer|[0-9a-f]{48}/); // the per-run token is 48 hex chars
    expect(cli.output()).toMatch(/cloudflare\s+seqwrite\s+[\d.]+\/s\s+littles-law/);
    expect(m.files["raw/rivet.warm.ping.jsonl"].lines).toBe(100);
    expect(cli.output()).toMatch(/rivet\s+warm\.ping\s+[\d.]+ \/ [\d.]+ \/ [\d.]+\s+100\s+0\s+0/);
    expect(cli.output()).toMatch(/rivet\s+seqwrite\s+[\d.]+\/s\s+measured/);
  });

  for (const [side, signal] of [
    ["rivet", "SIGINT"],
    ["rivet", "SIGKILL"],
    ["cloudflare", "SIGKILL"],
  ] as const) {
    it(`${signal} in the middle of a ${side} stage leaves no process behind and keeps the samples`, async () => {
      const root = mkdtempSync(join(tmpdir(), "ab-sig-"));
      const raw = `raw/${side}.warm.ping.jsonl`;
      const cli = startCli(["--preset", "full", "--side", side, "--groups", "warm", "--samples", "warm=5000", "--results-dir", root]);
      await waitFor(() => existsSync(join(root, "local")) && existsSync(join(onlyRunDir(root), raw)), 60_000);
      const dir = onlyRunDir(root);
      await waitFor(() => readFileSync(join(dir, raw), "utf8").split("\n").length > 20, 30_000);
      const kids = descendants(cli.child.pid!);
      expect(kids.length).toBeGreaterThanOrEqual(2);
      // A checkpoint (every second during a stage) has hashed some of the stage's samples.
      await waitFor(() => JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")).files[raw] !== undefined, 5_000);
      cli.child.kill(signal);
      const { code } = await cli.exited;
      if (signal === "SIGINT") expect(code).toBe(130);
      await waitFor(() => kids.every((k) => !alive(k)), 10_000);
      // An interrupted run ends (failed) and stores its samples compressed; a killed one leaves them plain.
      const lines = rawText(dir, raw).split("\n").filter(Boolean);
      expect(lines.length).toBeGreaterThan(20);
      for (const l of lines) expect(JSON.parse(l)).toHaveProperty("ok", true);
      const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
      if (signal === "SIGINT") expect(m).toMatchObject({ status: "failed", failure: "interrupted by SIGINT" });
      else expect(m.status).toBe("running");
      // The report builds from what is under a hash and says the run is partial and why.
      execFileSync(process.execPath, [resolve(__dirname, "../dist/analysis/report/cli.js"), dir], { stdio: "pipe" });
      const report = readFileSync(join(dir, "report", "results.md"), "utf8");
      expect(report).toContain("**Partial run.**");
      if (signal === "SIGINT") expect(report).toContain('This run is partial: its status is "failed". Why: interrupted by SIGINT');
      else {
        expect(report).toContain("This run is partial: it never finished");
        // the checkpoint a second before the kill hashed most of what was written
        expect(m.files[raw].lines).toBeGreaterThan(0);
        expect(m.files[raw].lines).toBeLessThanOrEqual(lines.length);
        expect(report).toContain(`\`${raw}\``);
      }
    });
  }
});
