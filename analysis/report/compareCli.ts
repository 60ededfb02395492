import { compareRuns } from "./compare";
import { RunDirError } from "../contract/verify";
import { argumentProblem, failureLine, wantsHelp } from "../contract/cliError";

const USAGE = "usage: npm run compare -- <runDirA> <runDirB>";
const dirs = process.argv.slice(2);
if (wantsHelp(dirs)) {
  console.log(USAGE);
  process.exit(0);
}
const problem = argumentProblem(dirs, { command: "compare", flags: [], positional: ["<runDirA>", "<runDirB>"] });
if (problem) {
  console.error(problem);
  process.exit(2);
}
try {
  process.stdout.write(compareRuns(dirs[0], dirs[1]));
} catch (err) {
  console.error(err instanceof RunDirError ? `compare refused: ${failureLine(err)}` : `compare failed: ${failureLine(err)}`);
  process.exit(1);
}
