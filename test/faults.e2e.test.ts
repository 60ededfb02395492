/**
 * The fault matrix (docs/faults.md), each row over real processes: `npm start`
 * in its own process against a real Engine and app, real workerd or the real
 * floor server; the fault made from outside, as it would happen (a signal to
 * the process, a disk that fills). Each row checks what the run did, what it
 * kept (every sample under its hash), what the report says, and that no
 * process is left.
 */
import { describe, expect, it } from "vitest";
import { rawText } from "./fixtures";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { alive, commandOf, descendants } from "./processTree";
import { startCli, waitFor } from "./cliProcess";
import { verifyRunDir } from "../analysis/contract/verify";
import type { StageRecord } from "../analysis/contract/runDirContract";

const REPORT_CLI = resolve(__dirname, "../dist/analysis/report/cli.js");

const runDirOf = (root: string) => {
  const stack = join(root, "local");
  const runs = existsSync(stack) ? readdirSync(stack) : [];
  return runs.length === 1 ? join(stack, runs[0]) : null;
};
const linesOf = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).length : 0);

/** The process below `root` whose command line matches, once it is there. */
async function processOf(root: number, command: RegExp): Promise<number> {
  let pid: number | undefined;
  await waitFor(
    () => (pid = descendants(root).find((p) => command.test(commandOf(p)))) !== undefined,
    60_000,
    `a process matching ${command}`,
  );
  return pid!;
}

/** npm run report on a run directory: its exit code and output. */
function report(dir: string): { code: number; output: string } {
  try {
    return { code: 0, output: execFileSync(process.execPath, [REPORT_CLI, dir], { encoding: "utf8", stdio: "pipe" }) };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, output: `${e.stdout}${e.stderr}` };
  }
}

interface Fault {
  side: "rivet" | "cloudflare" | "floor";
  /** The process the fault is made on: its command line, and its name in the run's failure. */
  target: RegExp;
  name: string;
}

const ENGINE: Fault = { side: "rivet", target: /rivet-engine start/, name: "rivet-engine" };
const APP: Fault = { side: "rivet", target: /workloads\/sides\/rivet\/app\.js/, name: "rivetkit-app" };
const WORKERD: Fault = { side: "cloudflare", target: /bin\/workerd serve/, name: "workerd" };
const FLOOR: Fault = { side: "floor", target: /workloads\/sides\/floor\/server\.js/, name: "floor-server" };

/**
 * A run of the warm group at the full preset's count (2,000 calls, long enough
 * to be mid-stage), the fault made after its first 20 samples.
 */
async function midStage(f: Fault, fault: (pid: number) => void | Promise<void>, extra: string[] = []) {
  const root = mkdtempSync(join(tmpdir(), "ab-fault-"));
  const cli = startCli(["--preset", "full", "--side", f.side, "--groups", "warm", "--repeat", "1", "--results-dir", root, ...extra]);
  const raw = `raw/${f.side}.warm.ping.jsonl`;
  await waitFor(() => runDirOf(root) !== null && linesOf(join(runDirOf(root)!, raw)) >= 20, 90_000, `20 samples of ${f.side} warm.ping`);
  const dir = runDirOf(root)!;
  const kids = descendants(cli.child.pid!);
  const pid = await processOf(cli.child.pid!, f.target);
  const at = Date.now();
  await fault(pid);
  const { code } = await cli.exited;
  const tookMs = Date.now() - at;
  await waitFor(() => kids.every((k) => !alive(k)), 10_000, "every process of the run gone");
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as {
    status: string;
    failure?: string;
    stages: Record<string, StageRecord>;
  };
  return { dir, code, tookMs, pid, m, output: cli.output(), raw, root };
}

/** The checks every runtime-loss row shares. */
function expectLost(r: Awaited<ReturnType<typeof midStage>>, f: Fault, signal = "SIGKILL") {
  expect(r.code, r.output).toBe(1);
  const named = `${f.name} (pid ${r.pid}) was killed by ${signal}`;
  // Said the moment it happened, while the run ran.
  expect(r.output).toContain(`${f.side}: ${named}; its stage in progress stops`);
  expect(r.m.status).toBe("failed");
  expect(r.m.failure).toMatch(new RegExp(`^${f.side}: runtime lost: ${named.replace(/[()]/g, "\\$&")} at 20\\S+, during the warm group`));
  const st = r.m.stages[`${f.side}.warm.ping`];
  expect(st.status).toBe("failed");
  expect(st.failure).toContain(named);
  // Every sample taken is kept, under its hash, and the record agrees with the file.
  expect(st.attempts).toBeGreaterThanOrEqual(20);
  expect(st.attempts).toBeLessThan(2000);
  expect(rawText(r.dir, r.raw).split("\n").filter(Boolean).length).toBe(st.attempts);
  expect(() => verifyRunDir(r.dir)).not.toThrow();
  // Known at once: the run ended within seconds, not at the 30 s request timeout.
  expect(r.tookMs).toBeLessThan(15_000);
  const rep = report(r.dir);
  expect(rep.code, rep.output).toBe(0);
  const text = readFileSync(join(r.dir, "report", "results.md"), "utf8");
  expect(text).toContain("**Partial run.**");
  expect(text).toContain(named);
}

