/** A run read once for every renderer: its manifest (verified), samples, summary, the platform's own times and the run model. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { verifyRunDir, type ManifestLike } from "../contract/verify";
import { readListed, stageSamples, stageKey } from "../contract/runDirContract";
import { orderedStages, runSamples, summarizeRun, type RunSamples, type RunSummary } from "../stats/summary";
import { sideBookOf } from "../contract/sideProfile";
import { runModel, type RunModel } from "./model";
import { runNotes, type RunNotes } from "./notesModel";
import { ANALYTICS_FILE, platformBlocks, readAnalyticsLines, type PlatformBlock } from "../stats/platformTimes";
import { DEFAULT_PRICES, priceTableProblem, type PriceTable } from "../contract/prices";

/** A loaded run: its verified manifest (for the charts and the site), and what the report renders: samples, summary, the run model and its notes. */
export type Loaded = {
  m: ManifestLike;
  samples: RunSamples;
  summary: RunSummary;
  platform: PlatformBlock[];
  model: RunModel;
  notes: RunNotes;
};

/** The price table a report uses: the one given, else the one the run recorded (`npm start -- --prices FILE`), else the repository's. */
function pricesOf(m: ManifestLike, given?: PriceTable): PriceTable {
  if (given) return given;
  const recorded = (m.config as { prices?: unknown }).prices;
  if (recorded === undefined) return DEFAULT_PRICES;
  const problem = priceTableProblem(recorded);
  if (problem)
    throw new Error(`the run's manifest records a price table that is not one (config.prices: ${problem}); give one with --prices FILE`);
  return recorded as PriceTable;
}

export function loadRun(dir: string, given?: PriceTable): Loaded {
  const m = verifyRunDir(dir);
  const prices = pricesOf(m, given);
  const samples = runSamples(
    orderedStages(m).map((s) => [stageKey(s.side, s.metric), stageSamples(dir, m, m.stages[stageKey(s.side, s.metric)])]),
    sideBookOf(m),
  );
  const summary = summarizeRun(dir, m, (f) => {
    const st = Object.values(m.stages).find((x) => x.file === f)!;
    return samples.get(stageKey(st.side, st.metric))!;
  });
  const platform = Object.keys(m.files)
    .filter((f) => ANALYTICS_FILE.test(f))
    .flatMap((f) => platformBlocks(readAnalyticsLines(readListed(dir, f).toString("utf8"), f)));
  return { m, samples, summary, platform, model: runModel(m, summary, samples, prices, (f) => readListed(dir, f)), notes: runNotes(m) };
}

export function readManifest(dir: string): ManifestLike {
  return JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as ManifestLike;
}
