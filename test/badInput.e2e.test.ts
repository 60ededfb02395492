/**
 * Walks the table of docs/bad-input.md: every bad input listed there, given
 * to the built command, ends in the one line the table says, with the exit
 * code it says, and no stack trace. The doc is the test's data, so the two
 * cannot drift apart.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fixture } from "./fixtures";

const DIST = resolve(__dirname, "../dist");
const COMMANDS: Record<string, string> = {
  start: "workloads/run/cli.js",
  report: "analysis/report/cli.js",
  compare: "analysis/report/compareCli.js",
  ab: "workloads/run/abCli.js",
  site: "analysis/report/siteCli.js",
  schedule: "stacks/scheduleCli.js",
};

interface Row {
  command: string;
  args: string;
  exit: number;
  says: string;
}

/** The table between the doc's markers. */
export function badInputRows(doc: string): Row[] {
  const body = doc.slice(doc.indexOf("<!-- bad-input:start -->"), doc.indexOf("<!-- bad-input:end -->"));
  const code = (cell: string) => cell.trim().replace(/^`|`$/g, "");
  return body
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| command") && !l.startsWith("|---"))
    .map((l) => {
      const cells = l.slice(1, -1).split(" | ");
      return {
        command: cells[0].trim(),
        args: cells[1].trim() === "(none)" ? "" : code(cells[1]),
        exit: Number(cells[2]),
        says: code(cells[3]),
      };
    });
}

const rows = badInputRows(readFileSync(resolve(__dirname, "../docs/bad-input.md"), "utf8"));
const places: Record<string, string> = {};
let cwd = "";

/** A copy of the good run whose manifest `edit` changes (its hashes still match: only the manifest's own checks can refuse it). */
function changedCopy(root: string, run: string, name: string, edit: (m: Record<string, unknown>) => void): string {
  const dir = join(root, "bad", name);
  cpSync(run, dir, { recursive: true });
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  edit(m);
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(m, null, 2)}\n`);
  return dir;
}

beforeAll(() => {
  const root = mkdtempSync(join(tmpdir(), "ab-bad-"));
  cwd = root;
  const results = join(root, "results");
  const run = fixture(
    {
      "rivet.create.ping": {
        samples: [
          { ms: 40, cold: true },
          { ms: 41, cold: true },
        ],
      },
    },
    { root: results },
  );
  writeFileSync(join(root, "a-file"), "not a folder\n");
  mkdirSync(join(root, "empty"));
  const linked = join(root, "bad", "linkedraw");
  cpSync(run, linked, { recursive: true });
  renameSync(join(linked, "raw"), join(root, "raw-elsewhere"));
  symlinkSync(join(root, "raw-elsewhere"), join(linked, "raw"));
  Object.assign(places, {
    run,
    results,
    file: join(root, "a-file"),
    empty: join(root, "empty"),
    missing: join(root, "missing"),
    linkedraw: linked,
    nullfiles: changedCopy(root, run, "nullfiles", (m) => ((m.files as Record<string, unknown>)["raw/rivet.create.ping.jsonl"] = null)),
    nullversions: changedCopy(root, run, "nullversions", (m) => (m.versions = null)),
    nullstage: changedCopy(root, run, "nullstage", (m) => ((m.stages as Record<string, unknown>)["rivet.create.ping"] = null)),
    badfailure: changedCopy(root, run, "badfailure", (m) => (m.failure = 5)),
  });
  writeFileSync(join(root, "Pulumi.broken.yaml"), "config:\n  actor-bench:preset: [quick\n");
  writeFileSync(
    join(root, "prices-free.json"),
    JSON.stringify({ asOf: "a test", prices: {}, assumptions: { doBilledGb: 0.125, selfHostedUtilisation: 0.5 } }),
  );
  places.freeprices = join(root, "prices-free.json");
  writeFileSync(join(root, "Pulumi.list.yaml"), "- config\n- preset\n");
});

const fill = (text: string) => text.replace(/\{([a-z]+)\}/g, (all, name: string) => places[name] ?? all);

/** A command's exit code and output, run to its end (30 s at most). */
function run(command: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, timeout: 30_000 });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("docs/bad-input.md: every bad input ends in one line, never a stack trace", () => {
  it("the table has a row for every command", () => {
    expect(new Set(rows.map((r) => r.command))).toEqual(new Set(Object.keys(COMMANDS)));
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  // Nothing here is timed: the commands run a few at a time (vitest's maxConcurrency), each test with its own expect.
  for (const row of rows) {
    it.concurrent(`${row.command} ${row.args || "(no arguments)"}`, async ({ expect }) => {
      const args = row.args ? row.args.split(" ").map(fill) : [];
      const r = await run(process.execPath, [join(DIST, COMMANDS[row.command]), ...args]);
      const err = r.stderr.trim();
      expect(r.stdout.trim(), "nothing on standard output").toBe("");
      expect(err.split("\n"), err).toHaveLength(1);
      expect(err).not.toMatch(/^\s+at |Error:|TypeError/m);
      expect(err).toContain(fill(row.says));
      expect(r.status, err).toBe(row.exit);
    });
  }
});

describe("asking for help is not bad input", () => {
  for (const [command, file] of Object.entries(COMMANDS)) {
    it.concurrent(`${command} --help prints its usage on standard output and exits 0`, async ({ expect }) => {
      const r = await run(process.execPath, [join(DIST, file), "--help"]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toMatch(/usage/i);
      expect(r.status).toBe(0);
    });
  }
  it("npm run site with no folder says first which folders it reads and writes", async () => {
    const r = await run(process.execPath, [join(DIST, COMMANDS.site)]);
    const first = r.stdout.split("\n")[0];
    expect(first).toBe(`site: reading ${join(cwd, "results")}, writing ${join(cwd, "site")} (the defaults; give both folders to choose)`);
    expect(r.status).toBe(0);
  });
});
