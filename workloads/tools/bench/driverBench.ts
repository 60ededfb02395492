/**
 * `npm run bench:driver`: how much the load driver adds. The driver's own
 * request path (GatewayClient over the driver's HTTP/1.1 client, the measure
 * loop, a sample written per request) against a no-op server on loopback (nginx
 * when installed, else Node's http server), side by side in the same run with
 * undici's dispatch alone (what undici costs without the driver's code),
 * autocannon and, when installed, wrk. Prints latency, rate and client CPU per
 * request with the ratios driver/reference, and writes a run directory (stack
 * "driver-bench") so `npm run report` and `npm run compare` apply.
 */
import { guardArguments } from "../../../analysis/contract/cliError";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { RunDir } from "../../experiment/runDir";
import { measure } from "../../experiment/measure";
import { createProgress } from "../../experiment/progress";
import { freePort } from "../../host/ports";
import { spawnManaged, stopAll } from "../../host/processes";
import { waitUntil } from "../../host/waitFor";
import { packageVersion } from "../../host/versions";
import { Http1Client } from "../../driver/http1/client";
import { actionRequest, GatewayClient, type Target } from "../../sides/rivet/gateway";
import { parseProcStatCpuMs } from "../../host/cpuTime";
import { readSamples, percentiles } from "../../../analysis/stats/summary";
import { stageKey } from "../../../analysis/contract/runDirContract";
import { runWrk, wrkVersion, type WrkResult } from "./wrk";
import { findNginx, startNginx } from "./nginxServer";
import { NOOP_REPLY } from "./noopServer";
import { benchTable, toolOrder, type Figure } from "./benchFigures";
import { AUTOCANNON_CLOCK, autocannonRun, UNDICI_CLOCK, undiciRun } from "./referenceRuns";

const RATE_LEVELS = [8, 32, 128] as const;

/** The request every tool sends: the driver's own action call to actor id "noop". */
const NOOP: Target = { kind: "id", actorId: "noop" };
const REQUEST = actionRequest(NOOP, "ping");

interface BenchArgs {
  rounds: number;
  c1Requests: number;
  rateRequests: number;
  wrkSeconds: number;
  resultsDir: string;
  useWrk: boolean;
  nodeServer: boolean;
}

const BENCH_USAGE =
  "usage: npm run bench:driver -- [--rounds N] [--c1-requests N] [--rate-requests N] [--wrk-seconds N] [--no-wrk] [--node-server] [--results-dir DIR]";

