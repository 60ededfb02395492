/**
 * The house by role, top floor first. A file may import its own room or one
 * below it, never one above, so no two rooms import each other and there is
 * no cycle between them; production code never imports test/. Every source
 * file under workloads/ and analysis/ sits in one of their role folders.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const ROLES = [
  "index.ts", // the Pulumi program
  "policy", // the policy pack: provider rules checked at preview
  "stacks", // typed stack config, the schedule CLI
  "components", // Pulumi components and dynamic providers
  "workloads/tools", // the driver benchmark, reproduction scripts
  "workloads/runner", // what the cloud's runner VM runs, the result store
  "workloads/run", // npm start: config, the run of both sides, groups, daemons, merging
  "workloads/sides", // rivet/, cloudflare/, floor/: adapter, launcher, app or Worker
  "workloads/experiment", // the stage and pass plans, the measure loop, the run directory writer
  "workloads/driver", // timed requests on the driver's own HTTP/1.1 client
  "workloads/host", // processes, ports, namespaces, CPU lock and time, versions
  "cluster", // the cloud's Engine cluster: configs and cloud-init
  "analysis/report", // report, charts, site, compare and their CLIs
  "analysis/stats", // summaries, percentiles, intervals, repetitions
  "analysis/contract", // the metric catalog and the run directory's contract
] as const;
const ROOT = resolve(__dirname, "..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "node_modules" ? [] : sources(p);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [p] : [];
  });
}

/** Relative module names a file imports: static imports and exports, import(), require(). */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const re of [
    /\bfrom\s+"(\.{1,2}\/[^"]+)"/g,
    /\bimport\s+"(\.{1,2}\/[^"]+)"/g,
    /\b(?:require|import)\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g,
  ]) {
    for (const m of text.matchAll(re)) out.push(m[1]);
  }
  return out;
}

/** The role a repository path belongs to: the longest entry of ROLES it is, or lies under; -1 for none. */
export function roleOf(path: string): number {
  let best = -1;
  ROLES.forEach((r, i) => {
    if ((path === r || path.startsWith(`${r}/`)) && (best < 0 || r.length > ROLES[best].length)) best = i;
  });
  return best;
}

/** Every import that goes up the house or into test/, as "<file> -> <target>". */
export function violations(files: string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const from = roleOf(relative(ROOT, file));
    for (const mod of importsOf(readFileSync(file, "utf8"))) {
      const target = relative(ROOT, resolve(dirname(file), mod));
      const to = roleOf(target) >= 0 ? roleOf(target) : roleOf(`${target}.ts`);
      if (target.startsWith("test/") || to < from) out.push(`${relative(ROOT, file)} -> ${target}`);
    }
  }
  return out;
}

const production = () =>
  ["index.ts", "stacks", "components", "workloads", "cluster", "analysis"].flatMap((d) =>
    d.endsWith(".ts") ? [join(ROOT, d)] : sources(join(ROOT, d)),
  );

describe("the house by role", () => {
  it("no file imports a role above its own (the order of ROLES), nor test/", () => {
    expect(violations(production())).toEqual([]);
  });
  it("every source file under workloads/ and analysis/ is in a role folder", () => {
    const loose = production()
      .map((f) => relative(ROOT, f))
      .filter((f) => roleOf(f) < 0);
    expect(loose).toEqual([]);
  });
  it("each role folder exists and holds code", () => {
    const empty = ROLES.filter((r) => !r.endsWith(".ts") && sources(join(ROOT, r)).length === 0);
    expect(empty).toEqual([]);
  });
  it("places a file in its deepest role and sees an upward import", () => {
    expect(ROLES[roleOf("workloads/sides/rivet/adapter.ts")]).toBe("workloads/sides");
    expect(ROLES[roleOf("analysis/contract/catalog.ts")]).toBe("analysis/contract");
    expect(roleOf("workloads/stray.ts")).toBe(-1);
    expect(roleOf("workloads/sides")).toBeGreaterThan(roleOf("workloads/run"));
  });
  it("the check sees static, type, dynamic and require imports", () => {
    expect(
      importsOf(
        'import { a } from "../x";\nimport type { B } from "./y";\nconst c = require("../../z");\nawait import("./w");\nimport "./side";',
      ),
    ).toEqual(["../x", "./y", "./side", "../../z", "./w"]);
  });
});
