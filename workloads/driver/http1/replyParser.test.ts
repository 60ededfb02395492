import { describe, expect, it } from "vitest";
import { headerOf, Http1Error, MAX_BODY_BYTES, MAX_HEAD_BYTES, ReplyParser, type Reply } from "./replyParser";

const LENGTH =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nX-Rivet-Actor: Act-9\r\nKeep-Alive: timeout=5\r\n\r\n{"cold":1}\n';
const CHUNKED = "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n";

/**
 * Feeds `text` in pieces cut at `cuts`, returning every reply completed. Each
 * piece goes through one read buffer that is overwritten after every feed, as
 * the client's socket reads reuse theirs: a reply must not keep a view of it.
 */
function feedIn(text: string, cuts: number[], p = new ReplyParser()): Reply[] {
  const bytes = Buffer.from(text, "latin1");
  const readBuffer = Buffer.alloc(bytes.length);
  const out: Reply[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    bytes.copy(readBuffer, 0, from, at);
    const r = p.feed(readBuffer.subarray(0, at - from));
    readBuffer.fill("#");
    if (r) out.push(r);
    from = at;
  }
  return out;
}

function fails(f: () => unknown, code: string, message: RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(Http1Error);
  expect((err as Http1Error).code).toBe(code);
  expect((err as Http1Error).message).toMatch(message);
}

