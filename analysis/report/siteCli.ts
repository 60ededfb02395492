import { resolve } from "node:path";
import { buildSite, SiteOutputError } from "./site";
import { failureLine, wantsHelp } from "../contract/cliError";

const USAGE = "usage: npm run site [-- <resultsDir> <siteDir>]   (default: results/ into site/)";
const args = process.argv.slice(2);
if (wantsHelp(args)) {
  console.log(USAGE);
  process.exit(0);
}
const flag = args.find((a) => a.startsWith("-"));
if (flag || (args.length !== 0 && args.length !== 2)) {
  console.error(
    flag
      ? `site: unknown flag ${flag}; it takes none (see --help)`
      : `site: takes no folders or two (<resultsDir> <siteDir>), got ${args.length} (see --help)`,
  );
  process.exit(2);
}
const [results, out] = args.length ? args.map((a) => resolve(a)) : [resolve("results"), resolve("site")];
// Said first, so a build into the default folder is never a surprise.
if (args.length === 0) console.log(`site: reading ${results}, writing ${out} (the defaults; give both folders to choose)`);
try {
  const site = buildSite(results, out, process.cwd());
  console.log(`site: ${site.runs.length} runs shown, ${site.refused.length} refused; open ${site.index}`);
  for (const r of site.refused) console.log(`  refused ${r.dir}: ${r.reason}`);
} catch (err) {
  console.error(err instanceof SiteOutputError ? `site refused: ${failureLine(err)}` : `site failed: ${failureLine(err)}`);
  process.exit(1);
}
