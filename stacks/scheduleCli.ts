import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { DEFAULTS, overlapIdleOf, stackRunConfig, STACK_KEYS, type RawStackConfig, type StackKey } from "./stackConfig";
import { UsageError } from "../workloads/run/runConfig";
import { RunDirError } from "../analysis/contract/verify";
import { failureLine, wantsHelp } from "../analysis/contract/cliError";
import { costsFromRun, newestCosts, passSchedule } from "../workloads/run/passSchedule";

const USAGE = "usage: npm run schedule -- <stack> [--from <runDir>]   (the stack's Pulumi.<stack>.yaml, in this folder)";

/** The actor-bench keys of a stack file, as the strings Pulumi holds; secrets are neither needed nor read. */
function stackFileConfig(path: string): RawStackConfig {
  let doc: { config?: Record<string, unknown> };
  try {
    doc = (parse(readFileSync(path, "utf8")) ?? {}) as { config?: Record<string, unknown> };
  } catch (err) {
    throw new UsageError(`${path}: not a stack file Pulumi could read (${failureLine(err)})`);
  }
  if (
    typeof doc !== "object" ||
    Array.isArray(doc) ||
    (doc.config !== undefined && (typeof doc.config !== "object" || doc.config === null || Array.isArray(doc.config)))
  ) {
    throw new UsageError(`${path}: its top level must be a mapping with a "config:" mapping in it`);
  }
  const raw: RawStackConfig = {};
  for (const [full, value] of Object.entries(doc.config ?? {})) {
    if (!full.startsWith("actor-bench:") || typeof value === "object") continue;
    const key = full.slice("actor-bench:".length);
    if (!(STACK_KEYS as readonly string[]).includes(key))
      throw new UsageError(`${path}: unknown config key actor-bench:${key}; known keys: ${STACK_KEYS.join(", ")}`);
    raw[key as StackKey] = String(value);
  }
  return raw;
}

/** Prints a stack's planned cloud pass: its runs in order, their expected times, where idle waits overlap, the total. */
export async function main(argv: string[], projectDir = process.cwd()): Promise<string> {
  const [stack, ...rest] = argv;
  const flag = argv.find((a) => a.startsWith("-") && a !== "--from");
  if (flag) throw new UsageError(`unknown flag ${flag}; it takes --from <runDir> (see --help)`);
  if (!stack) throw new UsageError(`missing <stack> (see --help); ${USAGE}`);
  if (!stack || stack.startsWith("-") || (rest.length !== 0 && (rest.length !== 2 || rest[0] !== "--from"))) throw new UsageError(USAGE);
  const file = join(projectDir, `Pulumi.${stack}.yaml`);
  if (!existsSync(file)) throw new UsageError(`${file}: no such stack file; name a stack of this project (Pulumi.<stack>.yaml)`);
  const raw = stackFileConfig(file);
  if ((raw.target ?? DEFAULTS.target) !== "azure")
    throw new UsageError(
      `stack ${stack}: its target is local, whose pass runs each group alone on this machine; the schedule is a cloud pass's (a stack with actor-bench:target azure)`,
    );
  const { run } = stackRunConfig(stack, raw);
  const overlap = overlapIdleOf(raw);
  const source = rest.length ? costsFromRun(resolve(rest[1])) : newestCosts(join(projectDir, "results"), stack);
  return (await passSchedule(run, overlap, source, projectDir)).text;
}

if (require.main === module && wantsHelp(process.argv.slice(2))) console.log(USAGE);
else if (require.main === module) {
  main(process.argv.slice(2)).then(
    (text) => process.stdout.write(`${text}\n`),
    (err: unknown) => {
      console.error(
        err instanceof UsageError || err instanceof RunDirError ? `schedule: ${failureLine(err)}` : `schedule failed: ${failureLine(err)}`,
      );
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
