/**
 * The smallest case of the Engine's wakes collapsing with many actors
 * asleep, each population on a fresh Engine and app: create N actors, put
 * them to sleep, then wake a few one at a time over one connection; once
 * with a small population, once with a large, in each of two ways of
 * sleeping: by RivetKit's own sleep timeout (`timeout`), or by an explicit
 * sleep call right after each create (`explicit`); or, to weigh the
 * benchmark's own share, as the benchmark does it (`harness`).
 *
 *   npm run repro:wake-collapse -- [large N (3600)] [small N (100)] [wakes (40)] [timeout|explicit|harness|both]
 *
 * The benchmark's own machinery is left out on purpose: no polling of the
 * Engine's actor API for sleep confirmation (one query of 32 ids checks the
 * state before the wakes), one connection for the wakes. So what remains is
 * the Engine and RivetKit alone.
 */
import { guardArguments } from "../../analysis/contract/cliError";
import { cpus } from "node:os";
import { forEachBounded } from "../host/bounded";
import { percentiles } from "../../analysis/stats/summary";
import { GatewayClient } from "../sides/rivet/gateway";
import { sleepAndConfirm } from "../sides/rivet/adapter";
import {
  engineLogKinds,
  failureKind,
  freshEngine,
  logMark,
  logSince,
  renderRepro,
  runRepro,
  versionLines,
  type LogKind,
} from "./engineRepro";
import { withHopTrace } from "./hopTrace";

/** RivetKit's sleep timeout for the repro's actors, and the wait after the last create before the wakes. */
const REPRO_SLEEP = { timeoutMs: 5_000, waitMs: 20_000, createConcurrency: 16, requestTimeoutMs: 30_000 } as const;

/**
 * How a population is put to sleep: by RivetKit's own timer, by a sleep call
 * right after each create, or as the benchmark does it (`harness`: after all
 * the creates, the sleep calls and the Engine API polling of the Rivet
 * adapter's sleepAndConfirm, its own code), to see whether that part matters.
 */
type SleepMode = "timeout" | "explicit" | "harness";
const MODES: readonly SleepMode[] = ["timeout", "explicit", "harness"];

interface Population {
  mode: SleepMode;
  actors: number;
  created: number;
  createFailures: number;
  createSeconds: number;
  /** Of 32 sampled before the wakes, how many the Engine reports asleep. */
  asleepSampled: { asleep: number; of: number };
  wakes: number;
  ok: number;
  cold: number;
  p50: number | null;
  p99: number | null;
  failures: Record<string, number>;
  log: LogKind[];
  /** Which hop holds the wakes' time (hopTrace.ts). */
  hops: string[];
}

