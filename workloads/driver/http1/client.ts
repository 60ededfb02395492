/**
 * The driver's HTTP/1.1 client for timed requests: up to `connections`
 * keep-alive connections (TCP, or TLS for https), one request at a time on
 * each, the request written as one string, the reply read by ReplyParser. It
 * does what autocannon and wrk do on their hot path and nothing more, because
 * a client's own CPU per request caps the rate it can drive (`npm run
 * bench:driver` measures this client, undici's dispatch alone and the two load
 * tools side by side). Requests beyond the open connections wait in arrival
 * order. Never retries.
 */
import { connect as netConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { Http1Error, ReplyParser, type Reply } from "./replyParser";

export { Http1Error, headerOf } from "./replyParser";

export interface Http1Request {
  method: "GET" | "POST";
  /** Already percent-encoded: "/gateway/<id>/action/ping?..." */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What one request's caller hears: onSend (unless it fails first), then onReply or onError, once. */
export interface ReplyHandler {
  /**
   * True once the caller has given up on the request (its deadline passed
   * while it waited): it is then never sent, and takes no connection.
   */
  readonly settled?: boolean;
  /** The request is about to be written on a connected socket; `abort` drops it and its connection. */
  onSend(abort: (err: Error) => void): void;
  /**
   * `head`: the reply's status and header lines, read with headerOf; `at`:
   * process.hrtime.bigint() when its last byte was read, taken before the
   * connection went on to the next request. An exception thrown here fails
   * this call (onError), never the connection or the process.
   */
  onReply(status: number, head: string, body: Buffer, at: bigint): void;
  onError(err: Error): void;
}

/** How long a new connection may take to open (with TLS, its handshake too). */
export const CONNECT_TIMEOUT_MS = 10_000;

const SAFE_PATH = /^\/[\x21-\x7e]*$/;
const SAFE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The header lines of a headers object, checked once per object (the driver's are constants). */
const headerLines = new WeakMap<Record<string, string>, string>();
function linesOf(headers: Record<string, string>): string {
  let lines = headerLines.get(headers);
  if (lines === undefined) {
    lines = "";
    for (const [name, value] of Object.entries(headers)) {
      if (!TOKEN.test(name) || !SAFE_VALUE.test(value))
        throw new Http1Error("HTTP1_BAD_REQUEST", `header ${JSON.stringify(name)} has a character HTTP does not allow`);
      lines += `${name}: ${value}\r\n`;
    }
    headerLines.set(headers, lines);
  }
  return lines;
}

/** Pure: the bytes of one request, as a string. POST always states its length (0 without a body). */
export function requestText(r: Http1Request, host: string): string {
  if (!SAFE_PATH.test(r.path))
    throw new Http1Error("HTTP1_BAD_REQUEST", `request path ${JSON.stringify(r.path.slice(0, 80))} is not an encoded origin-form path`);
  let text = `${r.method} ${r.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  if (r.headers) text += linesOf(r.headers);
  if (r.body !== undefined) text += `content-length: ${Buffer.byteLength(r.body)}\r\n\r\n${r.body}`;
  else text += r.method === "POST" ? "content-length: 0\r\n\r\n" : "\r\n";
  return text;
}

class Connection {
  readonly socket: Socket;
  private readonly parser = new ReplyParser();
  private handler: ReplyHandler | null = null;
  private text = "";
  private connected = false;
  private connectTimer: NodeJS.Timeout | undefined;
  reusable = true;
  idleSince = 0;
  idleLimitMs: number;
  private readonly abort = (err: Error) => this.fail(err);

  constructor(
    private readonly client: Http1Client,
    first: string,
    handler: ReplyHandler,
  ) {
    this.idleLimitMs = client.keepAliveMs;
    this.handler = handler;
    this.text = first;
    const { hostname, port, tls } = client.target;
    if (tls) {
      const session = client.tlsSession;
      this.socket = tlsConnect(
        {
          host: hostname,
          port,
          ...(isIP(hostname) ? {} : { servername: hostname }),
          ALPNProtocols: ["http/1.1"],
          ...(client.ca ? { ca: client.ca } : {}),
          ...(session ? { session } : {}),
        },
        () => this.onConnected(),
      );
      // The next connection resumes this one's TLS session: no full handshake per connection.
      this.socket.on("session", (s: Buffer) => (client.tlsSession = s));
      this.socket.on("data", (d: Buffer) => this.onData(d));
    } else {
      // Reads land in the client's one read buffer and go straight to the parser: no buffer
      // allocated and no stream event per read, which the driver's CPU per request shows (docs/driver.md).
      const buffer = client.readBuffer;
      const callback = (n: number): boolean => {
        this.onData(buffer.subarray(0, n));
        return true;
      };
      this.socket = netConnect({ host: hostname, port, onread: { buffer, callback } }, () => this.onConnected());
    }
    this.connectTimer = setTimeout(
      () =>
        this.fail(
          new Http1Error("HTTP1_CONNECT_TIMEOUT", `no connection${tls ? " and TLS handshake" : ""} within ${client.connectTimeoutMs} ms`),
        ),
      client.connectTimeoutMs,
    );
    this.connectTimer.unref();
    this.socket.setNoDelay(true);
    this.socket.on("error", (e) => this.fail(e));
    this.socket.on("close", () => this.onClose());
  }

  private onConnected(): void {
    clearTimeout(this.connectTimer);
    this.connected = true;
    if (this.handler) this.write();
  }

  send(text: string, handler: ReplyHandler): void {
    this.handler = handler;
    this.text = text;
    this.socket.ref();
    this.write();
  }

  private write(): void {
    const h = this.handler!;
    // Given up on while this connection opened: the connection goes to the next request instead.
    if (h.settled) {
      this.handler = null;
      this.client.release(this);
      return;
    }
    h.onSend(this.abort);
    // onSend may have aborted it.
    if (this.handler) this.socket.write(this.text);
  }

  private onData(d: Buffer): void {
    if (!this.handler) {
      // Bytes with no request in flight (a stray line on an idle connection) belong to no reply: the connection goes.
      this.reusable = false;
      this.socket.destroy();
      return;
    }
    let reply: Reply | null;
    try {
      reply = this.parser.feed(d);
    } catch (e) {
      this.fail(e as Error);
      return;
    }
    if (reply) this.finish(reply);
  }

  private finish(reply: Reply): void {
    const at = process.hrtime.bigint();
    const h = this.handler!;
    this.handler = null;
    if (!reply.keepAlive) this.reusable = false;
    // One second under the server's own idle limit, so it does not close a connection we are writing to.
    if (reply.idleLimitMs !== null) this.idleLimitMs = Math.min(this.client.keepAliveMs, Math.max(0, reply.idleLimitMs - 1000));
    // The connection goes to the next request first (the reply's time is already taken), then the caller hears the reply.
    this.client.release(this);
    try {
      h.onReply(reply.status, reply.head, reply.body, at);
    } catch (e) {
      h.onError(new Http1Error("HTTP1_REPLY_HANDLER", `the reply could not be handled: ${(e as Error).message}`));
    }
  }

  /** Ends the request in flight with `err`, if any, and drops the connection. */
  private fail(err: Error): void {
    clearTimeout(this.connectTimer);
    this.reusable = false;
    this.socket.destroy();
    const h = this.handler;
    this.handler = null;
    h?.onError(err);
  }

  private onClose(): void {
    clearTimeout(this.connectTimer);
    if (this.handler) {
      // A reply framed by the connection's end is complete now; anything else in flight fails, once.
      let reply: Reply | null = null;
      let err: Error = new Http1Error(
        "HTTP1_CLOSED",
        this.connected ? "connection closed before the reply" : "connection closed before it was open",
      );
      try {
        reply = this.parser.end();
      } catch (e) {
        err = e as Error;
      }
      if (reply) this.finish(reply);
      else this.fail(err);
    }
    this.client.dropped(this);
  }
}

/** Keep-alive HTTP/1.1 connections to one origin, at most `connections` at once. */
export class Http1Client {
  /** What this client is, in the manifest of every run whose timed calls it carries. */
  static readonly DESCRIPTION =
    "the driver's own HTTP/1.1 client (workloads/driver/http1): keep-alive connections, one request at a time on each, no pipelining, no retries";
  readonly target: { hostname: string; port: number; tls: boolean };
  private readonly host: string;
  private readonly idle: Connection[] = [];
  /** Every open connection, idle or busy. */
  private readonly conns = new Set<Connection>();
  private waiting: Array<{ text: string; handler: ReplyHandler }> = [];
  private waitingHead = 0;
  private open = 0;
  private closing: (() => void) | null = null;
  private closed = false;

  /** How long an idle connection is kept when the server states no shorter limit. */
  readonly keepAliveMs: number;
  /** Certificates to trust for https besides the system's (a private CA). */
  readonly ca: string | undefined;
  /**
   * Where every plain-TCP connection's reads land. One is enough: a read is
   * handed to its connection's parser, which copies what it keeps, before
   * the next read is made.
   */
  readonly readBuffer = Buffer.allocUnsafe(64 * 1024);
  /** The last TLS session a server gave, offered by the next connection. */
  tlsSession: Buffer | undefined;
  readonly connectTimeoutMs: number;

  constructor(
    origin: string,
    readonly connections: number,
    opts: { keepAliveMs?: number; ca?: string; connectTimeoutMs?: number } = {},
  ) {
    this.keepAliveMs = opts.keepAliveMs ?? 60_000;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    this.ca = opts.ca;
    const u = new URL(origin);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`origin ${origin} is not http:// or https://`);
    if (u.pathname !== "/" || u.search) throw new Error(`origin ${origin} must have no path or query`);
    if (!Number.isInteger(connections) || connections < 1)
      throw new Error(`connections must be a positive whole number, not ${connections}`);
    const tls = u.protocol === "https:";
    this.target = { hostname: u.hostname.replace(/^\[|\]$/g, ""), port: Number(u.port || (tls ? 443 : 80)), tls };
    this.host = u.host;
  }

  /** This client for the manifest: what it is, and how many connections it may open. */
  get description(): string {
    return `${Http1Client.DESCRIPTION}; at most ${this.connections} connections${this.target.tls ? ", TLS with session resumption" : ""}`;
  }

  /** Sends `r` on an idle connection, a new one, or when one is free; `handler` hears how it went. */
  dispatch(r: Http1Request, handler: ReplyHandler): void {
    let text: string;
    try {
      if (this.closed) throw new Http1Error("HTTP1_CLOSED", "the client is closed");
      text = requestText(r, this.host);
    } catch (e) {
      handler.onError(e as Error);
      return;
    }
    const now = Date.now();
    for (let c = this.idle.pop(); c; c = this.idle.pop()) {
      if (now - c.idleSince < c.idleLimitMs) {
        c.send(text, handler);
        return;
      }
      c.socket.destroy();
    }
    if (this.open < this.connections) this.connect(text, handler);
    else this.waiting.push({ text, handler });
  }

  private connect(text: string, handler: ReplyHandler): void {
    this.open++;
    this.conns.add(new Connection(this, text, handler));
  }

  /** A connection finished a reply: the next waiting request gets it, else it idles (or closes if it cannot be reused). */
  release(c: Connection): void {
    if (!c.reusable || this.closed) {
      c.socket.destroy();
      return;
    }
    const next = this.nextWaiting();
    if (next) {
      c.send(next.text, next.handler);
      return;
    }
    c.idleSince = Date.now();
    c.socket.unref();
    this.idle.push(c);
  }

  /** A connection closed (either end, or an error): its slot opens for a waiting request. */
  dropped(c: Connection): void {
    this.open--;
    this.conns.delete(c);
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    const next = this.closed ? undefined : this.nextWaiting();
    if (next) this.connect(next.text, next.handler);
    if (this.closing && this.open === 0) this.closing();
  }

  /** The next waiting request its caller still wants (one given up on is passed over: it takes no connection). */
  private nextWaiting(): { text: string; handler: ReplyHandler } | undefined {
    while (this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead++];
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.waitingHead);
        this.waitingHead = 0;
      }
      if (!next.handler.settled) return next;
    }
    return undefined;
  }

  /**
   * Fails the waiting requests, closes idle connections, and resolves once the
   * busy ones have finished; with `abort`, ends the busy ones too (their calls fail).
   */
  close(abort = false): Promise<void> {
    this.closed = true;
    for (let w = this.nextWaiting(); w; w = this.nextWaiting())
      w.handler.onError(new Http1Error("HTTP1_CLOSED", "the client was closed before the request was sent"));
    for (const c of this.idle.splice(0)) c.socket.destroy();
    if (abort) for (const c of this.conns) c.socket.destroy();
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.closing = resolve;
    });
  }
}
