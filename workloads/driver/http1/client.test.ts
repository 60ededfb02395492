import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../host/ports";
import { CONNECT_TIMEOUT_MS, headerOf, Http1Client, type Http1Error, requestText, type Http1Request } from "./client";
import { timedRequest } from "../timedRequest";
import { GatewayClient } from "../../sides/rivet/gateway";
import { WorkerClient } from "../../sides/cloudflare/workerClient";

interface Got {
  ok: boolean;
  status?: number;
  body?: string;
  head?: string;
  error?: Error;
  sent: boolean;
}

/** One request through the client, its outcome as the handler heard it. */
function send(c: Http1Client, r: Http1Request): Promise<Got> {
  return new Promise((resolve) => {
    let sent = false;
    c.dispatch(r, {
      onSend: () => {
        sent = true;
      },
      onReply: (status, head, body) => resolve({ ok: true, status, head, body: body.toString(), sent }),
      onError: (error) => resolve({ ok: false, error, sent }),
    });
  });
}

/** A real Node server on loopback that counts the connections it accepted. */
async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void, keepAliveMs = 60_000) {
  const sockets: Socket[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => handler(req, res, body));
  });
  server.keepAliveTimeout = keepAliveMs;
  server.on("connection", (s: Socket) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, sockets, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

describe("requestText", () => {
  const H = { "content-type": "application/json", "x-rivet-encoding": "json" };
  it("writes the request line, host, headers, and the body's length in bytes", () => {
    expect(requestText({ method: "POST", path: "/gateway/a%20b/action/ping", headers: H, body: '{"args":["é"]}' }, "127.0.0.1:6420")).toBe(
      'POST /gateway/a%20b/action/ping HTTP/1.1\r\nhost: 127.0.0.1:6420\r\ncontent-type: application/json\r\nx-rivet-encoding: json\r\ncontent-length: 15\r\n\r\n{"args":["é"]}',
    );
  });
  it("a POST without a body says its length is 0; a GET says nothing", () => {
    expect(requestText({ method: "POST", path: "/do/ping?unique=1" }, "h")).toBe(
      "POST /do/ping?unique=1 HTTP/1.1\r\nhost: h\r\ncontent-length: 0\r\n\r\n",
    );
    expect(requestText({ method: "GET", path: "/noop" }, "h")).toBe("GET /noop HTTP/1.1\r\nhost: h\r\n\r\n");
  });
  it("refuses a path or header that would split the request", () => {
    expect(() => requestText({ method: "GET", path: "/a b" }, "h")).toThrow(/request path "\/a b" is not an encoded origin-form path/);
    expect(() => requestText({ method: "GET", path: "/a\r\nx: y" }, "h")).toThrow(/not an encoded origin-form path/);
    expect(() => requestText({ method: "GET", path: "/", headers: { authorization: "Bearer x\r\nevil: 1" } }, "h")).toThrow(
      /header "authorization" has a character HTTP does not allow/,
    );
  });
});

describe("Http1Client against a real Node http server", () => {
  let s: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    s = await listen((req, res, body) => {
      const path = req.url?.split("?")[0];
      if (path === "/chunked") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("first,");
        setTimeout(() => res.end("second"), 20);
      } else if (path === "/close") {
        res.writeHead(200, { connection: "close", "content-length": "2" });
        res.end("ok");
      } else if (path === "/cut") {
        res.writeHead(200, { "content-length": "100" });
        res.write("only part");
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (path === "/slow") {
        setTimeout(() => res.end("slow"), 200);
      } else {
        res.writeHead(200, { "content-type": "application/json", "x-rivet-actor": "act-1" });
        res.end(
          JSON.stringify({ method: req.method, url: req.url, body, host: req.headers.host, len: req.headers["content-length"] ?? null }),
        );
      }
    });
    servers.push(s.server);
  });

  it("sends the request as written and reads the reply; requests in a row share one connection", async () => {
    const c = new Http1Client(s.origin, 4);
    const before = s.sockets.length;
    for (let i = 0; i < 20; i++) {
      const r = await send(c, { method: "POST", path: `/x?i=${i}`, headers: { "content-type": "application/json" }, body: '{"args":[]}' });
      expect(r.ok && r.sent).toBe(true);
      expect(JSON.parse(r.body!)).toEqual({ method: "POST", url: `/x?i=${i}`, body: '{"args":[]}', host: s.origin.slice(7), len: "11" });
      expect(headerOf(r.head!, "x-rivet-actor")).toBe("act-1");
    }
    expect(s.sockets.length - before).toBe(1);
    await c.close();
  });

  it("never opens more than its connections; the rest wait their turn and all complete", async () => {
    const c = new Http1Client(s.origin, 2);
    const before = s.sockets.length;
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => send(c, { method: "GET", path: `/slow?i=${i}` })));
    expect(all.every((r) => r.ok && r.body === "slow")).toBe(true);
    expect(s.sockets.length - before).toBe(2);
    await c.close();
  });

  it("replies that arrive in pieces on several connections at once each keep their own bytes (reads share one buffer)", async () => {
    // A raw server: each reply's head and body are cut mid-field and sent 10 ms apart, so
    // the other connections' reads land in the client's read buffer between the pieces.
    const server = createNetServer((sock) => {
      sock.once("data", (d: Buffer) => {
        const letter = /i=(\d)/.exec(d.toString())![1];
        const body = `body-${letter.repeat(20)}`;
        const reply = `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nX-Rivet-Actor: a${letter}\r\n\r\n${body}`;
        const cuts = [20, 50, reply.length - 7, reply.length];
        cuts.forEach((at, k) => setTimeout(() => sock.write(reply.slice(k ? cuts[k - 1] : 0, at)), 10 * k));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const c = new Http1Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 8);
    const all = await Promise.all(Array.from({ length: 8 }, (_, i) => send(c, { method: "GET", path: `/?i=${i}` })));
    all.forEach((r, i) => {
      expect(r.body, `reply ${i}`).toBe(`body-${String(i).repeat(20)}`);
      expect(headerOf(r.head!, "x-rivet-actor")).toBe(`a${i}`);
    });
    await c.close();
    server.close();
  });

  it("reads a chunked reply", async () => {
    const c = new Http1Client(s.origin, 1);
    const r = await send(c, { method: "GET", path: "/chunked" });
    expect(r.body).toBe("first,second");
    await c.close();
  });

  it("a reply that says Connection: close closes its connection; the next request gets a new one", async () => {
    const c = new Http1Client(s.origin, 1);
    const before = s.sockets.length;
    expect((await send(c, { method: "GET", path: "/close" })).body).toBe("ok");
    expect((await send(c, { method: "GET", path: "/" })).ok).toBe(true);
    expect(s.sockets.length - before).toBe(2);
    await c.close();
  });

  it("a connection cut mid-reply fails that request only; the client goes on", async () => {
    const c = new Http1Client(s.origin, 1);
    const r = await send(c, { method: "GET", path: "/cut" });
    expect(r.ok).toBe(false);
    expect(r.error?.message).toBe("connection closed before the reply was complete");
    expect((await send(c, { method: "GET", path: "/" })).ok).toBe(true);
    await c.close();
  });

  it("a refused connection is an error with its code, before any send", async () => {
    const c = new Http1Client(`http://127.0.0.1:${await freePort()}`, 1);
    const r = await send(c, { method: "GET", path: "/" });
    expect(r.ok).toBe(false);
    expect(r.sent).toBe(false);
    expect((r.error as Error & { code?: string }).code).toBe("ECONNREFUSED");
    await c.close();
  });

  it("close() fails what still waits, lets what is in flight finish, and refuses what comes after", async () => {
    const c = new Http1Client(s.origin, 1);
    const inFlight = send(c, { method: "GET", path: "/slow" });
    const waiting = send(c, { method: "GET", path: "/" });
    const closed = c.close();
    expect((await waiting).error?.message).toBe("the client was closed before the request was sent");
    expect((await inFlight).body).toBe("slow");
    await closed;
    expect((await send(c, { method: "GET", path: "/" })).error?.message).toBe("the client is closed");
  });
});

describe("Http1Client and the server's keep-alive limit", () => {
  it("does not reuse a connection the server is about to close (its Keep-Alive timeout, less a second)", async () => {
    // Node's server sends "Keep-Alive: timeout=2": the client keeps an idle connection 1 s.
    const s = await listen((_req, res) => res.end("ok"), 2_000);
    servers.push(s.server);
    const c = new Http1Client(s.origin, 1);
    expect((await send(c, { method: "GET", path: "/" })).ok).toBe(true);
    expect((await send(c, { method: "GET", path: "/" })).ok).toBe(true);
    expect(s.sockets.length).toBe(1);
    await new Promise((r) => setTimeout(r, 1_200));
    expect((await send(c, { method: "GET", path: "/" })).ok).toBe(true);
    expect(s.sockets.length).toBe(2);
    await c.close();
  });
});

describe("Http1Client over TLS", () => {
  it("speaks HTTP/1.1 over TLS to a server whose certificate it trusts, and refuses one it does not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "actor-bench-tls-"));
    try {
      // A self-signed certificate for "localhost" (openssl from Debian).
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=localhost",
          "-addext",
          "subjectAltName=DNS:localhost",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
      const cert = readFileSync(join(dir, "cert.pem"), "utf8");
      const server = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) =>
        res.end(`tls ${req.method} ${req.url}`),
      );
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      servers.push(server);
      const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
      const trusted = new Http1Client(origin, 1, { ca: cert });
      const r = await send(trusted, { method: "POST", path: "/do/ping?unique=1" });
      expect(r.body).toBe("tls POST /do/ping?unique=1");
      await trusted.close();
      const untrusted = new Http1Client(origin, 1);
      const refused = await send(untrusted, { method: "GET", path: "/" });
      expect(refused.ok).toBe(false);
      expect((refused.error as Error & { code?: string }).code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");
      await untrusted.close();
      // A new connection resumes the last one's TLS session: no full handshake per connection.
      const closing = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert }, (_req, res) => {
        res.setHeader("connection", "close");
        res.end("once");
      });
      const resumed: boolean[] = [];
      closing.on("secureConnection", (t) => resumed.push(t.isSessionReused()));
      await new Promise<void>((r) => closing.listen(0, "127.0.0.1", r));
      servers.push(closing);
      const again = new Http1Client(`https://localhost:${(closing.address() as AddressInfo).port}`, 1, { ca: cert });
      for (let i = 0; i < 3; i++) expect((await send(again, { method: "GET", path: "/" })).body).toBe("once");
      expect(resumed).toEqual([false, true, true]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Http1Client origins", () => {
  it("refuses an origin it cannot use, naming it", () => {
    expect(() => new Http1Client("ftp://x", 1)).toThrow("origin ftp://x is not http:// or https://");
    expect(() => new Http1Client("http://x/base", 1)).toThrow("origin http://x/base must have no path or query");
    expect(() => new Http1Client("http://x", 0)).toThrow("connections must be a positive whole number, not 0");
  });
});

/** A raw TCP server on loopback that does what `onSocket` says with each connection; counts them. */
async function rawServer(onSocket: (s: Socket, n: number) => void) {
  let n = 0;
  const open: Socket[] = [];
  const server = createNetServer((s) => {
    open.push(s);
    onSocket(s, ++n);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const close = () => {
    for (const s of open) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return { server, port, connections: () => n, close };
}

/** Answers each request on the socket with `reply(i)` as it arrives. */
function answer(s: Socket, reply: (i: number) => string): void {
  let i = 0;
  let buf = "";
  s.on("data", (d) => {
    buf += d.toString("latin1");
    while (buf.includes("\r\n\r\n")) {
      buf = buf.slice(buf.indexOf("\r\n\r\n") + 4);
      s.write(reply(i++));
    }
  });
  s.on("error", () => undefined);
}

const OK = (body = "ok") => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

describe("Http1Client's failure paths", () => {
  it("gives up on a connection or TLS handshake that is never answered, after its connect timeout (10 s by default), and close() then resolves", async () => {
    expect(CONNECT_TIMEOUT_MS).toBe(10_000);
    // accepts the TCP connection, never says a word: a TLS handshake hangs there
    const mute = await rawServer((s) => s.on("error", () => undefined));
    const c = new Http1Client(`https://localhost:${mute.port}`, 1, { connectTimeoutMs: 300 });
    const t0 = Date.now();
    const r = await send(c, { method: "GET", path: "/" });
    expect(r.ok).toBe(false);
    expect((r.error as Http1Error).code).toBe("HTTP1_CONNECT_TIMEOUT");
    expect(r.error?.message).toBe("no connection and TLS handshake within 300 ms");
    expect(Date.now() - t0).toBeLessThan(2000);
    await c.close();
    await mute.close();
  });

  it("hands the connection on before the reply callback runs; an exception there fails that call only, not the process or the next call", async () => {
    const srv = await rawServer((s) => answer(s, (i) => OK(`r${i}`)));
    const c = new Http1Client(`http://127.0.0.1:${srv.port}`, 1);
    const heard: string[] = [];
    const first = new Promise<void>((resolve) => {
      c.dispatch(
        { method: "GET", path: "/1" },
        {
          onSend: () => undefined,
          onReply: () => {
            heard.push("reply");
            throw new Error("the caller's reading broke");
          },
          onError: (err) => {
            heard.push(`error ${(err as Http1Error).code}: ${err.message}`);
            resolve();
          },
        },
      );
    });
    const second = send(c, { method: "GET", path: "/2" });
    await first;
    expect(heard).toEqual(["reply", "error HTTP1_REPLY_HANDLER: the reply could not be handled: the caller's reading broke"]);
    // dispatched second, it waited for the one connection, which was handed on before the first reply's callback
    expect((await second).body).toBe("r1");
    expect(srv.connections()).toBe(1);
    await c.close();
    await srv.close();
  });

  it("an action reply of JSON null is that call's failure on both sides' clients, never a crash or a rejection", async () => {
    const srv = await rawServer((s) => answer(s, () => OK("null")));
    const gw = new GatewayClient(`http://127.0.0.1:${srv.port}`, 5000);
    expect(await gw.call({ kind: "id", actorId: "a" }, "ping")).toMatchObject({ ok: false, error: "unexpected reply: null" });
    await gw.close();
    const worker = new WorkerClient(`http://127.0.0.1:${srv.port}`, "t", 5000);
    await expect(worker.call("ping", { name: "x" })).resolves.toMatchObject({ ok: false, error: "unexpected reply: null" });
    await worker.close();
    await srv.close();
  });

  it("a request given up on while it waited for a connection is never sent and takes no connection: the warm one stays", async () => {
    // the first request's reply takes 400 ms; ten more time out (100 ms) while they wait for the one connection
    const srv = await rawServer((s) => answer(s, (i) => (i === 0 ? "" : OK())));
    let first: Socket | undefined;
    srv.server.on("connection", (s) => (first ??= s));
    const c = new Http1Client(`http://127.0.0.1:${srv.port}`, 1);
    const slow = timedRequest(c, { method: "GET", path: "/slow" }, 5000);
    const stale = Array.from({ length: 10 }, () => timedRequest(c, { method: "GET", path: "/stale" }, 100));
    await new Promise((r) => setTimeout(r, 400));
    first!.write(OK("slow"));
    expect((await slow).ok).toBe(true);
    for (const r of await Promise.all(stale)) expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/^timeout after 100 ms/) });
    const after = await timedRequest(c, { method: "GET", path: "/after" }, 5000);
    expect(after.ok).toBe(true);
    expect(srv.connections()).toBe(1);
    await c.close();
    await srv.close();
  });

  it("bytes on an idle connection (no request in flight) end that connection; the next request is not spoiled by them", async () => {
    const srv = await rawServer((s) =>
      answer(s, () => {
        setTimeout(() => s.write("\r\n"), 30);
        return OK();
      }),
    );
    const c = new Http1Client(`http://127.0.0.1:${srv.port}`, 1);
    expect((await send(c, { method: "GET", path: "/" })).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    const next = await send(c, { method: "GET", path: "/" });
    expect(next.ok, next.error?.message).toBe(true);
    expect(srv.connections()).toBe(2);
    await c.close();
    await srv.close();
  });

  it("close(abort) ends the calls still in flight at once instead of waiting for them", async () => {
    const srv = await rawServer((s) => s.on("error", () => undefined));
    const c = new Http1Client(`http://127.0.0.1:${srv.port}`, 2);
    const inFlight = send(c, { method: "GET", path: "/" });
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await c.close(true);
    expect(Date.now() - t0).toBeLessThan(500);
    expect((await inFlight).error?.message).toBe("connection closed before the reply");
    await srv.close();
  });
});