describe("the fault matrix", () => {
  const KILLED: Array<[string, Fault]> = [
    ["the Engine SIGKILLed mid-stage: the stage and the run fail naming it and its signal, at once; samples kept; no process left", ENGINE],
    ["the RivetKit app (the runner) SIGKILLed mid-stage: the same", APP],
    ["workerd SIGKILLed mid-stage: the same", WORKERD],
    ["the floor server killed mid-stage: the same", FLOOR],
  ];
  for (const [title, fault] of KILLED) {
    it(title, async () => {
      expectLost(await midStage(fault, (pid) => void process.kill(pid, "SIGKILL")), fault);
    }, 180_000);
  }

  /** SIGSTOP for `ms`, then SIGCONT: a pause, not an exit. Calls time out at 4 s, so the pause shows as failed samples. */
  const pause = (ms: number) => async (pid: number) => {
    process.kill(pid, "SIGSTOP");
    await new Promise((res) => setTimeout(res, ms));
    process.kill(pid, "SIGCONT");
  };
  const failedSamples = (r: Awaited<ReturnType<typeof midStage>>) =>
    rawText(r.dir, r.raw)
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { ok: boolean; error?: string })
      .filter((s) => !s.ok);

  it("the floor server stopped (SIGSTOP) for 10 s and continued: the stalled calls are failures with their error text, and the run goes on to complete", async () => {
    const r = await midStage({ ...FLOOR }, pause(10_000), ["--request-timeout-ms", "4000", "--samples", "warm=600"]);
    expect(r.code, r.output).toBe(0);
    expect(r.m.status).toBe("complete");
    const st = r.m.stages["floor.warm.ping"];
    expect(st.status).toBeUndefined();
    expect(st.attempts).toBe(600);
    // one call at a time, each cut at 4 s, through a 10 s pause
    expect(st.errors).toBeGreaterThanOrEqual(2);
    expect(st.errors).toBeLessThanOrEqual(3);
    for (const s of failedSamples(r)) expect(s.error).toMatch(/^timeout after 4000 ms/);
  }, 180_000);

  it("the Engine stopped (SIGSTOP) for 20 s and continued: its runner's connection is declared dead, the warm actor answers nothing after, and the run names the stall (here --stall-ms 30000)", async () => {
    const r = await midStage(ENGINE, pause(20_000), ["--request-timeout-ms", "4000", "--stall-ms", "30000", "--samples", "warm=600"]);
    expect(r.code, r.output).toBe(1);
    const st = r.m.stages["rivet.warm.ping"];
    expect(st.status).toBe("failed");
    expect(st.repetitions![0].failure).toMatch(
      /^rivet warm\.ping: no call succeeded for 3\d s \(\d+ failed in a row, the first: timeout after 4000 ms: no complete reply within 4000 ms\): the runtime stalled at 20/,
    );
    expect(r.m.failure).toMatch(
      /^rivet: runtime lost: rivet warm\.ping: no call succeeded for 3\d s .*the runtime stalled at \S+, during the warm group/,
    );
    for (const s of failedSamples(r)) expect(s.error).toMatch(/^timeout after 4000 ms/);
    expect(() => verifyRunDir(r.dir)).not.toThrow();
    expect(readFileSync(join(r.dir, "report", "results.md"), "utf8")).toContain("the runtime stalled");
  }, 180_000);
});

describe("the results disk full mid-stage (a small tmpfs)", () => {
  const why = (() => {
    if (process.getuid?.() !== 0) return "mounting a tmpfs needs root (CI runs as root)";
    return null;
  })();
  it.skipIf(why !== null)(
    `ENOSPC: the stage stops with no half line, the run fails naming the full disk, every sample before it verifies, and the report builds once space is freed${why ? ` (skipped: ${why})` : ""}`,
    async () => {
      const mnt = mkdtempSync(join(tmpdir(), "ab-tmpfs-"));
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt]);
      try {
        const root = join(mnt, "results");
        mkdirSync(root);
        const cli = startCli(["--preset", "full", "--side", "floor", "--groups", "warm", "--repeat", "1", "--results-dir", root]);
        const raw = "raw/floor.warm.ping.jsonl";
        await waitFor(() => runDirOf(root) !== null && linesOf(join(runDirOf(root)!, raw)) >= 20, 60_000, "20 samples of floor warm.ping");
        const dir = runDirOf(root)!;
        const kids = descendants(cli.child.pid!);
        // Fill what is left of the disk.
        try {
          execFileSync("dd", ["if=/dev/zero", `of=${join(mnt, "filler")}`, "bs=64k"], { stdio: "ignore" });
        } catch {
          // dd ends with ENOSPC: that is the point
        }
        const { code } = await cli.exited;
        await waitFor(() => kids.every((k) => !alive(k)), 10_000, "every process of the run gone");
        expect(code, cli.output()).toBe(1);
        const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as {
          status: string;
          failure: string;
          stages: Record<string, StageRecord>;
        };
        expect(m.status).toBe("failed");
        expect(m.failure).toMatch(/^the results disk ran out of space, during floor warm \(ENOSPC/);
        const st = m.stages["floor.warm.ping"];
        expect(st.status).toBe("failed");
        expect(st.repetitions![0].failure).toMatch(/^ENOSPC: .*the \d+ samples before it are kept$/);
        expect(st.attempts).toBeGreaterThanOrEqual(20);
        // no half line: every line is a sample, as many as the record says
        const lines = rawText(dir, raw);
        expect(lines.endsWith("\n")).toBe(true);
        expect(
          lines
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l)),
        ).toHaveLength(st.attempts);
        expect(() => verifyRunDir(dir)).not.toThrow();
        // the reserve was spent on the ending
        expect(existsSync(join(dir, ".space-reserve"))).toBe(false);
        rmSync(join(mnt, "filler"));
        const rep = report(dir);
        expect(rep.code, rep.output).toBe(0);
        const text = readFileSync(join(dir, "report", "results.md"), "utf8");
        expect(text).toContain("**Partial run.**");
        expect(text).toContain("the results disk ran out of space");
      } finally {
        execFileSync("umount", [mnt]);
        rmSync(mnt, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