async function population(mode: SleepMode, actors: number, wakes: number): Promise<Population> {
  // Explicit sleep keeps RivetKit's default timeout (30 s), so the sleep call, not the timer, puts the actor away.
  const rivet = await freshEngine(mode === "timeout" ? { actorSleepTimeoutMs: REPRO_SLEEP.timeoutMs } : {});
  const creator = new GatewayClient(rivet.gatewayUrl, REPRO_SLEEP.requestTimeoutMs, REPRO_SLEEP.createConcurrency);
  const waker = new GatewayClient(rivet.gatewayUrl, REPRO_SLEEP.requestTimeoutMs, 1);
  try {
    const ids: Array<string | undefined> = new Array(actors);
    let createFailures = 0;
    const t0 = Date.now();
    await forEachBounded(actors, REPRO_SLEEP.createConcurrency, async (i) => {
      const r = await creator.call({ kind: "key", actor: "plain", key: `repro-${i}` }, "ping");
      if (!r.ok) {
        createFailures++;
        return;
      }
      ids[i] = r.actorId;
      if (mode === "explicit") await creator.call({ kind: "id", actorId: r.actorId }, "sleep");
    });
    const createSeconds = (Date.now() - t0) / 1000;
    if (mode === "harness") {
      const slept = await sleepAndConfirm(
        creator,
        ids.filter((x): x is string => x !== undefined),
        60_000,
      );
      process.stderr.write(
        `${actors} actors: the benchmark's sleep and confirmation: ${slept.asleep.length} asleep, ${slept.failures.length} not\n`,
      );
    }
    process.stderr.write(
      `${actors} actors: created in ${createSeconds.toFixed(0)} s (${createFailures} failed); waiting ${REPRO_SLEEP.waitMs / 1000} s for them to sleep\n`,
    );
    await new Promise((r) => setTimeout(r, REPRO_SLEEP.waitMs));
    const made = ids.filter((x): x is string => x !== undefined);
    // Evenly spread over the population: the first, the last and between.
    const pick = (k: number) =>
      Array.from({ length: Math.min(k, made.length) }, (_, j) => made[Math.floor((j * made.length) / Math.min(k, made.length))]);
    const sample = pick(32);
    const records = await creator.actors(sample);
    const asleep = records.filter((a) => a.sleep_ts !== null && a.destroy_ts === null).length;
    const mark = logMark(rivet.engineLog);
    const ms: number[] = [];
    const failures: Record<string, number> = {};
    let cold = 0;
    const { hops } = await withHopTrace(rivet.gatewayUrl, async () => {
      for (const id of pick(wakes)) {
        const r = await waker.call({ kind: "id", actorId: id }, "ping");
        if (r.ok) {
          ms.push(r.ms);
          if (r.reply.cold) cold++;
        } else {
          const kind = failureKind(r.error);
          failures[kind] = (failures[kind] ?? 0) + 1;
        }
      }
    });
    const p = ms.length ? percentiles(ms) : null;
    return {
      mode,
      actors,
      created: made.length,
      createFailures,
      createSeconds,
      asleepSampled: { asleep, of: sample.length },
      wakes: Math.min(wakes, made.length),
      ok: ms.length,
      cold,
      p50: p?.p50 ?? null,
      p99: p?.p99 ?? null,
      failures,
      log: engineLogKinds(logSince(rivet.engineLog, mark)),
      hops,
    };
  } finally {
    await creator.close(true);
    await waker.close(true);
    await rivet.done();
  }
}

/** Reproduced when the large population's wakes fail, or their median is ten times the small one's. */
export function collapseVerdict(
  small: Pick<Population, "ok" | "wakes" | "p50">,
  large: Pick<Population, "ok" | "wakes" | "p50" | "actors">,
): { reproduced: boolean; text: string } {
  const failed = large.wakes - large.ok;
  if (failed > 0)
    return {
      reproduced: true,
      text: `REPRODUCED: with ${large.actors} actors asleep, ${failed} of ${large.wakes} wakes failed (none may)`,
    };
  if (small.p50 !== null && large.p50 !== null && large.p50 > 10 * small.p50) {
    return {
      reproduced: true,
      text: `REPRODUCED: with ${large.actors} actors asleep the median wake took ${large.p50.toFixed(0)} ms, ${(large.p50 / small.p50).toFixed(0)} times the small population's`,
    };
  }
  return {
    reproduced: false,
    text: `not reproduced here: every wake answered, the median ${large.p50?.toFixed(0) ?? "-"} ms against ${small.p50?.toFixed(0) ?? "-"} ms with few actors`,
  };
}

const line = (p: Population) =>
  `${p.mode} sleep, ${p.actors} actors (${p.created} created in ${p.createSeconds.toFixed(0)} s, ${p.createFailures} failed; ${p.asleepSampled.asleep} of ${p.asleepSampled.of} sampled reported asleep): ` +
  `${p.ok} of ${p.wakes} wakes answered (${p.cold} from a fresh instance), p50 ${p.p50?.toFixed(1) ?? "-"} ms, p99 ${p.p99?.toFixed(1) ?? "-"} ms` +
  `${
    Object.keys(p.failures).length
      ? `; failures: ${Object.entries(p.failures)
          .map(([k, n]) => `${n} ${k}`)
          .join(", ")}`
      : ""
  }`;

