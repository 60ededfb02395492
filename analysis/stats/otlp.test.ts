import { describe, expect, it } from "vitest";
import { spanIndex, spansOfCalls } from "./engineSpans";
import { exportSpans, grpcMessages, type Span } from "./otlp";

/** A protobuf encoder just big enough for the test: varints, fixed64 and length-delimited fields. */
const varint = (n: bigint): Buffer => {
  const out: number[] = [];
  let v = n;
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? b | 0x80 : b);
  } while (v > 0n);
  return Buffer.from(out);
};
const key = (n: number, wire: number) => varint(BigInt((n << 3) | wire));
const bytes = (n: number, b: Buffer | string) => {
  const buf = typeof b === "string" ? Buffer.from(b) : b;
  return Buffer.concat([key(n, 2), varint(BigInt(buf.length)), buf]);
};
const fixed64 = (n: number, v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return Buffer.concat([key(n, 1), b]);
};
const kv = (k: string, v: { s?: string; i?: bigint }) =>
  bytes(9, Buffer.concat([bytes(1, k), bytes(2, v.s !== undefined ? bytes(1, v.s) : Buffer.concat([key(3, 0), varint(v.i!)]))]));
const span = (trace: string, id: string, name: string, start: bigint, end: bigint, attrs: Buffer[] = [], parent?: string) =>
  Buffer.concat([
    bytes(1, Buffer.from(trace, "hex")),
    bytes(2, Buffer.from(id, "hex")),
    ...(parent ? [bytes(4, Buffer.from(parent, "hex"))] : []),
    bytes(5, name),
    fixed64(7, start),
    fixed64(8, end),
    ...attrs,
  ]);
const request = (spans: Buffer[]) =>
  bytes(1, Buffer.concat([bytes(1, bytes(1, kv("service.name", { s: "x" }))), bytes(2, Buffer.concat(spans.map((s) => bytes(2, s))))]));
const grpc = (msg: Buffer) => {
  const h = Buffer.alloc(5);
  h.writeUInt32BE(msg.length, 1);
  return Buffer.concat([h, msg]);
};

const T0 = 1_800_000_000_000_000_000n;

describe("OTLP trace exports", () => {
  it("reads spans, their ids, times and attributes out of gRPC frames, one export after another", () => {
    const a = request([
      span("aa".repeat(16), "01".repeat(8), "guard_request", T0, T0 + 3_000_000n, [kv("ray_id", { s: "r1" }), kv("n", { i: 7n })]),
    ]);
    const b = request([span("aa".repeat(16), "02".repeat(8), "resolve_route", T0 + 100n, T0 + 1_500_100n, [], "01".repeat(8))]);
    const spans = grpcMessages(Buffer.concat([grpc(a), grpc(b)])).flatMap(exportSpans);
    expect(spans).toEqual<Span[]>([
      {
        traceId: "aa".repeat(16),
        spanId: "01".repeat(8),
        parentId: null,
        name: "guard_request",
        startNs: T0,
        endNs: T0 + 3_000_000n,
        attrs: { ray_id: "r1", n: 7 },
      },
      {
        traceId: "aa".repeat(16),
        spanId: "02".repeat(8),
        parentId: "01".repeat(8),
        name: "resolve_route",
        startNs: T0 + 100n,
        endNs: T0 + 1_500_100n,
        attrs: {},
      },
    ]);
  });

  it("refuses a compressed frame, a frame cut short and a field that runs past its message, each naming where", () => {
    const msg = request([span("aa".repeat(16), "01".repeat(8), "x", T0, T0 + 1n)]);
    const compressed = grpc(msg);
    compressed[0] = 1;
    expect(() => grpcMessages(compressed)).toThrow(/gRPC frame at byte 0: compressed \(flag 1\)/);
    expect(() => grpcMessages(grpc(msg).subarray(0, 10))).toThrow(/gRPC frame at byte 0: \d+ bytes declared, the file ends first/);
    expect(() => exportSpans(msg.subarray(0, msg.length - 3))).toThrow(/protobuf: field 1 of \d+ bytes runs past the end at byte 0/);
  });
});

describe("a call's own spans", () => {
  it("sums by name only what falls inside the call's time on the wire, over the calls whose request id a span carries", () => {
    const ms = (x: number) => BigInt(Math.round(x * 1e6));
    const s = (trace: string, name: string, from: number, to: number, ray?: string): Span => ({
      traceId: trace,
      spanId: name,
      parentId: null,
      name,
      startNs: T0 + ms(from),
      endNs: T0 + ms(to),
      attrs: ray ? { ray_id: ray } : {},
    });
    const index = spanIndex([
      s("t1", "guard_request", 0, 4, "r1"),
      s("t1", "resolve_route", 1, 2.5),
      // A long span of the same trace: only its part inside the call counts.
      s("t1", "workflow", -100, 100),
      s("t2", "guard_request", 10, 12, "r2"),
    ]);
    const out = spansOfCalls([
      {
        index,
        calls: [
          { id: "r1", fromNs: T0, toNs: T0 + ms(4) },
          { id: "r2", fromNs: T0 + ms(10), toNs: T0 + ms(12) },
          { id: "r3", fromNs: T0, toNs: T0 + ms(1) },
        ],
      },
    ]);
    expect(out.calls).toBe(3);
    expect(out.traced).toBe(2);
    const row = (n: string) => out.rows.find((r) => r.name === n)!;
    expect(row("guard_request").msPerCall).toBeCloseTo(3, 9);
    expect(row("workflow").msPerCall).toBeCloseTo(2, 9);
    expect(row("resolve_route")).toMatchObject({ perCall: 0.5 });
    expect(out.rows[0].name).toBe("guard_request");
  });
});
