import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ENGINE_SETTINGS } from "../../cluster/engineConfig";
import { GatewayClient, type CallResult } from "./gateway";
import { alive, descendants } from "../../test/processTree";
import { postgresBinDir, startLocalCluster, type LocalCluster } from "./localCluster";

// The real thing: Debian's Postgres, nats-server and haproxy, three Engine
// 2.3.19 processes with the configs the cloud renders, the RivetKit app.
let cluster: LocalCluster;
let workDir: string;
let viaLb: GatewayClient;
let viaNode: GatewayClient[];
const pids: number[] = [];

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "local-cluster-"));
  cluster = await startLocalCluster({ workDir, settings: DEFAULT_ENGINE_SETTINGS });
  viaLb = new GatewayClient(cluster.gatewayUrl, 20_000);
  viaNode = cluster.nodeUrls.map((u) => new GatewayClient(u, 20_000));
  for (const m of [cluster.postgres, ...cluster.nats, ...cluster.engines, cluster.loadBalancer, cluster.app]) {
    pids.push(m.child.pid!, ...descendants(m.child.pid!));
  }
}, 180_000);

afterAll(async () => {
  await Promise.all([viaLb, ...(viaNode ?? [])].map((c) => c?.close()));
  await cluster?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const ok = (r: CallResult) => {
  if (!r.ok) throw new Error(r.error);
  return r;
};
const rowsOf = (r: CallResult) => (ok(r).reply.value as { rows: number }).rows;

describe("the local three-node Engine cluster", () => {
  const ids: string[] = [];
  const acked = new Map<string, number>();

  it("its Postgres refuses a client without the run's password, and no file a local user can read holds it", () => {
    const psql = join(postgresBinDir(), "psql");
    const r = spawnSync(psql, ["-h", "127.0.0.1", "-p", String(cluster.postgresPort), "-U", "postgres", "-d", "rivet", "-w", "-c", "select 1"], { encoding: "utf8", env: { ...process.env, PGPASSWORD: "" } });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/password/);
    const wrong = spawnSync(psql, ["-h", "127.0.0.1", "-p", String(cluster.postgresPort), "-U", "postgres", "-d", "rivet", "-c", "select 1"], { encoding: "utf8", env: { ...process.env, PGPASSWORD: "not-the-password" } });
    expect(wrong.stderr).toMatch(/password authentication failed/);
    const configs = readdirSync(workDir).filter((n) => /^engine-\d+\.json$/.test(n));
    expect(configs).toHaveLength(3);
    for (const f of configs) expect(statSync(join(workDir, f)).mode & 0o077, f).toBe(0);
    expect(readdirSync(workDir)).not.toContain("postgres.pw");
  });

  it("creates actors and makes durable writes through every node", async () => {
    for (let i = 0; i < 3; i++) {
      const first = ok(await viaNode[i].call({ kind: "key", actor: "store", key: `node-${i}` }, "write"));
      expect(first.reply.cold).toBe(true);
      ids.push(first.actorId);
      acked.set(first.actorId, 1);
    }
    // Each actor written through the two other nodes, then read back through all three.
    for (let i = 0; i < 3; i++) {
      for (const j of [(i + 1) % 3, (i + 2) % 3]) {
        ok(await viaNode[j].call({ kind: "id", actorId: ids[i] }, "write"));
        acked.set(ids[i], acked.get(ids[i])! + 1);
      }
      for (let j = 0; j < 3; j++) expect(rowsOf(await viaNode[j].call({ kind: "id", actorId: ids[i] }, "scan"))).toBe(3);
    }
  });

  it("answers, or counts a failure, through a SIGKILLed Engine, and loses no acknowledged write", async () => {
    // engine-1 started first: it is the likeliest holder of the leader lease.
    const killed = 0;
    let slowest = 0;
    const failures: string[] = [];
    let answered = 0;
    const writeRound = async () => {
      for (const id of ids) {
        const r = await viaLb.call({ kind: "id", actorId: id }, "write");
        slowest = Math.max(slowest, r.ms);
        if (r.ok) {
          answered++;
          acked.set(id, acked.get(id)! + 1);
        } else failures.push(r.error);
      }
    };
    await writeRound();
    await cluster.killEngine(killed);
    expect(alive(cluster.engines[killed].child.pid!)).toBe(false);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) await writeRound();
    // No call hung past its timeout: every one was answered or counted.
    expect(answered + failures.length).toBeGreaterThan(3 * 3);
    expect(answered).toBeGreaterThan(failures.length);
    for (const id of ids) {
      for (const j of [1, 2]) {
        const rows = rowsOf(await viaNode[j].call({ kind: "id", actorId: id }, "scan"));
        // A failed write may still have committed; an acknowledged one must be there.
        expect(rows).toBeGreaterThanOrEqual(acked.get(id)!);
        expect(rows).toBeLessThanOrEqual(acked.get(id)! + failures.length);
      }
    }
    console.log(`after SIGKILL of engine-${killed + 1}: ${answered} writes answered, ${failures.length} counted failures, slowest ${slowest.toFixed(0)} ms${failures.length ? ` (first: ${failures[0].slice(0, 120)})` : ""}`);
  }, 120_000);

  it("leaves no process behind when stopped", async () => {
    await cluster.stop();
    const left = pids.filter(alive);
    expect(left).toEqual([]);
  });
});