async function main(argv: string[]): Promise<void> {
  const [large, small, wakes] = [Number(argv[0] ?? 3600), Number(argv[1] ?? 100), Number(argv[2] ?? 40)];
  const modeArg = argv[3] ?? "both";
  if (![large, small, wakes].every((n) => Number.isInteger(n) && n > 0) || small >= large || !["both", ...MODES].includes(modeArg)) {
    throw new Error(
      `usage: npm run repro:wake-collapse -- [large N] [small N, below large] [wakes] [${MODES.join("|")}|both (timeout and explicit)], whole numbers`,
    );
  }
  const modes: SleepMode[] = modeArg === "both" ? ["timeout", "explicit"] : [modeArg as SleepMode];
  const pairs: Array<{ mode: SleepMode; a: Population; b: Population }> = [];
  for (const mode of modes) pairs.push({ mode, a: await population(mode, small, wakes), b: await population(mode, large, wakes) });
  const probe = await freshEngine();
  const versions = versionLines(probe, cpus().length);
  await probe.done();
  const verdicts = pairs.map((p) => `${p.mode} sleep: ${collapseVerdict(p.a, p.b).text}`);
  console.log(
    renderRepro({
      title: "Rivet Engine: wakes with many actors asleep",
      versions,
      commands: [
        `rivet-engine start --config engine.json (one Engine, file-system storage, in a temp dir; workflow load shedding off, as the benchmark runs it)`,
        `node app.js (RivetKit registry with the actor \`plain\`; sleepTimeout ${REPRO_SLEEP.timeoutMs} ms for timeout sleep, RivetKit's default 30 s for explicit sleep)`,
        `${small} (then ${large}, each on a fresh Engine) x POST /gateway/plain/action/ping?rvt-method=getOrCreate&rvt-key=repro-<i>, ${REPRO_SLEEP.createConcurrency} at a time`,
        `explicit sleep only: right after each create, POST /gateway/<actor id>/action/sleep (the action calls c.sleep())`,
        `harness sleep only: after all the creates, the benchmark's own sleepAndConfirm: GET /actors for the awake ones, sleep calls 8 at a time, then GET /actors?actor_ids=<32 ids> 8 at once every 200 ms until all are reported asleep (60 s at most)`,
        `wait ${REPRO_SLEEP.waitMs / 1000} s (no call; with timeout sleep, every actor sleeps by its own ${REPRO_SLEEP.timeoutMs / 1000} s timeout)`,
        `GET /actors?actor_ids=<32 spread over the population> (once: are they asleep?)`,
        `${wakes} x POST /gateway/<actor id>/action/ping, one at a time, over one keep-alive connection, ${REPRO_SLEEP.requestTimeoutMs / 1000} s timeout each`,
      ],
      expected:
        "a wake costs about the same whether 100 or thousands of other actors are asleep, and every wake answers (from a fresh instance)",
      seen: pairs.flatMap((p) => [line(p.a), ...p.a.hops, line(p.b), ...p.b.hops]),
      harness: [
        modes.includes("harness")
          ? "harness sleep uses the benchmark's own sleep and confirmation code, to weigh its share; the other modes poll nothing (the Engine's actor API is asked once, for 32 ids)"
          : "no sleep-confirmation polling: the Engine's actor API is asked once, for 32 ids; with timeout sleep, no sleep call either",
        "one connection and one wake at a time: no client concurrency, no pool",
        "each population on its own fresh Engine, so the small one is the control",
      ],
      log: pairs.at(-1)!.b.log,
      verdict: verdicts.join("; "),
    }),
  );
}

if (require.main === module) {
  guardArguments(process.argv.slice(2), {
    command: "repro:wake-collapse",
    usage: `usage: npm run repro:wake-collapse -- [large N] [small N, below large] [wakes] [${MODES.join("|")}|both (timeout and explicit)], whole numbers`,
    flags: [],
  });
  runRepro(() => main(process.argv.slice(2)));
}
