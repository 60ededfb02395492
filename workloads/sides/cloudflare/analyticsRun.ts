import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { verifyRunDir, RunDirError } from "../../../analysis/contract/verify";
import { COMPRESSED_SUFFIX } from "../../../analysis/contract/runDirContract";
import type { PlatformBlock } from "../../../analysis/stats/platformTimes";
import { blobDigest, RunDir } from "../../experiment/runDir";
import { GROUPS } from "../../../analysis/contract/catalog";
import { blocksOf, collectAnalytics, type AnalyticsSource, type CollectOpts } from "./analytics";

interface AnalyticsRunRequest {
  /** The Cloudflare run directory the analytics are for, and the digest it was stored with. */
  runDir: string;
  sha256: string;
  /** Where the analytics' own run directory is made: <blobRoot>/<stack>/<runId>/. */
  blobRoot: string;
  stack: string;
  source: Omit<AnalyticsSource, "record">;
  collect: CollectOpts;
}

interface AnalyticsRunResult {
  runId: string;
  runDir: string;
  sha256: string;
  blocks: PlatformBlock[];
}

/**
 * Asks Cloudflare's analytics for every block of a finished Cloudflare run and
 * keeps the responses as a run directory of their own (one part of the pass):
 * raw/cloudflare.analytics.<group>.jsonl, one response a line, written as it
 * arrives and hashed in the manifest like any raw file. The run it is for is
 * verified first. On failure the directory is kept (marked failed) and the
 * error names it.
 */
export async function runAnalytics(req: AnalyticsRunRequest): Promise<AnalyticsRunResult> {
  const digest = blobDigest(req.runDir);
  if (digest !== req.sha256)
    throw new RunDirError(
      `${req.runDir}/manifest.json has sha256 ${digest}, the stack recorded ${req.sha256}; the Cloudflare run was changed after it was measured`,
    );
  const m = verifyRunDir(req.runDir);
  const groups = (m.config.groups as string[] | undefined) ?? [];
  if (groups.length !== 1)
    throw new RunDirError(`${req.runDir}: analytics are kept per stage group, and this run has ${groups.length} (${groups.join(", ")})`);
  // The group names a file: it must be one of the stage groups, nothing the remote manifest made up.
  if (!(GROUPS as readonly string[]).includes(groups[0]))
    throw new RunDirError(`${req.runDir}: its group ${JSON.stringify(groups[0])} is not a stage group (${GROUPS.join(", ")})`);
  const run = new RunDir(req.blobRoot, req.stack, m.preset, {
    sides: ["cloudflare"],
    groups,
    analyticsFor: { runId: m.runId, sha256: req.sha256 },
  });
  run.manifest.versions = { ...m.versions };
  run.manifest.settings.analytics = {
    dataset:
      "durableObjectsInvocationsAdaptiveGroups (Cloudflare GraphQL), asked per block of calls (one stage), its window widened to whole seconds",
    units: "wall times stated in µs by the schema, divided by 1000",
    scriptName: req.source.scriptName,
    waitMs: req.collect.waitMs,
  };
  run.save();
  const file = join(run.dir, "raw", `cloudflare.analytics.${groups[0]}.jsonl`);
  writeFileSync(file, "");
  let seq = 0;
  const record: AnalyticsSource["record"] = (line) => appendFileSync(file, `${JSON.stringify({ seq: seq++, ...line })}\n`);
  try {
    const blocks = await collectAnalytics({ ...req.source, record }, blocksOf(m), req.collect);
    run.finish("complete");
    return { runId: run.manifest.runId, runDir: run.dir, sha256: blobDigest(run.dir), blocks };
  } catch (err) {
    run.finish("failed", (err as Error).message);
    throw new Error(`${(err as Error).message} (the responses so far are in ${file}${COMPRESSED_SUFFIX}, gzip)`);
  }
}
