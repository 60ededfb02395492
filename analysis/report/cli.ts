import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { generateReport } from "./report";
import { RunDirError } from "../contract/verify";
import { claimsBlock, claimsLabel, hopsBlock, hopsLabel, refreshReadme, replaceClaims, replaceHops, runLabel } from "./readme";
import { referenceMarkdown, replaceReferenceBlock } from "./referenceTable";
import { failureLine, wantsHelp } from "../contract/cliError";
import { readPriceTable } from "../contract/priceFile";
import type { PriceTable } from "../contract/prices";

const USAGE =
  "usage: npm run report -- <runDir> [--readme] [--readme-claims [<runDir> ...]] [--readme-hops] [--prices FILE]   (runDir: results/<stack>/<runId>; FILE: a price table as JSON, the shape of analysis/contract/prices.ts)";

/** The price table a `--prices FILE` names, checked; or the one the run recorded (`npm start -- --prices`), or the repository's. */
const pricesFrom = (file: string | undefined): PriceTable | undefined => (file === undefined ? undefined : readPriceTable(file));

/** npm run report -- <runDir> [--readme] [--readme-claims [<runDir> ...]] [--readme-hops] [--prices FILE] */
async function main(argv: string[]): Promise<number> {
  if (wantsHelp(argv)) {
    console.log(USAGE);
    return 0;
  }
  const at = argv.indexOf("--prices");
  const pricesFile = at >= 0 ? argv[at + 1] : undefined;
  const rest = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 2)] : argv;
  const dirs = rest.filter((a) => !a.startsWith("--"));
  const unknown = rest.filter((a) => a.startsWith("--") && !["--readme", "--readme-claims", "--readme-hops"].includes(a));
  if (unknown.length) {
    console.error(`report: unknown flag ${unknown[0]}; it takes --readme, --readme-claims, --readme-hops, --prices FILE (see --help)`);
    return 2;
  }
  if (dirs.length < 1) {
    console.error("report: missing <runDir> (see --help)");
    return 2;
  }
  if (
    dirs.length < 1 ||
    (dirs.length > 1 && !argv.includes("--readme-claims")) ||
    unknown.length ||
    (at >= 0 && (pricesFile === undefined || pricesFile.startsWith("--")))
  ) {
    console.error(USAGE);
    return 2;
  }
  let prices: PriceTable | undefined;
  try {
    prices = pricesFrom(pricesFile);
  } catch (err) {
    console.error(`report: ${failureLine(err)}`);
    return 2;
  }
  // Checked before the report is written, so a --readme run outside the project folder changes nothing.
  if (["--readme", "--readme-claims", "--readme-hops"].some((f) => argv.includes(f)) && !existsSync("README.md")) {
    console.error(
      `report: --readme, --readme-claims and --readme-hops refresh ./README.md, and there is none in ${process.cwd()}: run it from the project folder`,
    );
    return 2;
  }
  const r = await generateReport(dirs[0], prices);
  console.log(`report written to ${dirs[0]}/report/ (results.md, summary.json, charts/)\n`);
  console.log(r.headline);
  if (argv.includes("--readme")) {
    const path = "README.md";
    writeFileSync(path, refreshReadme(readFileSync(path, "utf8"), dirs[0], r.readmeHeadline));
    console.log(`\nREADME.md headline refreshed from ${dirs[0]}`);
    const ref = "docs/reference.md";
    if (existsSync(ref)) {
      writeFileSync(ref, replaceReferenceBlock(readFileSync(ref, "utf8"), runLabel(dirs[0], "../"), referenceMarkdown(r.summary)));
      console.log(`${ref}: the reference's table refreshed from ${dirs[0]}`);
    }
  }
  if (argv.includes("--readme-claims")) {
    writeFileSync("README.md", replaceClaims(readFileSync("README.md", "utf8"), claimsLabel(dirs), claimsBlock(dirs)));
    console.log(`\nREADME.md claims ledger refreshed from ${dirs.join(", ")}`);
  }
  if (argv.includes("--readme-hops")) {
    writeFileSync("README.md", replaceHops(readFileSync("README.md", "utf8"), hopsLabel(dirs[0]), hopsBlock(dirs[0])));
    console.log(`\nREADME.md waterfall refreshed from ${dirs[0]}`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof RunDirError ? `report refused: ${failureLine(err)}` : `report failed: ${failureLine(err)}`);
    process.exit(1);
  },
);
