/**
 * The smallest case of the Engine going silent for a running actor after
 * the Engine itself was paused: one actor, called until warm, the Engine
 * stopped with SIGSTOP for a while and continued, then the same actor
 * called once a second, each call on a new connection, until it answers or
 * the watch ends.
 *
 *   npm run repro:pause-stall -- [pause s (20)] [watch s (120)]
 */
import { guardArguments } from "../../analysis/contract/cliError";
import { cpus } from "node:os";
import { GatewayClient } from "../sides/rivet/gateway";
import { engineLogKinds, failureKind, freshEngine, logMark, logSince, renderRepro, runRepro, versionLines } from "./engineRepro";
import { withHopTrace } from "./hopTrace";

/** One call after the Engine was continued: when, and what came back. */
interface Probe {
  /** Seconds after SIGCONT the call was sent. */
  at: number;
  ok: boolean;
  cold?: boolean;
  ms: number;
  error?: string;
}

/** The first probe that answered, the failures before it, and the longest silence after the continue. */
export function stallSummary(probes: readonly Probe[], watchS: number): { firstOk: Probe | null; failedBefore: number; silentS: number } {
  const firstOk = probes.find((p) => p.ok) ?? null;
  const failedBefore = firstOk ? probes.indexOf(firstOk) : probes.length;
  return { firstOk, failedBefore, silentS: firstOk ? firstOk.at : watchS };
}

/** Reproduced when the actor answered nothing for longer than the Engine's own runner ping timeout allows for recovery (a minute), or never. */
export function stallVerdict(s: ReturnType<typeof stallSummary>, watchS: number): { reproduced: boolean; text: string } {
  if (!s.firstOk)
    return {
      reproduced: true,
      text: `REPRODUCED: the actor answered nothing in the ${watchS} s after the Engine was continued (${s.failedBefore} calls failed)`,
    };
  if (s.silentS > 60)
    return {
      reproduced: true,
      text: `REPRODUCED: the actor first answered ${s.silentS.toFixed(0)} s after the Engine was continued (${s.failedBefore} calls failed first)`,
    };
  return {
    reproduced: false,
    text: `not reproduced here: the actor answered ${s.silentS.toFixed(1)} s after the Engine was continued${s.firstOk.cold ? ", from a fresh instance" : ", the same instance"} (${s.failedBefore} calls failed first)`,
  };
}

async function main(argv: string[]): Promise<void> {
  const [pauseS, watchS] = [Number(argv[0] ?? 20), Number(argv[1] ?? 120)];
  if (![pauseS, watchS].every((n) => Number.isInteger(n) && n > 0))
    throw new Error("usage: npm run repro:pause-stall -- [pause seconds] [watch seconds], whole numbers");
  const rivet = await freshEngine();
  const versions = versionLines(rivet, cpus().length);
  const probes: Probe[] = [];
  let log: ReturnType<typeof engineLogKinds> = [];
  let actorId = "";
  let hops: string[] = [];
  try {
    const client = new GatewayClient(rivet.gatewayUrl, 5_000, 1);
    const first = await client.call({ kind: "key", actor: "plain", key: "repro-warm" }, "ping");
    if (!first.ok) throw new Error(`the actor could not be created: ${first.error}`);
    actorId = first.actorId;
    for (let i = 0; i < 5; i++) await client.call({ kind: "id", actorId }, "ping");
    await client.close(true);
    const mark = logMark(rivet.engineLog);
    const pid = rivet.engine.child.pid!;
    process.kill(pid, "SIGSTOP");
    process.stderr.write(`Engine (pid ${pid}) stopped for ${pauseS} s\n`);
    await new Promise((r) => setTimeout(r, pauseS * 1000));
    process.kill(pid, "SIGCONT");
    const t0 = Date.now();
    process.stderr.write(`Engine continued; calling the actor once a second for up to ${watchS} s\n`);
    ({ hops } = await withHopTrace(rivet.gatewayUrl, async () => {
      while ((Date.now() - t0) / 1000 < watchS) {
        const at = (Date.now() - t0) / 1000;
        // A new client (a new connection) for every call: no stale pooled socket can be the cause.
        const c = new GatewayClient(rivet.gatewayUrl, 5_000, 1);
        const r = await c.call({ kind: "id", actorId }, "ping");
        await c.close(true);
        probes.push(r.ok ? { at, ok: true, cold: r.reply.cold, ms: r.ms } : { at, ok: false, ms: r.ms, error: r.error.slice(0, 200) });
        if (r.ok) break;
        await new Promise((res) => setTimeout(res, Math.max(0, 1000 - r.ms)));
      }
    }));
    log = engineLogKinds(logSince(rivet.engineLog, mark));
  } finally {
    await rivet.done();
  }
  const s = stallSummary(probes, watchS);
  const kinds = new Map<string, number>();
  for (const p of probes) {
    if (p.ok) continue;
    const kind = failureKind(p.error ?? "");
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  console.log(
    renderRepro({
      title: "Rivet Engine: a running actor after the Engine was paused",
      versions,
      commands: [
        "rivet-engine start --config engine.json (one Engine, file-system storage, in a temp dir), node app.js (RivetKit registry, actor `plain`)",
        "POST /gateway/plain/action/ping?rvt-method=getOrCreate&rvt-key=repro-warm, then 5 x POST /gateway/<actor id>/action/ping (warm)",
        `kill -STOP <engine pid>; sleep ${pauseS}; kill -CONT <engine pid>`,
        `every second, up to ${watchS} s: POST /gateway/<actor id>/action/ping on a new connection, 5 s timeout, until one answers`,
      ],
      expected:
        "after the continue, the actor answers again: at once if its runner's connection survived, or, if the Engine declared the runner lost, after the actor is rescheduled (a wake from a fresh instance) within seconds",
      seen: [
        `actor ${actorId}; ${probes.length} calls after the continue, ${s.failedBefore} failed before the first answer${s.firstOk ? ` (at ${s.firstOk.at.toFixed(1)} s, ${s.firstOk.ms.toFixed(0)} ms, ${s.firstOk.cold ? "a fresh instance" : "the same instance"})` : " (none answered)"}`,
        ...(kinds.size ? [`failures: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(", ")}`] : []),
        ...probes
          .filter((p) => !p.ok)
          .slice(0, 3)
          .map((p) => `at ${p.at.toFixed(1)} s: ${p.error}`),
        ...hops,
      ],
      harness: [
        "one actor and one call at a time: no load from the benchmark",
        "a new connection for every call after the continue: no pooled socket from before the pause",
        "the app (the runner) was never paused: only the Engine was",
      ],
      log,
      verdict: stallVerdict(s, watchS).text,
    }),
  );
}

if (require.main === module) {
  guardArguments(process.argv.slice(2), {
    command: "repro:pause-stall",
    usage: "usage: npm run repro:pause-stall -- [pause seconds] [watch seconds]   (whole numbers; default 20 and 120)",
    flags: [],
  });
  runRepro(() => main(process.argv.slice(2)));
}
