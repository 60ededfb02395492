import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { headerOf, Http1Client } from "./http1/client";
import { freePort } from "../host/ports";
import { DEADLINE_CHECK_MS, timedRequest } from "./timedRequest";

// A real HTTP server on loopback: /ok answers, /slow answers after 400 ms, /never never answers.
let server: Server;
let origin: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/never") return;
      const send = () => {
        res.writeHead(req.url === "/ok" ? 200 : 503, { "content-type": "application/json", "x-rivet-actor": "a-1" });
        res.end(JSON.stringify({ path: req.url, method: req.method }));
      };
      if (req.url === "/slow") setTimeout(send, 400);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("timedRequest", () => {
  it("times a reply and keeps its status, body and headers", async () => {
    const client = new Http1Client(origin, 8);
    const r = await timedRequest(client, { method: "POST", path: "/ok", body: "{}" }, 5_000);
    await client.close();
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ path: "/ok", method: "POST" });
    expect(headerOf(r.head, "x-rivet-actor")).toBe("a-1");
    expect(headerOf(r.head, "x-absent")).toBeUndefined();
    expect(r.ms).toBeGreaterThan(0);
    expect(r.ms).toBeLessThan(5_000);
  });

  it("gives up at its deadline, names the limit, and reports when it gave up", async () => {
    const client = new Http1Client(origin, 8);
    const r = await timedRequest(client, { method: "GET", path: "/never" }, 200);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatch(/^timeout after 200 ms: no complete reply within 200 ms/);
    expect(r.ms).toBeGreaterThanOrEqual(200);
    expect(r.ms).toBeLessThan(200 + DEADLINE_CHECK_MS + 200);
    // The client is usable after an aborted request.
    const next = await timedRequest(client, { method: "GET", path: "/ok" }, 5_000);
    expect(next.ok).toBe(true);
    await client.close();
  });

  it("a reply slower than one deadline check still completes within its own limit", async () => {
    const client = new Http1Client(origin, 8);
    const [slow, limited] = await Promise.all([
      timedRequest(client, { method: "GET", path: "/slow" }, 5_000),
      timedRequest(client, { method: "GET", path: "/never" }, 100),
    ]);
    await client.close();
    expect(slow.ok && slow.status).toBe(503);
    expect(slow.ms).toBeGreaterThanOrEqual(400);
    expect(limited.ok).toBe(false);
  });

  it("times from the send, so a request waiting for a connection is not charged for the wait", async () => {
    // One connection: the second request is written only after the first's 400 ms reply.
    const client = new Http1Client(origin, 1);
    const t0 = process.hrtime.bigint();
    const [first, queued] = await Promise.all([
      timedRequest(client, { method: "GET", path: "/slow" }, 5_000),
      timedRequest(client, { method: "GET", path: "/slow" }, 5_000),
    ]);
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    await client.close();
    expect(first.ms).toBeGreaterThanOrEqual(400);
    expect(wallMs).toBeGreaterThanOrEqual(800);
    // Handed over with the first, sent about 400 ms later: its own round trip only.
    expect(queued.ms).toBeGreaterThanOrEqual(400);
    expect(queued.ms).toBeLessThan(wallMs - 300);
  });

  it("a refused connection is a result, not a throw", async () => {
    const client = new Http1Client(`http://127.0.0.1:${await freePort()}`, 1);
    const r = await timedRequest(client, { method: "GET", path: "/" }, 2_000);
    await client.close();
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/ECONNREFUSED/);
  });
});
