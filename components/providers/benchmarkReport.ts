import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { mergeRunParts, type RunPart } from "../../workloads/run/mergeRuns";
import { generateReport } from "../../analysis/report/report";
import { priceTableProblem, type PriceTable } from "../../analysis/contract/prices";
import { buildSite } from "../../analysis/report/site";
import { replaceDiff, requireString, type CheckFailure, type Props } from "./common";

const INPUT_KEYS = ["stack", "resultsRoot", "parts", "prices"];

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  requireString(news, "stack", failures);
  requireString(news, "resultsRoot", failures, /^\//);
  if (!Array.isArray(news.parts)) failures.push({ property: "parts", reason: "parts must be the list of BenchmarkRun results" });
  const prices = news.prices === undefined ? null : priceTableProblem(news.prices);
  if (prices) failures.push({ property: "prices", reason: `the price table (actor-bench:prices) is not one: ${prices}` });
  return { inputs: news, failures };
}

export async function diff(_id: string, olds: Props, news: Props) {
  return replaceDiff(olds, news, INPUT_KEYS);
}

/**
 * Merges every run's blob into results/<stack>/<runId>/ and writes its report
 * there, as `npm run report` does; then rebuilds the site beside results/
 * (`npm run site`) with every run there, this one included.
 */
export async function create(inputs: Props) {
  const resultsRoot = inputs.resultsRoot as string;
  const run = mergeRunParts(inputs.parts as RunPart[], resultsRoot, inputs.stack as string);
  // The stack's price table, where it gave one, goes into the merged manifest: `npm run report` rebuilds the same costs from it.
  const prices = inputs.prices as PriceTable | undefined;
  if (prices) {
    run.manifest.config = { ...run.manifest.config, prices };
    run.save();
  }
  const report = await generateReport(run.dir);
  const site = buildSite(resultsRoot, join(dirname(resultsRoot), "site"));
  return {
    id: `${inputs.stack}-report-${run.manifest.runId}`,
    outs: {
      ...inputs,
      runId: run.manifest.runId,
      runDir: run.dir,
      status: run.manifest.status,
      failure: run.manifest.failure ?? null,
      report: report.markdown,
      site: site.index,
      summary: { rows: report.summary.rows, throughput: report.summary.throughput },
    },
  };
}

export async function read(id: string, props: Props) {
  if (typeof props.runDir !== "string" || !existsSync(join(props.runDir, "manifest.json"))) return { id: "", props: {} };
  return { id, props };
}

/** The merged run directory is the pass's result and is kept: destroy does not delete measurements. */
export async function remove(): Promise<void> {}
