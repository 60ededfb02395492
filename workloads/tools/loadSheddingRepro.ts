/**
 * A minimal reproduction of the Engine's load shedding on one shared machine:
 * the same burst of new actors, once with the Engine's default workflow load
 * shedding and once with it off, each against a fresh Engine and app.
 *
 *   npm run repro:load-shedding -- [creates] [concurrency ...]
 *
 * Prints creates per second, p50/p99 and the failures by kind for each.
 */
import { guardArguments } from "../../analysis/contract/cliError";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "../../cluster/engineConfig";
import { forEachBounded } from "../host/bounded";
import { percentiles } from "../../analysis/stats/summary";
import { GatewayClient } from "../sides/rivet/gateway";
import { startLocalRivet } from "../sides/rivet/localRivet";
import { withHopTrace } from "./hopTrace";

interface BurstFigures {
  loadShedding: boolean;
  concurrency: number;
  creates: number;
  perSecond: number;
  p50: number;
  p99: number;
  failures: Record<string, number>;
  /** Which hop holds the time (hopTrace.ts). */
  hops: string[];
}

async function burst(settings: EngineSettings, creates: number, concurrency: number): Promise<BurstFigures> {
  const dir = mkdtempSync(join(tmpdir(), "actor-bench-shedding-"));
  const rivet = await startLocalRivet({ workDir: dir, settings });
  const client = new GatewayClient(rivet.gatewayUrl, 30_000);
  const ms: number[] = [];
  const failures: Record<string, number> = {};
  const t0 = process.hrtime.bigint();
  let hops: string[] = [];
  try {
    ({ hops } = await withHopTrace(rivet.gatewayUrl, () =>
      forEachBounded(creates, concurrency, async (i) => {
        const r = await client.call({ kind: "key", actor: "plain", key: `repro-${i}` }, "ping");
        if (r.ok) ms.push(r.ms);
        else {
          const kind = /"code":"(\w+)"/.exec(r.error)?.[1] ?? r.error.split(":")[0];
          failures[kind] = (failures[kind] ?? 0) + 1;
        }
      }),
    ));
  } finally {
    await client.close();
    await rivet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const p = percentiles(ms);
  return {
    loadShedding: settings.loadShedding,
    concurrency,
    creates,
    perSecond: (ms.length * 1000) / wallMs,
    p50: p.p50,
    p99: p.p99,
    failures,
    hops,
  };
}

function reproTable(rows: readonly BurstFigures[]): string {
  const head = "load shedding  concurrency  creates  ok/s    p50 ms    p99 ms    failures";
  return [
    head,
    ...rows.map((r) =>
      [
        (r.loadShedding ? "default" : "off").padEnd(13),
        String(r.concurrency).padEnd(11),
        String(r.creates).padEnd(7),
        r.perSecond.toFixed(1).padEnd(6),
        r.p50.toFixed(0).padEnd(8),
        r.p99.toFixed(0).padEnd(8),
        Object.entries(r.failures)
          .map(([k, n]) => `${n} ${k}`)
          .join(", ") || "none",
      ].join("  "),
    ),
  ].join("\n");
}

async function main(argv: string[]): Promise<void> {
  const creates = Number(argv[0] ?? 256);
  const levels = argv.length > 1 ? argv.slice(1).map(Number) : [1, 32, 128];
  const rows: BurstFigures[] = [];
  for (const c of levels) {
    for (const loadShedding of [true, false]) {
      rows.push(await burst({ ...DEFAULT_ENGINE_SETTINGS, loadShedding }, creates, c));
      process.stderr.write(`done: c${c}, load shedding ${loadShedding ? "default" : "off"}\n`);
    }
  }
  console.log(reproTable(rows));
  for (const r of rows)
    console.log(`\nload shedding ${r.loadShedding ? "default" : "off"}, concurrency ${r.concurrency}:\n  ${r.hops.join("\n  ")}`);
}

if (require.main === module) {
  guardArguments(process.argv.slice(2), {
    command: "repro:load-shedding",
    usage: "usage: npm run repro:load-shedding -- [creates N] [concurrency ...]   (whole numbers; default 256 creates at 1, 32 and 128)",
    flags: [],
  });
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
