/**
 * npm run compress-results [-- <resultsDir>]: stores every ended run's raw
 * samples gzip-compressed (`raw/<file>.jsonl.gz`, analysis/contract/runDirContract.ts),
 * each run verified before and after against the hashes it was made with. A
 * run still marked running, or one that does not verify, is left as it is.
 */
import { guardArguments } from "../../analysis/contract/cliError";
import { compressRawFiles, runDirsUnder } from "../../analysis/contract/runDirContract";
import { RunDirError, verifyRunDir } from "../../analysis/contract/verify";

guardArguments(process.argv.slice(2), {
  command: "compress-results",
  usage: "usage: npm run compress-results [-- <resultsDir>]   (default results/)",
});
const root = process.argv[2] ?? "results";
let before = 0;
let after = 0;
for (const { dir } of runDirsUnder(root)) {
  let m: ReturnType<typeof verifyRunDir>;
  try {
    m = verifyRunDir(dir);
  } catch (err) {
    if (!(err instanceof RunDirError)) throw err;
    console.log(`${dir}: left as it is, it does not verify (${err.message})`);
    continue;
  }
  if (m.status === "running") {
    console.log(`${dir}: left as it is, its run has not ended`);
    continue;
  }
  const c = compressRawFiles(dir, m);
  verifyRunDir(dir);
  before += c.before;
  after += c.after;
  if (c.before)
    console.log(`${dir}: ${(c.before / 1e6).toFixed(1)} MB of raw samples, ${(c.after / 1e6).toFixed(1)} MB compressed; verifies`);
}
console.log(`compress-results: ${(before / 1e6).toFixed(1)} MB to ${(after / 1e6).toFixed(1)} MB`);
