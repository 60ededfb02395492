/**
 * An HTTP/1.1 reply read from a connection's bytes as they arrive, for the
 * driver's client (one request at a time per connection, no pipelining). It
 * reads what a reply may carry (RFC 9112): a status line, header fields, a body
 * framed by Content-Length, by chunked transfer coding, or by the connection's
 * end, and skips 1xx interim replies. No I/O: the connection feeds it.
 */
export class Http1Error extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Reply {
  status: number;
  /** The status line and header lines as received (CRLF between them): `headerOf` reads a field. */
  head: string;
  body: Buffer;
  /** The server lets the connection carry another request. */
  keepAlive: boolean;
  /** The server's keep-alive idle limit from a `Keep-Alive: timeout=N` field, ms. */
  idleLimitMs: number | null;
}

/** A field's value: the text after the colon up to the line's end, without surrounding spaces or tabs. */
function fieldValue(head: string, colon: number, eol: number): string {
  let from = colon + 1;
  while (from < eol && (head.charCodeAt(from) === 32 || head.charCodeAt(from) === 9)) from++;
  let to = eol;
  while (to > from && (head.charCodeAt(to - 1) === 32 || head.charCodeAt(to - 1) === 9)) to--;
  return head.slice(from, to);
}

/** Whether the field name at `at` in `head` is `name` (lower case), ignoring case. */
function isName(head: string, at: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    let c = head.charCodeAt(at + i);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== name.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * A reply's field by lower-case name (the first, if repeated), from its head;
 * undefined if absent. Names are compared in place, line by line, without a
 * lower-cased copy of the head: this runs on every call's reply.
 */
export function headerOf(head: string, name: string): string | undefined {
  const n = name.length;
  let eol = head.indexOf("\r\n");
  while (eol >= 0) {
    const start = eol + 2;
    eol = head.indexOf("\r\n", start);
    const end = eol < 0 ? head.length : eol;
    if (end - start > n && head.charCodeAt(start + n) === 58 && isName(head, start, name)) return fieldValue(head, start + n, end);
  }
  return undefined;
}

export const MAX_HEAD_BYTES = 64 * 1024;
/** The largest body a reply may carry: an actor's reply is a few hundred bytes; a runaway one must not fill the driver's memory. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A NUL, a CR not before LF, or an LF not after CR: never part of a well-formed head (RFC 9112 2.2, 5.5). */
const BAD_HEAD_BYTE = /\0|\r(?!\n)|(?<!\r)\n/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_LINE_BYTES = 4 * 1024;
const HEAD_END = Buffer.from("\r\n\r\n");
const STATUS_LINE = /^HTTP\/1\.[01] \d{3}(?: |\r|$)/;
const CHUNK_SIZE = /^[0-9a-fA-F]{1,12}$/;

enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
  UntilClose,
}

function protocolError(message: string): Http1Error {
  return new Http1Error("HTTP1_BAD_REPLY", message);
}

export class ReplyParser {
  private state = State.Head;
  private pending: Buffer | null = null;
  private status = 0;
  private head = "";
  private chunks: Buffer[] = [];
  private remaining = 0;
  private keepAlive = true;
  private idleLimitMs: number | null = null;
  private bodyBytes = 0;

  /** Whether a reply has begun (any byte of it arrived). */
  get started(): boolean {
    return this.state !== State.Head || this.pending !== null;
  }