describe("ReplyParser", () => {
  it("reads a Content-Length reply; its fields are found by lower-case name, their values kept as sent", () => {
    const [r] = feedIn(LENGTH, []);
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('{"cold":1}\n');
    expect(r.head).toBe(LENGTH.slice(0, LENGTH.indexOf("\r\n\r\n")));
    expect(headerOf(r.head, "x-rivet-actor")).toBe("Act-9");
    expect(headerOf(r.head, "content-type")).toBe("application/json");
    expect(headerOf(r.head, "x-rivet")).toBeUndefined();
    expect(headerOf(r.head, "x-absent")).toBeUndefined();
    expect(r.keepAlive).toBe(true);
    expect(r.idleLimitMs).toBe(5000);
  });

  it("headerOf matches a whole field name in any case, the first of repeated ones, never a value or the status line", () => {
    const head =
      "HTTP/1.1 200 x-rivet-actor: status\r\nX-Note: x-rivet-actor: in a value\r\nX-Rivet-Actor-Id: longer\r\nx-RIVET-actor:  first \r\nX-Rivet-Actor: second\r\nX-Last:end";
    expect(headerOf(head, "x-rivet-actor")).toBe("first");
    expect(headerOf(head, "x-rivet-actor-id")).toBe("longer");
    expect(headerOf(head, "x-last")).toBe("end");
    expect(headerOf(head, "x-note")).toBe("x-rivet-actor: in a value");
    expect(headerOf("HTTP/1.1 204 No Content", "x-rivet-actor")).toBeUndefined();
    expect(headerOf("HTTP/1.1 200 OK\r\nX-Empty:\r\n", "x-empty")).toBe("");
  });

  it("gives the same reply whichever byte the connection splits it at", () => {
    for (const text of [LENGTH, CHUNKED]) {
      const whole = feedIn(text, []);
      expect(whole).toHaveLength(1);
      for (let cut = 1; cut < text.length; cut++) {
        const split = feedIn(text, [cut]);
        expect(split, `cut at ${cut}`).toHaveLength(1);
        expect(split[0].body.toString()).toBe(whole[0].body.toString());
        expect(split[0].head).toBe(whole[0].head);
      }
      const bytewise = feedIn(
        text,
        Array.from({ length: text.length - 1 }, (_, i) => i + 1),
      );
      expect(bytewise[0].body.toString()).toBe(whole[0].body.toString());
    }
  });

  it("joins chunks, skips extensions and trailers", () => {
    const [r] = feedIn(CHUNKED, []);
    expect(r.status).toBe(201);
    expect(r.body.toString()).toBe("hello, world");
    expect(r.keepAlive).toBe(true);
  });

  it("reads the next reply after one completes, and skips a 100 Continue before the final one", () => {
    const p = new ReplyParser();
    expect(feedIn(LENGTH, [], p)).toHaveLength(1);
    expect(p.started).toBe(false);
    const [r] = feedIn("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nKeep-Alive: timeout=9\r\n\r\n", [], p);
    expect(r.status).toBe(204);
    expect(r.body.length).toBe(0);
    expect(r.idleLimitMs).toBe(9000);
  });

  it("says when the connection cannot carry another request", () => {
    expect(feedIn("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", [])[0].keepAlive).toBe(false);
    expect(feedIn("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", [])[0].keepAlive).toBe(false);
    const bare = feedIn("HTTP/1.1 200\r\nContent-Length:0\r\nX-Pad: \t spaced \t\r\n\r\n", [])[0];
    expect([bare.status, headerOf(bare.head, "content-length"), headerOf(bare.head, "x-pad")]).toEqual([200, "0", "spaced"]);
    expect(feedIn("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", [])[0].keepAlive).toBe(true);
  });

  it("a reply with neither length nor chunking runs to the connection's end", () => {
    const p = new ReplyParser();
    expect(feedIn("HTTP/1.1 200 OK\r\n\r\npart one, ", [], p)).toHaveLength(0);
    expect(p.feed(Buffer.from("part two"))).toBeNull();
    const r = p.end();
    expect(r?.body.toString()).toBe("part one, part two");
    expect(r?.keepAlive).toBe(false);
  });

  it("a connection that ends mid-reply is an error; one that ends between replies is not", () => {
    const p = new ReplyParser();
    p.feed(Buffer.from(LENGTH.slice(0, LENGTH.length - 3)));
    fails(() => p.end(), "HTTP1_CLOSED", /closed before the reply was complete/);
    expect(new ReplyParser().end()).toBeNull();
  });

  it("refuses what is not a reply, in one line that names it", () => {
    fails(() => feedIn("SSH-2.0-OpenSSH_9.2\r\n\r\n", []), "HTTP1_BAD_REPLY", /^malformed status line "SSH-2.0-OpenSSH_9.2"$/);
    fails(() => feedIn("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", []), "HTTP1_BAD_REPLY", /bad content-length "1x"/);
    fails(
      () => feedIn("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab", []),
      "HTTP1_BAD_REPLY",
      /bad content-length "3"/,
    );
    fails(() => feedIn("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", []), "HTTP1_BAD_REPLY", /malformed header line "no colon here"/);
    fails(
      () => feedIn("HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n", []),
      "HTTP1_BAD_REPLY",
      /malformed header line "Content-Length : 5"/,
    );
    fails(() => feedIn("HTTP/1.1 2000 OK\r\n\r\n", []), "HTTP1_BAD_REPLY", /malformed status line "HTTP\/1.1 2000 OK"/);
    fails(() => feedIn("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", []), "HTTP1_BAD_REPLY", /bad chunk size line "zz"/);
    fails(
      () => feedIn("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY", []),
      "HTTP1_BAD_REPLY",
      /chunk not followed by CRLF/,
    );
    fails(() => feedIn("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabc", []), "HTTP1_BAD_REPLY", /1 bytes after the reply/);
    fails(() => feedIn("HTTP/1.1 101 Switching Protocols\r\n\r\n", []), "HTTP1_BAD_REPLY", /protocol switch/);
  });

  it("does not buffer a head without end: past the limit it stops", () => {
    const p = new ReplyParser();
    p.feed(Buffer.from("HTTP/1.1 200 OK\r\n"));
    fails(() => p.feed(Buffer.alloc(MAX_HEAD_BYTES, 0x61)), "HTTP1_BAD_REPLY", /reply head over 65536 bytes/);
  });

  it("refuses a head with a NUL, a bare CR or a bare LF anywhere, and a field name that is not a token", () => {
    const ok = "HTTP/1.1 200 OK\r\nX-A: b\r\nContent-Length: 0\r\n\r\n";
    expect(new ReplyParser().feed(Buffer.from(ok))?.status).toBe(200);
    for (const bad of ["X-A: b\0c", "X-A: b\rc", "X-A: b\nc", "X-A\n: b"]) {
      fails(
        () => new ReplyParser().feed(Buffer.from(ok.replace("X-A: b", bad))),
        "HTTP1_BAD_REPLY",
        /reply head holds a NUL, a bare CR or a bare LF/,
      );
    }
    for (const name of ["X(A)", "X A", "X/A", "X\u00e9"]) {
      fails(() => new ReplyParser().feed(Buffer.from(ok.replace("X-A", name), "latin1")), "HTTP1_BAD_REPLY", /malformed header line/);
    }
  });

  it("never lets a connection carry another request after Content-Length beside chunked, or chunked in an HTTP/1.0 reply", () => {
    const both = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n";
    const r = new ReplyParser().feed(Buffer.from(both))!;
    expect([r.body.toString(), r.keepAlive]).toEqual(["hi", false]);
    const old = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n";
    expect(new ReplyParser().feed(Buffer.from(old))!.keepAlive).toBe(false);
    // chunked alone in HTTP/1.1 keeps it
    expect(new ReplyParser().feed(Buffer.from(both.replace("Content-Length: 3\r\n", "")))!.keepAlive).toBe(true);
  });

  it("refuses a body over MAX_BODY_BYTES however it is framed, before holding it", () => {
    expect(MAX_BODY_BYTES).toBe(4 * 1024 * 1024);
    fails(
      () => new ReplyParser().feed(Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`)),
      "HTTP1_BAD_REPLY",
      /reply body over 4194304 bytes/,
    );
    fails(
      () =>
        new ReplyParser().feed(
          Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${(MAX_BODY_BYTES + 1).toString(16)}\r\n`),
        ),
      "HTTP1_BAD_REPLY",
      /reply body over/,
    );
    const p = new ReplyParser();
    p.feed(Buffer.from("HTTP/1.1 200 OK\r\n\r\n"));
    const mb = Buffer.alloc(1024 * 1024, 97);
    for (let i = 0; i < 4; i++) p.feed(mb);
    fails(() => p.feed(Buffer.from("x")), "HTTP1_BAD_REPLY", /reply body over/);
    // exactly the cap is a reply
    const q = new ReplyParser();
    expect(
      q.feed(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${MAX_BODY_BYTES}\r\n\r\n`), Buffer.alloc(MAX_BODY_BYTES)]))
        ?.body.length,
    ).toBe(MAX_BODY_BYTES);
  });
});
