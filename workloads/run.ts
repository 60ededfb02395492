import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { RunDir } from "./runDir";
import { createProgress, type Progress } from "./progress";
import { AVAILABLE_SIDES, type RunConfig } from "./runConfig";
import { isColdMetric, RIVET_METRICS } from "./presets";
import { packageVersion } from "./versions";
import { startLocalRivet } from "./rivet/localRivet";
import { GatewayClient } from "./rivet/gateway";
import { RIVET_GROUP_RUNNERS, type RivetStageContext } from "./rivet/stages";
import { loopbackSettings } from "./rivet/network";
import { onInterrupt } from "./processes";
import { NETNS_ENV } from "./netns";
import { readSamples, summarize, type SummaryRow } from "../analysis/summary";

export interface RunOutcome {
  runDir: string;
  rows: SummaryRow[];
  throughput: Array<{ side: string; metric: string; concurrency: number; perSecond: number; errors: number; attempts: number }>;
  failures: string[];
}

function stageMs(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Runs every selected side and group on this machine and writes one run directory. */
export async function runLocalSuite(cfg: RunConfig, progress: Progress = createProgress(process.stdout, cfg.quiet)): Promise<RunOutcome> {
  const run = new RunDir(resolve(cfg.resultsDir), cfg.stack, cfg.preset, { ...cfg, resultsDir: undefined, quiet: undefined });
  const failures: string[] = [];
  const skipped = cfg.sides.filter((s) => !AVAILABLE_SIDES.includes(s));
  if (skipped.length > 0) progress.note(`not run: ${skipped.join(", ")} (not built yet in this version of actor-bench)`);
  run.manifest.versions = {
    ...run.manifest.versions,
    rivetkit: packageVersion("rivetkit"),
    "@rivetkit/engine-cli": packageVersion("@rivetkit/engine-cli"),
    undici: packageVersion("undici"),
  };
  run.manifest.settings = { sidesSkipped: skipped };
  run.save();
  const removeHook = onInterrupt((sig) => run.finish("failed", `interrupted by ${sig}`));

  if (cfg.sides.includes("rivet")) {
    const workDir = mkdtempSync(join(tmpdir(), "actor-bench-rivet-"));
    let ok = false;
    let rivet;
    try {
      rivet = await startLocalRivet({ workDir, settings: cfg.engine, actorSleepTimeoutMs: cfg.actorSleepTimeoutMs });
    } catch (err) {
      removeHook();
      run.finish("failed", `rivet startup: ${(err as Error).message}`);
      throw err;
    }
    try {
      run.manifest.versions.engine = rivet.engineVersion;
      run.manifest.settings = {
        ...run.manifest.settings,
        rivet: {
          engineConfig: { ...(rivet.engineConfig as object), file_system: "(run temp dir)" },
          engineEnv: {
            RUST_BACKTRACE: cfg.engine.keepRustBacktrace ? (process.env.RUST_BACKTRACE ?? null) : "removed",
            RUST_LIB_BACKTRACE: cfg.engine.keepRustBacktrace ? (process.env.RUST_LIB_BACKTRACE ?? null) : "0",
            RUST_LOG: cfg.engine.rustLog ?? null,
          },
          guardTcpNodelay: cfg.engine.tcpNodelay,
          guardGatewayV3: false,
          appTcpNodelay: "not settable (RivetKit native module)",
          actorSleepTimeoutMs: cfg.actorSleepTimeoutMs,
          loopback: { ...loopbackSettings(), privateNetns: process.env[NETNS_ENV] === "1" },
          client: "undici Pool, keep-alive, HTTP/1.1, JSON encoding",
        },
      };
      run.save();
      const client = new GatewayClient(rivet.gatewayUrl, cfg.requestTimeoutMs);
      const ctx: RivetStageContext = {
        client,
        run,
        counts: cfg.counts,
        progress,
        keyPrefix: `${run.manifest.runId}-${randomBytes(3).toString("hex")}`,
        wakeIdleMs: cfg.wakeIdleMs,
        sleepConfirmTimeoutMs: cfg.sleepConfirmTimeoutMs,
        cpuPids: () => ({ engine: rivet.engine.child.pid, app: rivet.app.child.pid, driver: process.pid }),
      };
      for (const g of cfg.groups) {
        const t0 = process.hrtime.bigint();
        try {
          await RIVET_GROUP_RUNNERS[g](ctx);
        } catch (err) {
          failures.push(`rivet ${g}: ${(err as Error).message}`);
          progress.note(`rivet ${g} FAILED: ${(err as Error).message}`);
        }
        progress.note(`rivet ${g}: group took ${(stageMs(t0) / 1000).toFixed(1)} s`);
      }
      await client.close();
      ok = failures.length === 0;
    } finally {
      await rivet.stop();
      if (ok) rmSync(workDir, { recursive: true, force: true });
      else progress.note(`engine and app logs kept in ${workDir}`);
    }
  }

  removeHook();
  run.finish(failures.length === 0 ? "complete" : "failed", failures.join("\n") || undefined);
  return { runDir: run.dir, failures, ...summarizeRun(run.dir, run.manifest) };
}

/** Headline rows and measured throughput of the stages a run recorded. */
export function summarizeRun(dir: string, manifest: RunDir["manifest"]): Pick<RunOutcome, "rows" | "throughput"> {
  const rows: SummaryRow[] = [];
  const throughput: RunOutcome["throughput"] = [];
  for (const metrics of Object.values(RIVET_METRICS)) {
    for (const metric of metrics) {
      const st = manifest.stages[`rivet.${metric}`];
      if (!st) continue;
      rows.push(summarize("rivet", metric, readSamples(join(dir, st.file)), isColdMetric(metric)));
      if (metric.startsWith("burst.") || metric === "seqwrite") {
        const completions = st.attempts - st.errors;
        throughput.push({
          side: "rivet",
          metric,
          concurrency: st.concurrency,
          perSecond: (completions * 1000) / st.wallMs,
          errors: st.errors,
          attempts: st.attempts,
        });
      }
    }
  }
  return { rows, throughput };
}
