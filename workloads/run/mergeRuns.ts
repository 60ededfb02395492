import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RunDir, type Manifest } from "../experiment/runDir";
import { verifyRunDir, RunDirError } from "../../analysis/contract/verify";
import { checkBenchmarkFiles, readListed } from "../../analysis/contract/runDirContract";
import { blobDigest } from "./groupRun";

/** A finished run directory holding part of a pass (one BenchmarkRun's blob), and the digest it was stored with. */
export interface RunPart {
  runDir: string;
  sha256: string;
  /** Names the part in errors and in the merged manifest, e.g. "<side> create". */
  label: string;
}

/**
 * Merges the parts of one pass into a single run directory at
 * <resultsRoot>/<stack>/<runId>/, as if one `npm start` had taken every stage:
 * each part is verified first (its manifest digest, then every raw file's
 * sha256), raw files are copied, stages, versions and settings combined. The
 * merged manifest lists the parts it came from. Throws RunDirError naming the
 * part that does not verify, before anything is written.
 */
export function mergeRunParts(parts: readonly RunPart[], resultsRoot: string, stack: string, now = new Date()): RunDir {
  if (parts.length === 0) throw new RunDirError("nothing to merge: the pass has no BenchmarkRun results");
  const manifests = parts.map((p) => {
    if (!existsSync(join(p.runDir, "manifest.json"))) {
      throw new RunDirError(
        `${p.label}: its result ${p.runDir} is gone; run \`pulumi up --refresh\` (or replace the run) to measure it again`,
      );
    }
    const digest = blobDigest(p.runDir);
    if (digest !== p.sha256) {
      throw new RunDirError(
        `${p.label}: ${p.runDir}/manifest.json has sha256 ${digest}, the stack recorded ${p.sha256}; the result was changed after the run`,
      );
    }
    const m = verifyRunDir(p.runDir) as Manifest;
    checkBenchmarkFiles(m, `${p.label}: ${p.runDir}/manifest.json`);
    return m;
  });
  const presets = new Set(manifests.map((m) => m.preset));
  if (presets.size > 1)
    throw new RunDirError(`the parts were measured with different presets (${[...presets].join(", ")}); re-run them with one`);
  const seen = new Map<string, string>();
  for (const [i, m] of manifests.entries()) {
    for (const key of Object.keys(m.stages)) {
      const other = seen.get(key);
      if (other) throw new RunDirError(`stage ${key} is in two parts (${other} and ${parts[i].label})`);
      seen.set(key, parts[i].label);
    }
    for (const file of Object.keys(m.files)) {
      const other = seen.get(file);
      if (other) throw new RunDirError(`${file} is in two parts (${other} and ${parts[i].label})`);
      seen.set(file, parts[i].label);
    }
  }

  const first = manifests[0];
  const sides = [...new Set(manifests.flatMap((m) => (m.config.sides as string[] | undefined) ?? []))];
  const groups = [...new Set(manifests.flatMap((m) => (m.config.groups as string[] | undefined) ?? []))];
  const run = new RunDir(resultsRoot, stack, first.preset, { ...first.config, sides, groups }, now);
  const mm = run.manifest;
  for (const [i, m] of manifests.entries()) {
    // Every listed file, stage samples and others (the analytics' stored responses).
    for (const file of Object.keys(m.files)) writeFileSync(join(run.dir, file), readListed(parts[i].runDir, file));
    Object.assign(mm.stages, m.stages);
    mm.versions = { ...mm.versions, ...m.versions };
    for (const [side, s] of Object.entries(m.settings ?? {})) mm.settings[side] = s;
  }
  mm.startedAt = manifests.map((m) => m.startedAt).sort()[0];
  // The code that measured is the parts', not the merging machine's: one commit, or each part's listed.
  const codes = [...new Set(manifests.map((m) => JSON.stringify(m.code ?? null)))];
  mm.code =
    codes.length === 1
      ? (manifests[0].code ?? mm.code)
      : {
          commit: null,
          dirty: null,
          source: `parts differ: ${manifests.map((m, i) => `${parts[i].label} ${m.code?.commit ?? "?"}${m.code?.dirty ? " (dirty)" : ""}`).join("; ")}`,
        };
  mm.settings.parts = parts.map((p, i) => ({ label: p.label, runId: manifests[i].runId, sha256: p.sha256, status: manifests[i].status }));
  const failures = manifests.flatMap((m, i) => (m.failure ? [`${parts[i].label}: ${m.failure}`] : []));
  run.finish(manifests.every((m) => m.status === "complete") ? "complete" : "failed", failures.join("\n") || undefined);
  mm.finishedAt = manifests
    .map((m) => m.finishedAt ?? mm.finishedAt!)
    .sort()
    .at(-1)!;
  run.save();
  return run;
}
