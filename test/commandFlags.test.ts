import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(__dirname, "..");
const scripts = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
/** Each script that runs one of the project's own commands: its name and the built entry it runs. */
const COMMANDS = Object.entries(scripts).flatMap(([name, line]) => {
  const m = line.match(/node (dist\/\S+\.js)\s*$/);
  return m ? [[name, m[1]] as const] : [];
});
const tracked = () => spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: ROOT, encoding: "utf8" }).stdout;
const run = (entry: string, flag: string) =>
  spawnSync(process.execPath, [entry, flag], { cwd: ROOT, encoding: "utf8", timeout: 60_000, env: { ...process.env, CI: "1" } });

describe("every command of package.json answers --help with its usage and names an unknown flag, changing nothing", () => {
  it("finds the commands", () => {
    expect(COMMANDS.map(([n]) => n)).toEqual(expect.arrayContaining(["start", "report", "compare", "flags", "site", "ab"]));
  });
  for (const [name, entry] of COMMANDS) {
    it(`npm run ${name}`, () => {
      const before = tracked();
      const help = run(entry, "--help");
      expect(help.status, `${name} --help: ${help.stderr}`).toBe(0);
      expect(help.stdout).toMatch(
        name === "start" ? /^usage: npm start/ : new RegExp(`^usage: npm run ${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
      );
      const bogus = run(entry, "--bogus");
      expect(bogus.status, `${name} --bogus`).not.toBe(0);
      const lines = bogus.stderr.trim().split("\n");
      expect(lines, `${name} --bogus printed: ${bogus.stderr}`).toHaveLength(1);
      expect(lines[0]).toContain("--bogus");
      expect(tracked(), `${name} changed a tracked file`).toBe(before);
    });
  }
});
