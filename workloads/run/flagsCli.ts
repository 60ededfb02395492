/**
 * npm run flags: rewrites the flags table of docs/local-runs.md from the
 * option table (between its markers), so the docs list every option with the
 * default, bounds, stack key and side the code has.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { FLAGS_END, FLAGS_START, flagsMarkdown } from "./runConfig";
import { argumentProblem, wantsHelp } from "../../analysis/contract/cliError";

const USAGE = "usage: npm run flags   (rewrites the flags table of docs/local-runs.md from the option table; takes no arguments)";
const argv = process.argv.slice(2);
if (wantsHelp(argv)) {
  console.log(USAGE);
  process.exit(0);
}
const problem = argumentProblem(argv, { command: "flags", flags: [], positional: [] });
if (problem) {
  console.error(problem);
  process.exit(2);
}

const path = "docs/local-runs.md";
const text = readFileSync(path, "utf8");
const a = text.indexOf(FLAGS_START);
const b = text.indexOf(FLAGS_END);
if (a < 0 || b < a) {
  console.error(`${path} has no flags markers: add a line "${FLAGS_START}" and a line "${FLAGS_END}" where the table goes`);
  process.exit(2);
}
writeFileSync(path, `${text.slice(0, a + FLAGS_START.length)}\n${flagsMarkdown()}\n${text.slice(b)}`);
console.log(`${path}: flags table rewritten`);
