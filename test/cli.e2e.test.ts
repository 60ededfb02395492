/** `npm start` as a user runs it: the compiled CLI in its own process, real Engine and app. */
import { describe, expect, it } from "vitest";
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { netnsAvailable } from "../workloads/netns";

const CLI = resolve(__dirname, "../dist/workloads/cli.js");

function descendants(pid: number): number[] {
  let out = "";
  try {
    out = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" });
  } catch {
    return [];
  }
  const kids = out.split("\n").filter(Boolean).map(Number);
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function startCli(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.on("exit", (code, signal) => r({ code, signal })));
  return { child, exited, output: () => output };
}

async function waitFor(pred: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

function onlyRunDir(root: string): string {
  const stackDir = join(root, "local");
  const runs = readdirSync(stackDir);
  expect(runs).toHaveLength(1);
  return join(stackDir, runs[0]);
}

describe("npm start", () => {
  it("rejects a bad flag with a message naming it, and starts nothing", async () => {
    const cli = startCli(["--preset", "huge"]);
    const { code } = await cli.exited;
    expect(code).toBe(2);
    expect(cli.output()).toMatch(/--preset must be one of quick, local, full/);
  });

  it("runs a subset, writes a run directory of the contract, prints the headline and leaves no process", async () => {
    const root = mkdtempSync(join(tmpdir(), "ab-cli-"));
    const cli = startCli(["--preset", "quick", "--side", "rivet", "--groups", "warm,seqwrite", "--results-dir", root]);
    let kids: number[] = [];
    await waitFor(() => {
      kids = descendants(cli.child.pid!);
      return kids.length >= 2 || cli.child.exitCode !== null;
    }, 60_000);
    const { code } = await cli.exited;
    expect(code, cli.output()).toBe(0);
    expect(kids.length).toBeGreaterThanOrEqual(2);
    for (const k of kids) expect(alive(k)).toBe(false);
    const dir = onlyRunDir(root);
    expect(dir).toMatch(/local[/\\]\d{8}T\d{4}Z$/);
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(m).toMatchObject({ schema: 1, stack: "local", preset: "quick", status: "complete" });
    expect(m.versions).toMatchObject({ node: process.version, rivetkit: "2.3.19" });
    expect(m.versions.engine).toMatch(/^\d+\.\d+\.\d+/);
    expect(m.settings.rivet).toMatchObject({ guardTcpNodelay: true, engineEnv: { RUST_BACKTRACE: "removed" } });
    const netns = netnsAvailable().ok;
    expect(m.settings.rivet.loopback).toMatchObject({ privateNetns: netns, ...(netns ? { quickack: true } : {}) });
    expect(Object.keys(m.files).sort()).toEqual(["raw/rivet.seqwrite.jsonl", "raw/rivet.warm.getOrCreate.jsonl", "raw/rivet.warm.ping.jsonl"]);
    expect(m.files["raw/rivet.warm.ping.jsonl"].lines).toBe(100);
    expect(cli.output()).toMatch(/rivet\s+warm\.ping\s+[\d.]+ \/ [\d.]+ \/ [\d.]+\s+100\s+0\s+0/);
    expect(cli.output()).toMatch(/rivet seqwrite\s+[\d.]+\/s/);
  });

  for (const signal of ["SIGINT", "SIGKILL"] as const) {
    it(`${signal} in the middle of a stage leaves no Engine or app behind and keeps the samples`, async () => {
      const root = mkdtempSync(join(tmpdir(), "ab-sig-"));
      const cli = startCli(["--preset", "full", "--side", "rivet", "--groups", "warm", "--results-dir", root]);
      await waitFor(() => existsSync(join(root, "local")) && existsSync(join(onlyRunDir(root), "raw/rivet.warm.ping.jsonl")), 60_000);
      const dir = onlyRunDir(root);
      await waitFor(() => readFileSync(join(dir, "raw/rivet.warm.ping.jsonl"), "utf8").split("\n").length > 20, 30_000);
      const kids = descendants(cli.child.pid!);
      expect(kids.length).toBeGreaterThanOrEqual(2);
      cli.child.kill(signal);
      const { code } = await cli.exited;
      if (signal === "SIGINT") expect(code).toBe(130);
      await waitFor(() => kids.every((k) => !alive(k)), 10_000);
      const lines = readFileSync(join(dir, "raw/rivet.warm.ping.jsonl"), "utf8").split("\n").filter(Boolean);
      expect(lines.length).toBeGreaterThan(20);
      for (const l of lines) expect(JSON.parse(l)).toHaveProperty("ok", true);
      const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
      if (signal === "SIGINT") expect(m).toMatchObject({ status: "failed", failure: "interrupted by SIGINT" });
      else expect(m.status).toBe("running");
    });
  }
});
