import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunSummary } from "../stats/summary";
import { chartsNote } from "./prose";
import { escapeMd, table } from "./format";
import { renderCharts } from "./charts";
import type { PriceTable } from "../contract/prices";

import { renderClaims } from "./sections/claims";
import { renderPayload } from "./sections/payload";
import { renderAlarms } from "./sections/alarms";
import { renderHops } from "./sections/hops";
import { renderCapacity, renderCostLoad, renderIdle, renderScale } from "./sections/groups";
import { chartCreates, renderControlCost, renderHeadline, renderReadme, renderSameClock } from "./sections/headline";
import { type Loaded, loadRun } from "./load";
import {
  json,
  placementLine,
  platformTable,
  renderCalibration,
  renderDifferences,
  renderHead,
  renderStartStates,
} from "./sections/runNotes";
import { summaryJson } from "./summaryJson";
import { fullTables, intervalNote, intervalTable, renderCost, renderCpu, renderMemory, renderRows } from "./sections/tables";

export interface Report {
  summary: RunSummary;
  markdown: string;
  headline: string;
  /** The README's shorter headline (readmeHeadlineMarkdown). */
  readmeHeadline: string;
}

/** The report's Markdown: every section rendered from the run model and its notes, in order. */
function reportMarkdown(l: Loaded, charts: string[]): string {
  const n = l.notes;
  const parts = [
    renderHead(n.head),
    n.partial.length ? `**Partial run.** ${n.partial[0]} The caveats below list what ended early.` : "",
    placementLine(l.samples, l.platform),
    `## Headline\n\n${renderHeadline(l.model.headline, l.model.sides)}`,
    charts.length
      ? `## Charts\n\n${charts.map((c) => `![${c}](charts/${c}.png)`).join("\n\n")}\n\n${chartsNote(chartCreates(l.model.sides))}`
      : "",
    `## Full tables\n\nFor creates, wakes and bursts only samples whose cold flag proves a fresh instance count (n); the others are \`notCold\`. ${intervalNote(n.repetitions, l.summary.rows)}\n\n${fullTables(l)}`,
    renderSameClock(l.model.sameClock, l.model.sides),
    renderControlCost(l.model.controlCost, l.model.sides),
    renderCost(l.model.cost, l.model.sides),
    renderCostLoad(l.model.costLoad, l.model.sides),
    renderCpu(l.model.cpu, l.model.sides),
    renderRows(l.model.storageRows, l.model.sides),
    [
      ...l.summary.sides.order.flatMap((side) => {
        const p = l.summary.sides.get(side);
        return (["actorMs", "sqlMs"] as const).map((field) =>
          p.intervals?.[field] ? intervalTable(l, side, field, `In the actor: ${p.intervals[field]} (${p.short})`) : "",
        );
      }),
      platformTable(l.platform, l.summary.sides),
    ]
      .filter(Boolean)
      .join("\n\n"),
    renderPayload(l.model.payload, l.model.sides, l.model.claims),
    renderAlarms(l.model.alarms, l.model.sides, l.model.claims),
    renderHops(l.model.hops, l.model.sides),
    renderIdle(l.model.idle, l.model.sides),
    renderCapacity(l.model.capacity, l.model.sides, l.model.claims),
    renderScale(l.model.scale, l.summary),
    renderMemory(l.model.memory, l.model.sides),
    renderClaims(l.model.claims, l.model.sides),
    renderStartStates(n.startStates, n.sides),
    renderDifferences(n.differences, n.sides),
    `## Caveats\n\n${n.caveats.map((c) => `- ${c}`).join("\n")}`,
    `## Versions\n\n${table(
      ["component", "version"],
      n.versions.map(([k, v]) => [escapeMd(k), escapeMd(v)]),
    )}`,
    `## Machine\n\n${json(n.machine)}${renderCalibration(n.calibration)}`,
    `## Config\n\n${json(n.config)}`,
    n.settings ? `## Settings\n\n${json(n.settings)}` : "",
  ];
  return `${parts.filter(Boolean).join("\n\n")}\n`;
}

/**
 * Regenerates <runDir>/report/ from raw/ alone. Verifies every raw file first
 * and writes nothing when one fails. The output depends only on the run
 * directory's files: the same raw files give byte-identical reports.
 */
export async function generateReport(dir: string, prices?: PriceTable): Promise<Report> {
  const l = loadRun(dir, prices);
  const tmp = join(dir, "report.tmp");
  rmSync(tmp, { recursive: true, force: true });
  let markdown: string;
  try {
    mkdirSync(join(tmp, "charts"), { recursive: true });
    const charts = await renderCharts(l.m, l.samples, l.summary, join(tmp, "charts"), l.model);
    markdown = reportMarkdown(l, charts);
    writeFileSync(join(tmp, "results.md"), markdown);
    writeFileSync(join(tmp, "summary.json"), summaryJson(l));
  } catch (err) {
    // Whatever failed, no half-written report is left beside the old one.
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  rmSync(join(dir, "report"), { recursive: true, force: true });
  renameSync(tmp, join(dir, "report"));
  return {
    summary: l.summary,
    markdown,
    headline: renderHeadline(l.model.headline, l.model.sides),
    readmeHeadline: renderReadme(l.model.readme, l.model.sides),
  };
}
