/**
 * A capture's packets read as the driver's HTTP/1.1 calls and the messages a
 * front process forwards them with: when each call's request and response
 * crossed the wire, and the first packet of another connection that carries a
 * given identifier. Pure.
 */
import type { TcpPacket } from "./pcap";

/** One request and its response on the driver's connection, timed on the capture's clock (ms). */
export interface Exchange {
  /** The client's end of the connection ("127.0.0.1:40312"). */
  conn: string;
  /** The request's first and last payload packets. */
  reqStart: number;
  reqEnd: number;
  /** The response's first payload packet and the one that completed it; null where none came. */
  respFirst: number | null;
  respLast: number | null;
  /** Packet indices of the request's start and the response's first packet (the packets between are the call's). */
  at: { req: number; resp: number | null };
  status: number | null;
  complete: boolean;
  /** Response header values by lower-case name. */
  headers: Record<string, string>;
  body: Buffer;
}

interface Response {
  status: number | null;
  complete: boolean;
  headers: Record<string, string>;
  body: Buffer;
}

/** Pure: an HTTP/1.1 response's bytes so far: its status, headers and body, and whether it is whole. */
export function readResponse(bytes: Buffer): Response {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return { status: null, complete: false, headers: {}, body: Buffer.alloc(0) };
  const lines = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1];
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(":");
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const body = bytes.subarray(end + 4);
  const length = headers["content-length"];
  const complete =
    length !== undefined
      ? body.length >= Number(length)
      : /chunked/i.test(headers["transfer-encoding"] ?? "")
        ? body.subarray(-5).toString("latin1") === "0\r\n\r\n"
        : true;
  return {
    status: status ? Number(status) : null,
    complete,
    headers,
    body: length !== undefined ? body.subarray(0, Number(length)) : body,
  };
}

/**
 * The calls on connections to `port` whose request begins with `request`, in
 * the order they were sent. A response is the server's payload on that
 * connection from the request on, until it is whole.
 */
export function exchangesOf(packets: readonly TcpPacket[], port: number, request: string): Exchange[] {
  const prefix = Buffer.from(request, "latin1");
  const out: Exchange[] = [];
  const open = new Map<string, { x: Exchange; parts: Buffer[] }>();
  packets.forEach((p, i) => {
    if (p.payload.length === 0) return;
    if (p.dstPort === port) {
      const conn = `${p.src}:${p.srcPort}`;
      if (p.payload.subarray(0, prefix.length).equals(prefix)) {
        const x: Exchange = {
          conn,
          reqStart: p.t,
          reqEnd: p.t,
          respFirst: null,
          respLast: null,
          at: { req: i, resp: null },
          status: null,
          complete: false,
          headers: {},
          body: Buffer.alloc(0),
        };
        out.push(x);
        open.set(conn, { x, parts: [] });
      } else {
        const o = open.get(conn);
        if (o && o.x.respFirst === null) o.x.reqEnd = p.t;
      }
    } else if (p.srcPort === port) {
      const o = open.get(`${p.dst}:${p.dstPort}`);
      if (!o || o.x.complete) return;
      if (o.x.respFirst === null) {
        o.x.respFirst = p.t;
        o.x.at.resp = i;
      }
      o.x.respLast = p.t;
      o.parts.push(p.payload);
      Object.assign(o.x, readResponse(Buffer.concat(o.parts)));
    }
  });
  return out;
}

/** Pure: the payloads of the WebSocket frames a packet's bytes begin with, unmasked (a frame cut short gives what is there). */
export function wsPayloads(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at + 2 <= buf.length) {
    const b1 = buf[at + 1];
    let len = b1 & 0x7f;
    let head = 2;
    if (len === 126) {
      if (at + 4 > buf.length) break;
      len = buf.readUInt16BE(at + 2);
      head = 4;
    } else if (len === 127) {
      if (at + 10 > buf.length) break;
      len = Number(buf.readBigUInt64BE(at + 2));
      head = 10;
    }
    const key = b1 & 0x80 ? buf.subarray(at + head, at + head + 4) : null;
    if (key) head += 4;
    const data = Buffer.from(buf.subarray(at + head, Math.min(at + head + len, buf.length)));
    if (key && key.length === 4) for (let i = 0; i < data.length; i++) data[i] ^= key[i & 3];
    out.push(data);
    at += head + len;
  }
  return out;
}

/** A direction of one connection: from one end to the other. */
export interface Flow {
  src: string;
  srcPort: number;
  dst: string;
  dstPort: number;
}

const onFlow = (p: TcpPacket, f: Flow) => p.src === f.src && p.srcPort === f.srcPort && p.dst === f.dst && p.dstPort === f.dstPort;
export const reverse = (f: Flow): Flow => ({ src: f.dst, srcPort: f.dstPort, dst: f.src, dstPort: f.srcPort });

/**
 * The index of the first packet in [from, to) with `marker` in its payload
 * (read through `view`), on `flow` where given, else on any connection but
 * the client's `exclude`; -1 where none.
 */
export function firstCarrying(
  packets: readonly TcpPacket[],
  from: number,
  to: number,
  marker: Buffer,
  o: { flow?: Flow; exclude?: string; view?: (payload: Buffer) => Buffer[] },
): number {
  if (marker.length === 0) return -1;
  for (let i = from; i < to; i++) {
    const p = packets[i];
    if (p.payload.length === 0) continue;
    if (o.flow ? !onFlow(p, o.flow) : `${p.src}:${p.srcPort}` === o.exclude || `${p.dst}:${p.dstPort}` === o.exclude) continue;
    const views = o.view ? o.view(p.payload) : [p.payload];
    if (views.some((v) => v.includes(marker))) return i;
  }
  return -1;
}
