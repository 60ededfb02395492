/** Reading a price table from a file (apart from prices.ts, which the site's browser code also imports). */
import { readFileSync } from "node:fs";
import { failureLine } from "./cliError";
import { priceTableProblem, type PriceTable } from "./prices";

/** The price table in a JSON file, checked; throws one line naming `name` (the flag or stack key), the file and what is wrong. */
export function readPriceTable(file: string, name = "--prices"): PriceTable {
  let t: unknown;
  try {
    t = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${name} ${file}: not a readable JSON file (${failureLine(err)})`);
  }
  const problem = priceTableProblem(t);
  if (problem) throw new Error(`${name} ${file}: ${problem}`);
  return t as PriceTable;
}
