/**
 * Pulumi.yaml's config schema against the stack config parser: every key the
 * parser reads is declared, the whole-number keys are typed integer and the
 * switches boolean, and every default and every committed stack file's value
 * is one the Pulumi CLI accepts for its type. The CLI's rule is restated here
 * (pulumi/pulumi sdk/go/common/workspace/project.go, ValidateConfigValue),
 * since no CLI runs in the tests.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { parse } from "yaml";
import { BOOLEAN_KEYS, DEFAULTS, INTEGER_KEYS, STACK_KEYS, validateStackConfig } from "./stackConfig";
import { STACK_RUN_OPTIONS } from "../workloads/run/runConfig";

type Spec = { type?: string; default?: unknown; secret?: boolean; description?: string };
const projectText = readFileSync("Pulumi.yaml", "utf8");
const project = parse(projectText) as { config: Record<string, Spec> };
/** The keys Pulumi.yaml lists in its comment as read without a declaration (no default). */
const undeclared = [...projectText.matchAll(/^# {3}(\w+) \((string|integer|boolean),/gm)].map((m) => m[1]);

/** What the Pulumi CLI accepts for a typed key: integers (or strings Go's Atoi reads), booleans (or "true"/"false"), strings. */
export function cliAccepts(type: string, value: unknown): boolean {
  if (type === "string") return typeof value === "string";
  if (type === "integer")
    return (typeof value === "number" && Number.isInteger(value)) || (typeof value === "string" && /^[+-]?\d+$/.test(value));
  if (type === "boolean") return typeof value === "boolean" || value === "true" || value === "false";
  return false;
}

describe("Pulumi.yaml's config schema", () => {
  it("declares every key the stack config reads that has a default, and lists the others in its comment", () => {
    expect([...Object.keys(project.config), ...undeclared].sort()).toEqual([...STACK_KEYS, "cloudflareApiToken"].sort());
    // The Pulumi CLI refuses every stack that does not set a declared key without a default.
    for (const [k, s] of Object.entries(project.config)) expect(s.default, `${k} has a default`).toBeDefined();
    expect(undeclared).toContain("sshSourceAddress");
  });

  it("types the whole-number keys integer, the switches boolean and the rest string", () => {
    const typed = (t: string) =>
      Object.entries(project.config)
        .filter(([, s]) => s.type === t)
        .map(([k]) => k)
        .sort();
    const declared = (keys: readonly string[]) => keys.filter((k) => project.config[k] !== undefined).sort();
    expect(typed("integer")).toEqual(declared(INTEGER_KEYS));
    expect(typed("boolean")).toEqual(declared(BOOLEAN_KEYS));
    expect(typed("string").length + typed("integer").length + typed("boolean").length).toBe(Object.keys(project.config).length);
    // The comment gives an undeclared key's kind as the parser reads it.
    for (const m of projectText.matchAll(/^# {3}(\w+) \((string|integer|boolean),/gm)) {
      const kind = INTEGER_KEYS.includes(m[1]) ? "integer" : BOOLEAN_KEYS.includes(m[1]) ? "boolean" : "string";
      expect(m[2], m[1]).toBe(kind);
    }
  });

  it("declares each run key's default as the option table has it, or none where the preset decides", () => {
    for (const o of STACK_RUN_OPTIONS) expect(project.config[o.key]?.default, `${o.key} (${o.flag})`).toEqual(o.stackDefault);
  });

  it("says each cloud key's default in its description as the stack config has it", () => {
    // A cloud key has no default in Pulumi.yaml (a local stack refuses it), so its line in the comment carries it.
    const line = (k: string) => projectText.match(new RegExp(`^# {3}${k} \\(.*(?:\\n# {5}.*)*`, "m"))?.[0].replace(/\n# +/g, " ");
    for (const [k, v] of Object.entries(DEFAULTS)) {
      const s = project.config[k];
      if (s !== undefined) expect(String(s.default), k).toBe(v);
      else expect(line(k), k).toMatch(new RegExp(`default ${v}\\b|\\b${v} \\(default`));
    }
  });

  it("has defaults of their own type, and committed stack files whose values the CLI accepts", () => {
    for (const [k, s] of Object.entries(project.config))
      if (s.default !== undefined) expect(cliAccepts(s.type!, s.default), `default of ${k}`).toBe(true);
    const stacks = readdirSync(".").filter((f) => /^Pulumi\.[\w-]+\.yaml$/.test(f));
    expect(stacks.length).toBeGreaterThanOrEqual(2);
    for (const f of stacks) {
      const cfg = (parse(readFileSync(f, "utf8")) as { config?: Record<string, unknown> }).config ?? {};
      for (const [k, v] of Object.entries(cfg)) {
        const key = k.replace(/^actor-bench:/, "");
        const spec = project.config[key];
        expect(spec !== undefined || undeclared.includes(key), `${f}: ${k} is declared or listed`).toBe(true);
        if (spec && !spec.secret) expect(cliAccepts(spec.type!, v), `${f}: ${k} = ${JSON.stringify(v)}`).toBe(true);
      }
    }
  });

  it("the restated CLI rule tells kinds apart", () => {
    expect(cliAccepts("integer", 10000)).toBe(true);
    expect(cliAccepts("integer", "10000")).toBe(true);
    expect(cliAccepts("integer", "10s")).toBe(false);
    expect(cliAccepts("integer", 1.5)).toBe(false);
    expect(cliAccepts("boolean", "yes")).toBe(false);
    expect(cliAccepts("boolean", false)).toBe(true);
  });

  it("a value the CLI lets through as an integer still gets the parser's one-line error naming the key", () => {
    // "+5" is an integer to the CLI; the parser wants plain whole minutes from 5 to 720.
    const facts = { installedEngineVersion: "2.3.19", hasCloudflareApiToken: false };
    expect(() => validateStackConfig("local", { runTimeLimitMinutes: "4" }, facts)).toThrow(
      /^config actor-bench:runTimeLimitMinutes: "4" is not allowed/,
    );
    expect(() => validateStackConfig("local", { wakeIdleMs: "+5" }, facts)).toThrow(/actor-bench:wakeIdleMs/);
  });
});
