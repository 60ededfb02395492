import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { connect } from "node:net";
import { request } from "undici";
import { RunDir } from "../../experiment/runDir";
import { createProgress } from "../../experiment/progress";
import { measureRuntimes } from "../../run/run";
import { suiteTasks } from "../../experiment/passPlan";
import { parseRunArgs } from "../../run/runConfig";
import { TINY_SAMPLES } from "../../../test/fixtures";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ENGINE_SETTINGS } from "../../../cluster/engineConfig";
import { GatewayClient, type CallResult } from "./gateway";
import { alive, descendants } from "../../../test/processTree";
import { startLocalCluster, type LocalCluster } from "./localCluster";
import { postgresBinDir } from "./localPostgres";

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

/** One NATS client handshake over a raw socket: what the server answers a CONNECT (verbose) with, or its first error. */
function natsConnect(host: string, port: number, auth: { user?: string; pass?: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host, port });
    let buf = "";
    let sent = false;
    const timer = setTimeout(() => (sock.destroy(), reject(new Error(`no answer from ${host}:${port}`))), 5_000);
    sock.on("data", (d) => {
      buf += d.toString();
      if (!sent && buf.includes("\r\n")) {
        sent = true;
        buf = buf.slice(buf.indexOf("\r\n") + 2);
        sock.write(`CONNECT ${JSON.stringify({ verbose: true, pedantic: false, ...auth })}\r\nPING\r\n`);
      }
      const line = sent ? buf.split("\r\n").find((l) => l.startsWith("+OK") || l.startsWith("-ERR")) : undefined;
      if (line) {
        clearTimeout(timer);
        sock.destroy();
        resolve(line);
      }
    });
    sock.on("error", (err) => (clearTimeout(timer), reject(err)));
  });
}

describe("the local three-node Engine cluster", () => {
  const ids: string[] = [];
  const acked = new Map<string, number>();

  it("authenticates: each Engine's API refuses a call without the admin token, and takes it with", async () => {
    for (const url of cluster.nodeUrls) {
      const path = `/actors?namespace=default&actor_ids=${ids[0] ?? "x"}`;
      const bare = await request(`${url}${path}`);
      expect(bare.statusCode, url).toBe(403);
      expect(await bare.body.text()).toMatch(/Token not provided/);
      const wrong = await request(`${url}${path}`, { headers: { authorization: "Bearer not-the-token" } });
      expect(wrong.statusCode, url).toBe(403);
      await wrong.body.text();
      const right = await request(`${url}${path}`, { headers: { authorization: `Bearer ${cluster.adminToken}` } });
      expect(right.statusCode, url).not.toBe(403);
      await right.body.text();
    }
  });

  it("authenticates: each NATS member refuses a client without its password, and a route without the route password", async () => {
    for (const node of cluster.plan.nodes) {
      expect(await natsConnect(node.host, node.natsClientPort, {}), node.name).toMatch(/^-ERR 'Authorization Violation'/);
      expect(await natsConnect(node.host, node.natsClientPort, { user: cluster.natsCredentials.user, pass: "wrong" }), node.name).toMatch(
        /^-ERR 'Authorization Violation'/,
      );
      expect(
        await natsConnect(node.host, node.natsClientPort, { user: cluster.natsCredentials.user, pass: cluster.natsCredentials.password }),
        node.name,
      ).toMatch(/^\+OK/);
      expect(await natsConnect(node.host, node.natsClusterPort, {}), `${node.name} route`).toMatch(/^-ERR 'Authorization Violation'/);
    }
  });

  it("the stage plan still runs on it: a wake group, whose sleep confirmation needs the admin token", async () => {
    const run = new RunDir(mkdtempSync(join(tmpdir(), "ab-cluster-run-")), "local", "test", {});
    const failures: string[] = [];
    const cfg = parseRunArgs([
      "--preset",
      "quick",
      "--samples",
      TINY_SAMPLES,
      "--wake-idle-ms",
      "500",
      "--side",
      "rivet",
      "--groups",
      "wake",
      "--loopback",
      "host",
    ]);
    await measureRuntimes(
      cfg,
      run,
      createProgress(process.stdout, true),
      failures,
      {
        rivet: {
          gatewayUrl: cluster.gatewayUrl,
          adminToken: cluster.adminToken,
          engineVersion: cluster.engineVersion,
          engineConfig: cluster.engineConfig,
          startedBy: "e2e test",
        },
      },
      suiteTasks(["rivet"], cfg.groups),
    );
    expect(failures).toEqual([]);
    expect(run.manifest.stages["rivet.wake.ping"]).toMatchObject({ attempts: 2, errors: 0 });
    expect(JSON.stringify(run.manifest)).not.toContain(cluster.adminToken!);
    expect(JSON.stringify(run.manifest)).not.toContain(cluster.natsCredentials.password);
  }, 120_000);

  it("its load balancer refuses a backend's connection to its own frontend, as Azure's does, and still serves everyone else", async () => {
    const { hostname, port } = new URL(cluster.gatewayUrl);
    /** A GET /health to the load balancer from `localAddress`: the status line, or how the connection ended. */
    const health = (localAddress: string) =>
      new Promise<string>((resolve) => {
        const sock = connect({ host: hostname, port: Number(port), localAddress });
        let got = "";
        sock.on("connect", () => sock.write(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`));
        sock.on("data", (d) => (got += d.toString()));
        sock.on("error", (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}`));
        sock.on("close", () => resolve(got.split("\r\n")[0] || "closed with no reply"));
      });
    for (const engine of cluster.plan.nodes)
      expect(await health(engine.host), engine.name).toMatch(/^(closed with no reply|error ECONNRESET)$/);
    expect(await health("127.0.0.1")).toBe("HTTP/1.1 200 OK");
    // The Engines' own configs never name it: each gives its own address for its datacenter.
    for (const n of (cluster.engineConfig as { nodes: Array<{ topology: unknown }> }).nodes)
      expect(JSON.stringify(n.topology)).not.toContain(hostname);
    ok(await viaLb.call({ kind: "key", actor: "plain", key: `after-refusals-${Date.now()}` }, "ping"));
  });

  it("its Postgres refuses a client without the run's password, and no file a local user can read holds it", () => {
    const psql = join(postgresBinDir(), "psql");
    const r = spawnSync(
      psql,
      ["-h", "127.0.0.1", "-p", String(cluster.postgresPort), "-U", "postgres", "-d", "rivet", "-w", "-c", "select 1"],
      { encoding: "utf8", env: { ...process.env, PGPASSWORD: "" } },
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/password/);
    const wrong = spawnSync(
      psql,
      ["-h", "127.0.0.1", "-p", String(cluster.postgresPort), "-U", "postgres", "-d", "rivet", "-c", "select 1"],
      { encoding: "utf8", env: { ...process.env, PGPASSWORD: "not-the-password" } },
    );
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
    console.log(
      `after SIGKILL of engine-${killed + 1}: ${answered} writes answered, ${failures.length} counted failures, slowest ${slowest.toFixed(0)} ms${failures.length ? ` (first: ${failures[0].slice(0, 120)})` : ""}`,
    );
  }, 120_000);

  it("leaves no process behind when stopped", async () => {
    await cluster.stop();
    const left = pids.filter(alive);
    expect(left).toEqual([]);
  });
});