  /**
   * Takes the next bytes. Returns the reply once it is complete, else null;
   * throws an Http1Error on bytes that are not a reply. Bytes after a complete
   * reply (there is no request for them) are an error too. `data` may be a
   * read buffer the caller reuses once this returns: what the parser keeps of
   * it (a partial head or line, body bytes) it copies.
   */
  feed(data: Buffer): Reply | null {
    let buf = this.pending ? Buffer.concat([this.pending, data]) : data;
    this.pending = null;
    for (;;) {
      switch (this.state) {
        case State.Head: {
          const end = buf.indexOf(HEAD_END);
          if (end < 0) {
            if (buf.length > MAX_HEAD_BYTES) throw protocolError(`reply head over ${MAX_HEAD_BYTES} bytes`);
            this.pending = buf.length ? Buffer.from(buf) : null;
            return null;
          }
          if (end > MAX_HEAD_BYTES) throw protocolError(`reply head over ${MAX_HEAD_BYTES} bytes`);
          const head = buf.toString("latin1", 0, end);
          buf = buf.subarray(end + 4);
          if (this.readHead(head)) return this.complete(buf);
          break;
        }
        case State.Length: {
          buf = this.takeBody(buf);
          return this.remaining === 0 ? this.complete(buf) : null;
        }
        case State.ChunkSize: {
          const line = this.line(buf);
          if (line === null) return null;
          buf = buf.subarray(line.length + 2);
          const size = line.split(";", 1)[0].trim();
          if (!CHUNK_SIZE.test(size)) throw protocolError(`bad chunk size line "${line.slice(0, 40)}"`);
          this.remaining = parseInt(size, 16);
          this.count(this.remaining);
          this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
          break;
        }
        case State.ChunkData: {
          buf = this.takeBody(buf);
          if (this.remaining > 0) return null;
          this.state = State.ChunkEnd;
          break;
        }
        case State.ChunkEnd: {
          if (buf.length < 2) {
            this.pending = buf.length ? Buffer.from(buf) : null;
            return null;
          }
          if (buf[0] !== 13 || buf[1] !== 10) throw protocolError("chunk not followed by CRLF");
          buf = buf.subarray(2);
          this.state = State.ChunkSize;
          break;
        }
        case State.Trailers: {
          const line = this.line(buf);
          if (line === null) return null;
          buf = buf.subarray(line.length + 2);
          if (line === "") return this.complete(buf);
          break;
        }
        case State.UntilClose: {
          if (buf.length) {
            this.count(buf.length);
            this.chunks.push(Buffer.from(buf));
          }
          return null;
        }
      }
    }
  }

  /** The connection ended: a reply framed by its end is complete; anything else begun is cut short. */
  end(): Reply | null {
    if (this.state === State.UntilClose) return this.complete(Buffer.alloc(0));
    if (this.started) throw new Http1Error("HTTP1_CLOSED", "connection closed before the reply was complete");
    return null;
  }

  /** Counts body bytes against MAX_BODY_BYTES. */
  private count(n: number): void {
    this.bodyBytes += n;
    if (this.bodyBytes > MAX_BODY_BYTES) throw protocolError(`reply body over ${MAX_BODY_BYTES} bytes`);
  }

  /** Keeps up to `remaining` body bytes from the front of `buf`; returns the rest. */
  private takeBody(buf: Buffer): Buffer {
    const take = Math.min(this.remaining, buf.length);
    if (take > 0) this.chunks.push(Buffer.from(buf.subarray(0, take)));
    this.remaining -= take;
    return buf.subarray(take);
  }

  /** One CRLF-terminated line from the front of `buf`, or null (the rest kept) if it has not all arrived. */
  private line(buf: Buffer): string | null {
    const end = buf.indexOf("\r\n");
    if (end < 0) {
      if (buf.length > MAX_LINE_BYTES) throw protocolError(`chunk line over ${MAX_LINE_BYTES} bytes`);
      this.pending = buf.length ? Buffer.from(buf) : null;
      return null;
    }
    return buf.toString("latin1", 0, end);
  }

