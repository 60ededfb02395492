import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { generateReport } from "./report";
import { RunDirError } from "../contract/verify";
import { refreshReadme, runLabel } from "./readme";
import { referenceMarkdown, replaceReferenceBlock } from "./referenceTable";
import { failureLine } from "../contract/cliError";

/** npm run report -- <runDir> [--readme] */
async function main(argv: string[]): Promise<number> {
  const dirs = argv.filter((a) => !a.startsWith("--"));
  const unknown = argv.filter((a) => a.startsWith("--") && a !== "--readme");
  if (dirs.length !== 1 || unknown.length) {
    console.error("usage: npm run report -- <runDir> [--readme]   (runDir: results/<stack>/<runId>)");
    return 2;
  }
  // Checked before the report is written, so a --readme run outside the project folder changes nothing.
  if (argv.includes("--readme") && !existsSync("README.md")) {
    console.error(`report: --readme refreshes ./README.md, and there is none in ${process.cwd()}: run it from the project folder`);
    return 2;
  }
  const r = await generateReport(dirs[0]);
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
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof RunDirError ? `report refused: ${failureLine(err)}` : `report failed: ${failureLine(err)}`);
    process.exit(1);
  },
);
