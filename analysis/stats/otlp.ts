/**
 * OpenTelemetry trace exports as a runtime sent them (OTLP over gRPC): the
 * request bodies a run's collector kept, gRPC-framed one after another, read
 * into spans. Only what the waterfall uses is read: ids, name, times and the
 * string, integer and boolean attributes. Pure; bytes that are not what they
 * say are an OtlpError naming the offset.
 */

export class OtlpError extends Error {}

export interface Span {
  traceId: string;
  spanId: string;
  parentId: string | null;
  name: string;
  /** Start and end, ns since the epoch, as the exporter stamped them. */
  startNs: bigint;
  endNs: bigint;
  attrs: Record<string, string | number | boolean>;
}

type Field = { n: number; wire: number; at: number; varint?: bigint; bytes?: Buffer };

function varint(buf: Buffer, at: number): { v: bigint; at: number } {
  let v = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    if (at >= buf.length) throw new OtlpError(`protobuf: a varint runs past the end at byte ${at}`);
    const b = buf[at++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return { v, at };
  }
  throw new OtlpError(`protobuf: a varint longer than ten bytes at byte ${at}`);
}

/** Pure: a protobuf message's fields in order (groups are not read: OTLP has none). */
export function fieldsOf(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const key = varint(buf, at);
    const n = Number(key.v >> 3n);
    const wire = Number(key.v & 7n);
    const start = at;
    at = key.at;
    if (wire === 0) {
      const v = varint(buf, at);
      out.push({ n, wire, at: start, varint: v.v });
      at = v.at;
    } else if (wire === 1 || wire === 5) {
      const len = wire === 1 ? 8 : 4;
      if (at + len > buf.length) throw new OtlpError(`protobuf: a fixed field runs past the end at byte ${start}`);
      out.push({ n, wire, at: start, bytes: buf.subarray(at, at + len) });
      at += len;
    } else if (wire === 2) {
      const len = varint(buf, at);
      at = len.at;
      if (at + Number(len.v) > buf.length) throw new OtlpError(`protobuf: field ${n} of ${len.v} bytes runs past the end at byte ${start}`);
      out.push({ n, wire, at: start, bytes: buf.subarray(at, at + Number(len.v)) });
      at += Number(len.v);
    } else throw new OtlpError(`protobuf: wire type ${wire} at byte ${start} is not one OTLP uses`);
  }
  return out;
}

const sub = (fs: Field[], n: number) => fs.filter((f) => f.n === n && f.bytes).map((f) => f.bytes!);

/** An AnyValue's string, integer, double or boolean; null for the kinds the waterfall does not read. */
function anyValue(buf: Buffer): string | number | boolean | null {
  for (const f of fieldsOf(buf)) {
    if (f.n === 1 && f.bytes) return f.bytes.toString("utf8");
    if (f.n === 2 && f.varint !== undefined) return f.varint !== 0n;
    if (f.n === 3 && f.varint !== undefined) return Number(BigInt.asIntN(64, f.varint));
    if (f.n === 4 && f.bytes) return f.bytes.readDoubleLE(0);
  }
  return null;
}

function spanOf(buf: Buffer): Span {
  const fs = fieldsOf(buf);
  const one = (n: number) => fs.find((f) => f.n === n);
  const hex = (n: number) => one(n)?.bytes?.toString("hex") ?? "";
  const attrs: Span["attrs"] = {};
  for (const kv of sub(fs, 9)) {
    const k = fieldsOf(kv);
    const key = k.find((f) => f.n === 1)?.bytes?.toString("utf8");
    const value = k.find((f) => f.n === 2)?.bytes;
    const v = value ? anyValue(value) : null;
    if (key !== undefined && v !== null) attrs[key] = v;
  }
  return {
    traceId: hex(1),
    spanId: hex(2),
    parentId: hex(4) || null,
    name: one(5)?.bytes?.toString("utf8") ?? "",
    startNs: one(7)?.bytes?.readBigUInt64LE(0) ?? 0n,
    endNs: one(8)?.bytes?.readBigUInt64LE(0) ?? 0n,
    attrs,
  };
}

/** Pure: the spans of one ExportTraceServiceRequest (resource spans, scope spans, spans). */
export function exportSpans(msg: Buffer): Span[] {
  return sub(fieldsOf(msg), 1).flatMap((rs) => sub(fieldsOf(rs), 2).flatMap((ss) => sub(fieldsOf(ss), 2).map(spanOf)));
}

/** Pure: gRPC messages one after another (a flag byte, a 4-byte length, the message), as the collector kept them. */
export function grpcMessages(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < buf.length; ) {
    if (at + 5 > buf.length) throw new OtlpError(`gRPC frame at byte ${at}: its header is cut short`);
    if (buf[at] !== 0) throw new OtlpError(`gRPC frame at byte ${at}: compressed (flag ${buf[at]}), which the collector refuses`);
    const len = buf.readUInt32BE(at + 1);
    if (at + 5 + len > buf.length) throw new OtlpError(`gRPC frame at byte ${at}: ${len} bytes declared, the file ends first`);
    out.push(buf.subarray(at + 5, at + 5 + len));
    at += 5 + len;
  }
  return out;
}