function parseArgs(argv: string[]): BenchArgs {
  const a: BenchArgs = {
    rounds: 9,
    c1Requests: 5000,
    rateRequests: 20000,
    wrkSeconds: 2,
    resultsDir: "results",
    useWrk: true,
    nodeServer: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    const num = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${f} needs a positive whole number`);
      return n;
    };
    if (f === "--rounds") a.rounds = num();
    else if (f === "--c1-requests") a.c1Requests = num();
    else if (f === "--rate-requests") a.rateRequests = num();
    else if (f === "--wrk-seconds") a.wrkSeconds = num();
    else if (f === "--results-dir") a.resultsDir = argv[++i];
    else if (f === "--no-wrk") a.useWrk = false;
    else if (f === "--node-server") a.nodeServer = true;
    else throw new Error(`unknown argument ${f}; ${BENCH_USAGE}`);
  }
  return a;
}

/** CPU ms of this process's children it has waited for (wrk runs). */
function childCpuMs(): number {
  return parseProcStatCpuMs(readFileSync("/proc/self/stat", "utf8"), 100, "children");
}

/** Figures of one stage from its raw samples: p50/p99 over successes, completions per second over the stage's wall time. */
function stageFigures(run: RunDir, side: string, metric: string): { p50: number; p99: number; perSecond: number; errors: number } {
  const st = run.manifest.stages[stageKey(side, metric)];
  const samples = readSamples(join(run.dir, st.file));
  const p = percentiles(samples.filter((s) => s.ok).map((s) => s.ms));
  return { p50: p.p50, p99: p.p99, perSecond: ((st.attempts - st.errors) * 1000) / st.wallMs, errors: st.errors };
}

/** The no-op server every tool loads: nginx where installed, else Node's http server. Returns how the manifest names it. */
async function startServer(args: BenchArgs, run: RunDir, work: string, port: number): Promise<string> {
  const found = args.nodeServer ? null : findNginx();
  if (found) {
    run.manifest.versions = { ...run.manifest.versions, nginx: found.version };
    await startNginx(found.binary, port, join(work, "nginx"));
  } else {
    if (!args.nodeServer)
      process.stderr.write(
        "nginx is not installed (apt-get install nginx-light): loading Node's http server instead, which is slower than wrk and caps every tool's rate at high concurrency\n",
      );
    const server = spawnManaged({
      name: "noop-server",
      command: process.execPath,
      args: [join(__dirname, "noopServer.js"), String(port)],
      env: process.env,
      logFile: join(work, "server.log"),
    });
    await waitUntil("listening", server, join(work, "server.log"), 10_000, () =>
      readFileSync(join(work, "server.log"), "utf8").includes("listening"),
    );
  }
  const kind = found ? `nginx ${found.version}, one process` : "Node http server, one process";
  return `${kind}, 127.0.0.1, fixed ${Buffer.byteLength(NOOP_REPLY)}-byte JSON reply${found || args.nodeServer ? "" : " (nginx not installed)"}`;
}

/** How the bench measures, as its manifest records it. */
const benchSettings = (serverText: string, wrk: string | null) => ({
  server: serverText,
  driver: `GatewayClient.call (${Http1Client.DESCRIPTION}) in the shared measure loop, one sample written per request`,
  undici: UNDICI_CLOCK,
  autocannon: AUTOCANNON_CLOCK,
  wrk: wrk ? "one thread, latency percentiles from its done() hook; no per-request samples" : "not installed (apt-get install wrk)",
  order:
    "each round: every tool at c1, then every tool at each rate level; at each level the driver, autocannon, undici alone, wrk, in reverse every other round",
  ratios:
    "each ratio is the median over rounds of that round's tool/reference ratio, so both values of a pair were taken under the same machine load",
  clientCpu:
    "CPU per completed request of the tool's own process: the driver, undici alone and autocannon share this one (process.cpuUsage, all threads, including the sample writes), wrk's from its child fields in /proc/self/stat once it exited",
});

/** What the rounds leave beside the run's stages: wrk's own figures and each tool's client CPU per request, by tool and level. */
interface RoundsOut {
  wrkFigures: Record<string, WrkResult[]>;
  cpuUs: Record<string, number[]>;
}

/**
 * Every round: each tool at c1, then at each rate level, in the round's order. Client CPU per completed request: the
 * driver, undici alone and autocannon run in this process (getrusage of all its threads), wrk in a child (its CPU once waited for).
 */
async function measureRounds(args: BenchArgs, run: RunDir, origin: string, wrk: string | null, work: string): Promise<RoundsOut> {
  const url = `${origin}${REQUEST.path}`;
  const ctx = { run, progress: createProgress(process.stderr, true) };
  const client = new GatewayClient(origin, 10_000);
  const call = () => client.call(NOOP, "ping");
  const out: RoundsOut = { wrkFigures: {}, cpuUs: {} };
  const timedCpu = async (key: string, requests: () => number, job: () => unknown, of: "self" | "children" = "self") => {
    const self0 = process.cpuUsage();
    const child0 = childCpuMs();
    await job();
    const self = process.cpuUsage(self0);
    const usedUs = of === "children" ? (childCpuMs() - child0) * 1000 : self.user + self.system;
    (out.cpuUs[key] ??= []).push(usedUs / Math.max(1, requests()));
  };
  // Warm-up for every tool: connections open, JIT warm. Not recorded.
  await measure({ ctx, side: "warmup", metric: "driver", n: 2000, concurrency: 8, call });
  await undiciRun(run, origin, REQUEST, "warmup", 8, 2000);
  await autocannonRun(run, url, "warmup", 8, 2000);
  if (wrk) runWrk(url, 8, 1, work);
  for (const k of ["warmup.driver", "undici.warmup", "autocannon.warmup"]) delete run.manifest.stages[k];
  for (let r = 1; r <= args.rounds; r++) {
    for (const c of [1, ...RATE_LEVELS]) {
      const metric = `${c === 1 ? "rtt" : "rate"}.c${c}.r${r}`;
      const n = c === 1 ? args.c1Requests : args.rateRequests;
      const done = (side: string) => () => {
        const st = run.manifest.stages[stageKey(side, metric)];
        return st.attempts - st.errors;
      };
      for (const tool of toolOrder(r)) {
        if (tool === "driver")
          await timedCpu(`driver.c${c}`, done("driver"), () => measure({ ctx, side: "driver", metric, n, concurrency: c, call }));
        else if (tool === "autocannon") await timedCpu(`autocannon.c${c}`, done("autocannon"), () => autocannonRun(run, url, metric, c, n));
        else if (tool === "undici") await timedCpu(`undici.c${c}`, done("undici"), () => undiciRun(run, origin, REQUEST, metric, c, n));
        else if (wrk) {
          const runs = (out.wrkFigures[`c${c}`] ??= []);
          const job = () => runs.push(runWrk(url, c, args.wrkSeconds, work));
          await timedCpu(`wrk.c${c}`, () => runs[runs.length - 1].requests, job, "children");
        }
      }
      process.stderr.write(`round ${r} c${c} done\n`);
    }
  }
  await client.close();
  return out;
}

/** The bench's figures, each tool's value per round, from the run's stages and the rounds' own records. */
function benchFigures(run: RunDir, rounds: number, wrk: string | null, out: RoundsOut): Figure[] {
  const figures: Figure[] = [];
  for (const c of [1, ...RATE_LEVELS]) {
    const per = (side: string) =>
      Array.from({ length: rounds }, (_, i) => stageFigures(run, side, `${c === 1 ? "rtt" : "rate"}.c${c}.r${i + 1}`));
    const d = per("driver");
    const u = per("undici");
    const a = per("autocannon");
    const w = wrk ? out.wrkFigures[`c${c}`] : null;
    const byRound = (pick: (x: { p50: number; p99: number; perSecond: number }) => number) => ({
      driver: d.map(pick),
      undici: u.map(pick),
      autocannon: a.map(pick),
      wrk: w ? w.map((x) => pick({ p50: x.p50, p99: x.p99, perSecond: (x.requests * 1000) / x.durationMs })) : null,
    });
    if (c === 1) {
      figures.push({ name: "c1 round trip p50 (ms)", lowerIsBetter: true, rounds: byRound((x) => x.p50) });
      figures.push({ name: "c1 round trip p99 (ms)", lowerIsBetter: true, rounds: byRound((x) => x.p99) });
    }
    figures.push({ name: `c${c} completions per second`, lowerIsBetter: false, rounds: byRound((x) => x.perSecond) });
    const cpu = (tool: string) => out.cpuUs[`${tool}.c${c}`];
    figures.push({
      name: `c${c} client CPU per request (us)`,
      lowerIsBetter: true,
      rounds: { driver: cpu("driver"), undici: cpu("undici"), autocannon: cpu("autocannon"), wrk: wrk ? cpu("wrk") : null },
    });
  }
  return figures;
}

async function main(): Promise<void> {
  guardArguments(process.argv.slice(2), {
    command: "bench:driver",
    usage: BENCH_USAGE,
    flags: ["--no-wrk", "--node-server"],
    valued: ["--rounds", "--c1-requests", "--rate-requests", "--wrk-seconds", "--results-dir"],
  });
  const args = parseArgs(process.argv.slice(2));
  const wrk = args.useWrk ? wrkVersion() : null;
  const run = new RunDir(resolve(args.resultsDir), "driver-bench", "bench", { ...args });
  run.manifest.versions = {
    ...run.manifest.versions,
    undici: packageVersion("undici"),
    autocannon: packageVersion("autocannon"),
    ...(wrk ? { wrk } : {}),
  };
  const work = mkdtempSync(join(tmpdir(), "actor-bench-driver-"));
  const port = await freePort();
  const serverText = await startServer(args, run, work, port);
  run.manifest.settings.bench = benchSettings(serverText, wrk);
  run.save();
  const out = await measureRounds(args, run, `http://127.0.0.1:${port}`, wrk, work);
  await stopAll();
  rmSync(work, { recursive: true, force: true });
  const figures = benchFigures(run, args.rounds, wrk, out);
  run.manifest.settings.benchFigures = figures;
  run.manifest.settings.wrkRuns = out.wrkFigures;
  run.manifest.settings.clientCpuUsPerRequest = out.cpuUs;
  run.finish("complete");
  console.log(
    `driver benchmark, ${run.manifest.machine.cpus} x ${run.manifest.machine.cpuModel}, server: ${serverText}; each tool's median of ${args.rounds} rounds; each ratio the median of the rounds' own ratios (the tools run interleaved in a round)\n`,
  );
  console.log(benchTable(figures, args.useWrk ? "not installed" : "not run"));
  if (!wrk)
    console.log(args.useWrk ? "\nwrk is not installed, so its columns are empty: apt-get install wrk" : "\nwrk was not run (--no-wrk)");
  console.log(`\nrun directory: ${run.dir}`);
}

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    await stopAll();
    process.exit(1);
  },
);
