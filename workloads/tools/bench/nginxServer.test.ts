import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../host/ports";
import type { Managed } from "../../host/processes";
import { ReplyParser, type Reply } from "../../driver/http1/replyParser";
import { GatewayClient } from "../../sides/rivet/gateway";
import { findNginx, nginxConfig, startNginx } from "./nginxServer";
import { NOOP_REPLY } from "./noopServer";

describe("nginxConfig", () => {
  it("listens on loopback only, never closes a connection by request count, and sends the no-op reply", () => {
    const c = nginxConfig(18080, "/tmp/x");
    expect(c.match(/listen .*;/g)).toEqual(["listen 127.0.0.1:18080;"]);
    expect(c).toMatch(/keepalive_requests 1000000000;/);
    expect(c).toContain(`return 200 '${NOOP_REPLY}';`);
    expect(c).toMatch(/^daemon off;$/m);
  });
  it("refuses what nginx would misread, in one line", () => {
    expect(() => nginxConfig(0, "/tmp/x")).toThrow(/^nginx port must be 1 to 65535, not 0$/);
    expect(() => nginxConfig(18080, "/tmp/x", '{"a":"$host"}')).toThrow(/must not contain a quote, backslash, \$ or line break/);
    expect(() => nginxConfig(18080, "/tmp/a b")).toThrow(/has a character nginx's configuration would read/);
  });
});

const installed = findNginx();
// CI installs nginx-light (.ci/run); elsewhere these run once it is installed.
describe.skipIf(!installed)("the benchmark's nginx (skipped when nginx is not installed: apt-get install nginx-light)", () => {
  let dir: string;
  let port: number;
  let proc: Managed;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "actor-bench-nginx-"));
    port = await freePort();
    proc = await startNginx(installed!.binary, port, join(dir, "nginx"));
  }, 20_000);
  afterAll(async () => {
    await proc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps one connection open past nginx's default of 1,000 requests", async () => {
    const sock = connect({ host: "127.0.0.1", port });
    await new Promise<void>((r) => sock.once("connect", () => r()));
    const parser = new ReplyParser();
    let waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void } | null = null;
    sock.on("data", (d: Buffer) => {
      const r = parser.feed(d);
      if (r) waiting?.resolve(r);
    });
    let sent = 0;
    sock.on("close", () => waiting?.reject(new Error(`nginx closed the connection after ${sent - 1} replies`)));
    const replies: Reply[] = [];
    while (sent < 1100) {
      const reply = new Promise<Reply>((resolve, reject) => (waiting = { resolve, reject }));
      sock.write(`POST /gateway/noop/action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 11\r\n\r\n{"args":[]}`);
      sent++;
      replies.push(await reply);
    }
    expect(replies.every((r) => r.status === 200 && r.keepAlive && r.body.toString() === NOOP_REPLY)).toBe(true);
    sock.destroy();
  });

  it("answers the driver's own call with a reply it reads as an actor's", async () => {
    const client = new GatewayClient(`http://127.0.0.1:${port}`, 5000, 4);
    try {
      const r = await client.call({ kind: "id", actorId: "noop" }, "ping");
      expect(r.ok && r.actorId === "noop" && r.reply.cold === false).toBe(true);
    } finally {
      await client.close();
    }
  });
});
