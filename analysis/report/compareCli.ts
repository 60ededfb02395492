import { compareRuns } from "./compare";
import { RunDirError } from "../contract/verify";
import { failureLine } from "../contract/cliError";

const dirs = process.argv.slice(2);
if (dirs.length !== 2) {
  console.error("usage: npm run compare -- <runDirA> <runDirB>");
  process.exit(2);
}
try {
  process.stdout.write(compareRuns(dirs[0], dirs[1]));
} catch (err) {
  console.error(err instanceof RunDirError ? `compare refused: ${failureLine(err)}` : `compare failed: ${failureLine(err)}`);
  process.exit(1);
}