  /** Reads the status line and fields; true when the reply has no body. */
  private readHead(head: string): boolean {
    let eol = head.indexOf("\r\n");
    if (eol < 0) eol = head.length;
    if (!STATUS_LINE.test(head)) throw protocolError(`malformed status line "${head.slice(0, Math.min(eol, 60))}"`);
    // One pass over the whole head: no field may hide a NUL or a line break that is not CRLF.
    if (BAD_HEAD_BYTE.test(head)) throw protocolError("reply head holds a NUL, a bare CR or a bare LF");
    const status = Number(head.slice(9, 12));
    let length = -1;
    let chunked = false;
    let coded = false;
    let keepAlive = head.charCodeAt(7) === 49; // HTTP/1.1
    while (eol < head.length) {
      const start = eol + 2;
      eol = head.indexOf("\r\n", start);
      if (eol < 0) eol = head.length;
      const colon = head.indexOf(":", start);
      // No space may come before the colon (RFC 9112 5.1): such a line is refused, not guessed at.
      if (colon <= start || colon > eol || !TOKEN.test(head.slice(start, colon)))
        throw protocolError(`malformed header line "${head.slice(start, Math.min(eol, start + 60))}"`);
      // Only four fields frame a reply or its connection; any other line is left in the head
      // for headerOf, read only if asked for. Names are compared in place, as headerOf does.
      const n = colon - start;
      if (n === 14 && isName(head, start, "content-length")) {
        const value = fieldValue(head, colon, eol);
        if (!/^\d{1,15}$/.test(value) || (length >= 0 && length !== Number(value)))
          throw protocolError(`bad content-length "${value.slice(0, 40)}"`);
        length = Number(value);
      } else if (n === 17 && isName(head, start, "transfer-encoding")) {
        coded = true;
        chunked = /(?:^|,)\s*chunked\s*$/i.test(fieldValue(head, colon, eol));
      } else if (n === 10 && isName(head, start, "connection")) {
        const v = fieldValue(head, colon, eol).toLowerCase();
        if (v === "keep-alive") keepAlive = true;
        else if (/(?:^|,)\s*close\s*(?:,|$)/.test(v)) keepAlive = false;
        else if (/(?:^|,)\s*keep-alive\s*(?:,|$)/.test(v)) keepAlive = true;
      } else if (n === 10 && isName(head, start, "keep-alive")) {
        const t = /(?:^|,)\s*timeout=(\d+)/i.exec(fieldValue(head, colon, eol));
        if (t) this.idleLimitMs = Number(t[1]) * 1000;
      }
    }
    if (status >= 100 && status < 200) {
      // An interim reply: the final one follows on the same request.
      if (status === 101) throw protocolError("unexpected protocol switch (101)");
      this.idleLimitMs = null;
      return false;
    }
    this.status = status;
    this.head = head;
    this.keepAlive = keepAlive;
    if (status === 204 || status === 304) return true;
    // Transfer-Encoding beside a Content-Length, or in an HTTP/1.0 reply, may be a smuggling attempt:
    // the body is read as the coding says, and the connection is not used again (RFC 9112 6.1, 6.3).
    if (coded && (length >= 0 || head.charCodeAt(7) === 48)) this.keepAlive = false;
    if (coded) {
      // A coding other than chunked last: the body runs to the connection's end (RFC 9112 6.3).
      this.state = chunked ? State.ChunkSize : State.UntilClose;
      if (!chunked) this.keepAlive = false;
      return false;
    }
    if (length === 0) return true;
    if (length > 0) {
      this.count(length);
      this.remaining = length;
      this.state = State.Length;
      return false;
    }
    this.state = State.UntilClose;
    this.keepAlive = false;
    return false;
  }

  private complete(rest: Buffer): Reply {
    if (rest.length > 0) throw protocolError(`${rest.length} bytes after the reply, with no request for them`);
    const c = this.chunks;
    const reply: Reply = {
      status: this.status,
      head: this.head,
      body: c.length === 1 ? c[0] : Buffer.concat(c),
      keepAlive: this.keepAlive,
      idleLimitMs: this.idleLimitMs,
    };
    this.state = State.Head;
    this.pending = null;
    this.status = 0;
    this.head = "";
    this.chunks = [];
    this.remaining = 0;
    this.keepAlive = true;
    this.idleLimitMs = null;
    this.bodyBytes = 0;
    return reply;
  }
}
