/**
 * Starts the local twin of the cloud's Engine cluster N times from nothing
 * (a new Postgres each time), its three Engines at once as the VMs boot, and
 * says for each try whether the cluster came up and served an actor through
 * its load balancer, how many failed starts each Engine had first, and how
 * long it took.
 *
 *   npm run check:cluster-start -- [times (10)]
 */
import { guardArguments } from "../../analysis/contract/cliError";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ENGINE_SETTINGS } from "../../cluster/engineConfig";
import { GatewayClient } from "../sides/rivet/gateway";
import { startLocalCluster } from "../sides/rivet/localCluster";

export interface StartTry {
  ok: boolean;
  seconds: number;
  /** Failed starts of each Engine before it came up. */
  restarts: number[];
  error?: string;
}

/** The check's summary line: how many tries came up, and the races the restart policy absorbed. */
export function summarize(tries: readonly StartTry[]): { passed: boolean; line: string } {
  const up = tries.filter((t) => t.ok).length;
  const raced = tries.filter((t) => t.restarts.some((r) => r > 0)).length;
  const slowest = Math.max(0, ...tries.map((t) => t.seconds));
  return {
    passed: up === tries.length && tries.length > 0,
    line: `${up} of ${tries.length} started together came up and served; ${raced} had an Engine restarted by its unit's policy first; slowest ${slowest.toFixed(1)} s`,
  };
}

/** One try: a fresh cluster, one actor through the load balancer, then everything stopped. */
export async function startOnce(): Promise<StartTry> {
  const workDir = mkdtempSync(join(tmpdir(), "cluster-start-"));
  const t0 = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - t0) / 1e9;
  try {
    const cluster = await startLocalCluster({ workDir, settings: DEFAULT_ENGINE_SETTINGS, startTimeoutMs: 90_000 });
    const client = new GatewayClient(cluster.gatewayUrl, 20_000);
    try {
      const r = await client.call({ kind: "key", actor: "plain", key: `start-${Date.now()}` }, "ping");
      return { ok: r.ok, seconds: seconds(), restarts: cluster.engineRestarts, ...(r.ok ? {} : { error: r.error }) };
    } finally {
      await client.close();
      await cluster.stop();
    }
  } catch (err) {
    return { ok: false, seconds: seconds(), restarts: [], error: err instanceof Error ? err.message.split("\n")[0] : String(err) };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<number> {
  const times = Number(argv[0] ?? 10);
  if (!Number.isInteger(times) || times < 1 || times > 100) {
    process.stderr.write("usage: npm run check:cluster-start -- [times], a whole number from 1 to 100\n");
    return 2;
  }
  const tries: StartTry[] = [];
  for (let i = 1; i <= times; i++) {
    const t = await startOnce();
    tries.push(t);
    process.stdout.write(
      `try ${i}: ${t.ok ? "up" : "FAILED"} in ${t.seconds.toFixed(1)} s, Engine restarts ${JSON.stringify(t.restarts)}${t.error ? `: ${t.error}` : ""}\n`,
    );
  }
  const s = summarize(tries);
  process.stdout.write(`${s.line}\n`);
  return s.passed ? 0 : 1;
}

if (require.main === module) {
  guardArguments(process.argv.slice(2), {
    command: "check:cluster-start",
    usage: "usage: npm run check:cluster-start -- [times]   (a whole number from 1 to 100; default 10)",
    flags: [],
  });
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
