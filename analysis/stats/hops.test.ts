import { describe, expect, it } from "vitest";
import type { HopSpec } from "../contract/sideProfileShape";
import { cutStage, medianCalls, segmentsOf, waterfall, type CallCut } from "./hops";
import { readPcap, type TcpPacket } from "./pcap";
import { exchangesOf, readResponse, wsPayloads } from "./wire";

const RIVET_LIKE: HopSpec = {
  request: "POST /gateway/",
  front: "Engine",
  inner: { process: "runner", forwardHeader: "x-ray", actorHeader: "x-actor", replyFraming: "websocket" },
  own: { field: "actorMs", name: "handler", short: "handler" },
};
const PLAIN: HopSpec = { request: "POST /actor/", front: "server", own: { field: "actorMs", name: "operation", short: "operation" } };

const pkt = (t: number, from: number, to: number, payload: string | Buffer): TcpPacket => ({
  t,
  src: "127.0.0.1",
  dst: "127.0.0.1",
  srcPort: from,
  dstPort: to,
  seq: 0,
  flags: 0x18,
  payload: typeof payload === "string" ? Buffer.from(payload, "latin1") : payload,
});

/** A WebSocket frame as a client sends it: masked with `key`. */
function maskedFrame(data: Buffer, key = Buffer.from([1, 2, 3, 4])): Buffer {
  const masked = Buffer.from(data.map((b, i) => b ^ key[i & 3]));
  return Buffer.concat([Buffer.from([0x82, 0x80 | data.length]), key, masked]);
}

const BODY = '{"output":{"actorMs":0.25,"cold":false}}';
const response = (ray: string) => `HTTP/1.1 200 OK\r\nx-ray: ${ray}\r\nx-actor: act1\r\ncontent-length: ${BODY.length}\r\n\r\n${BODY}`;

/** One call through a front (port 80) that forwards it to an inner process (front port 90, inner 5000), times in ms. */
function rivetCall(t0: number, ray: string, startMs = 0): TcpPacket[] {
  return [
    pkt(t0, 4000, 80, "POST /gateway/act1/action/ping HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}"),
    pkt(t0 + 0.01, 9999, 80, "noise on another connection"),
    ...(startMs > 0 ? [pkt(t0 + 1, 90, 5000, "start actor act1")] : []),
    pkt(t0 + 1 + startMs, 90, 5000, `request ${ray} act1 /action/ping`),
    pkt(t0 + 1.2 + startMs, 5000, 90, maskedFrame(Buffer.from("kv get"))),
    pkt(t0 + 1.6 + startMs, 5000, 90, maskedFrame(Buffer.from(`response ${BODY}`))),
    pkt(t0 + 2 + startMs, 80, 4000, response(ray)),
  ];
}

describe("wire reading", () => {
  it("unmasks a client's WebSocket frames, several in one packet", () => {
    const two = Buffer.concat([maskedFrame(Buffer.from("first")), maskedFrame(Buffer.from("second"), Buffer.from([9, 8, 7, 6]))]);
    expect(wsPayloads(two).map((b) => b.toString())).toEqual(["first", "second"]);
  });

  it("reads an HTTP response whole only once its content-length is there", () => {
    const full = Buffer.from(response("r1"));
    expect(readResponse(full.subarray(0, full.length - 3)).complete).toBe(false);
    const r = readResponse(full);
    expect(r).toMatchObject({ status: 200, complete: true, headers: { "x-ray": "r1" } });
    expect(r.body.toString()).toBe(BODY);
  });

  it("finds each request on the driver's port and its response, other connections ignored", () => {
    const xs = exchangesOf([...rivetCall(10, "r1"), ...rivetCall(20, "r2")], 80, "POST /gateway/");
    expect(xs.map((x) => [x.reqStart, x.respLast, x.headers["x-ray"]])).toEqual([
      [10, 12, "r1"],
      [20, 22, "r2"],
    ]);
  });
});

describe("cutting calls at their hops", () => {
  it("a forwarded call: the Engine's part, the start, the handler, the inner rest, the reply, the driver; they add up to the round trip", () => {
    const samples = [
      { ok: true, ms: 2.5, actorMs: 0.25 },
      { ok: true, ms: 7.4, actorMs: 0.25 },
    ];
    const c = cutStage([...rivetCall(10, "r1"), ...rivetCall(20, "r2", 5)], 80, samples, RIVET_LIKE, true);
    if (!c.ok) throw new Error(c.why);
    const [warm, create] = c.calls;
    expect(warm.values.frontIn).toBeCloseTo(1, 9);
    expect(warm.values.start).toBeCloseTo(0, 9);
    expect(warm.values.rest).toBeCloseTo(0.6 - 0.25, 9);
    expect(warm.values.frontOut).toBeCloseTo(0.4, 9);
    expect(warm.values.driver).toBeCloseTo(0.5, 9);
    expect(create.values.start).toBeCloseTo(5, 9);
    for (const call of c.calls) expect(Object.values(call.values).reduce((s, v) => s + v, 0)).toBeCloseTo(call.rt, 9);
    expect(segmentsOf(RIVET_LIKE).map((s) => s.id)).toEqual(Object.keys(warm.values).sort((a, b) => order(a) - order(b)));
  });

  it("refuses the whole repetition when the counts differ or a span exceeds its round trip: nothing is guessed", () => {
    const packets = rivetCall(10, "r1");
    const two = cutStage(
      packets,
      80,
      [
        { ok: true, ms: 2.5, actorMs: 0.25 },
        { ok: true, ms: 2 },
      ],
      RIVET_LIKE,
      true,
    );
    expect(two).toMatchObject({ ok: false, why: "1 requests on the wire for 2 samples" });
    const short = cutStage(packets, 80, [{ ok: true, ms: 1.5, actorMs: 0.25 }], RIVET_LIKE, true);
    expect(short.ok).toBe(false);
    if (!short.ok) expect(short.why).toMatch(/span 2\.000 ms exceeds its round trip 1\.500 ms/);
  });

  it("a call whose reply does not carry the body is counted out, not cut", () => {
    const packets = rivetCall(10, "r1").filter((p) => !(p.srcPort === 5000 && p.t > 11.5));
    const c = cutStage(packets, 80, [{ ok: true, ms: 2.5, actorMs: 0.25 }], RIVET_LIKE, true);
    expect(c).toMatchObject({ ok: true, calls: [], noInnerHop: 1 });
  });

  it("a side with one hop: its own interval and the rest of the server's time, on the Worker-like clock where ms is the side's", () => {
    const packets = [
      pkt(0, 4000, 80, "POST /actor/ping HTTP/1.1\r\n\r\n"),
      pkt(1, 80, 4000, "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"),
    ];
    const own = cutStage(packets, 80, [{ ok: true, ms: 1.2, actorMs: 0.3 }], PLAIN, true);
    expect(own.ok && own.calls[0].values).toMatchObject({ own: 0.3, rest: 0.7 });
    const worker = cutStage(
      packets,
      80,
      [{ ok: true, ms: 1, clientMs: 1.1 }],
      { ...PLAIN, own: { field: "ms", name: "Worker", short: "Worker" } },
      false,
    );
    expect(worker.ok && worker.calls[0]).toMatchObject({ rt: 1.1, values: { own: 1, rest: 0 } });
  });
});

const order = (id: string) => segmentsOf(RIVET_LIKE).findIndex((s) => s.id === id);

describe("the waterfall over repetitions", () => {
  const call = (rt: number, a: number): CallCut => ({ rt, values: { a, b: rt - a } });
  const segs = [
    { id: "a", label: "a", short: "a", clock: "x" },
    { id: "b", label: "b", short: "b", clock: "x" },
  ];

  it("the median calls are those within 5% of the median round trip, the median call at least", () => {
    const calls = (rts: number[]) => rts.map((rt) => call(rt, 0));
    expect(medianCalls(calls([1, 2, 9.4, 9.6, 10, 10.5, 10.6, 20, 30])).map((c) => c.rt)).toEqual([9.6, 10, 10.5]);
    expect(medianCalls(calls([1, 2, 3])).map((c) => c.rt)).toEqual([2]);
    // The median at a step (five calls about 2 ms, five about 4): the band keeps to the median's side.
    const step = calls([2, 2.01, 2.02, 2.03, 2.04, 4, 4.01, 4.02, 4.03, 4.04]);
    expect(medianCalls(step).map((c) => c.rt)).toEqual([2, 2.01, 2.02, 2.03, 2.04]);
  });

  it("segments at the median calls add up to the round trip's p50 where a bimodal part's own p50s do not", () => {
    // a and b are each 0 or 1 ms (a whole-ms clock): 6 calls of 1 + 1, 5 of 1 + 0, 5 of 0 + 1, 5 of 0 + 0. Each part's p50 is 1,
    // so their p50s sum to 2 ms, against a round trip whose p50 is 1 ms.
    const parts = [...Array(6).fill([1, 1]), ...Array(5).fill([1, 0]), ...Array(5).fill([0, 1]), ...Array(5).fill([0, 0])];
    const rep = (shift: number) => parts.map(([a, b], i) => call(a + b + shift + i * 1e-4, a));
    const w = waterfall(segs, [rep(0), rep(0.01), rep(0.02)])!;
    expect(Math.abs(w.sumGap)).toBeLessThan(0.01);
    expect(w.p50SumGap).toBeGreaterThan(0.4);
    expect(w.calls).toEqual([21, 21, 21]);
    expect(w.roundTrip.p50.ci.lo).toBeLessThan(w.roundTrip.p50.mean);
  });
});

describe("pcap files", () => {
  /** A classic pcap, little-endian, nanosecond stamps, Ethernet frames of IPv4 TCP packets. */
  function pcapOf(packets: Array<{ sec: number; ns: number; sport: number; dport: number; payload: string }>): Buffer {
    const head = Buffer.alloc(24);
    head.writeUInt32LE(0xa1b23c4d, 0);
    head.writeUInt16LE(2, 4);
    head.writeUInt16LE(4, 6);
    head.writeUInt32LE(262144, 16);
    head.writeUInt32LE(1, 20);
    const recs = packets.map((p) => {
      const data = Buffer.from(p.payload);
      const ip = Buffer.alloc(20);
      ip[0] = 0x45;
      ip.writeUInt16BE(20 + 20 + data.length, 2);
      ip[9] = 6;
      Buffer.from([127, 0, 0, 1, 127, 0, 0, 1]).copy(ip, 12);
      const tcp = Buffer.alloc(20);
      tcp.writeUInt16BE(p.sport, 0);
      tcp.writeUInt16BE(p.dport, 2);
      tcp[12] = 5 << 4;
      tcp[13] = 0x18;
      const frame = Buffer.concat([Buffer.alloc(12), Buffer.from([8, 0]), ip, tcp, data]);
      const rec = Buffer.alloc(16);
      rec.writeUInt32LE(p.sec, 0);
      rec.writeUInt32LE(p.ns, 4);
      rec.writeUInt32LE(frame.length, 8);
      rec.writeUInt32LE(frame.length, 12);
      return Buffer.concat([rec, frame]);
    });
    return Buffer.concat([head, ...recs]);
  }

  it("reads ports, payloads and nanosecond times relative to the first packet's second", () => {
    const buf = pcapOf([
      { sec: 1_800_000_000, ns: 999_999_001, sport: 4000, dport: 80, payload: "GET" },
      { sec: 1_800_000_001, ns: 250, sport: 80, dport: 4000, payload: "OK" },
    ]);
    const ps = readPcap(buf);
    expect(ps.map((p) => [p.srcPort, p.dstPort, p.payload.toString()])).toEqual([
      [4000, 80, "GET"],
      [80, 4000, "OK"],
    ]);
    expect(ps[1].t - ps[0].t).toBeCloseTo(0.001249, 9);
  });

  it("a file cut short or not a pcap is a one-line error naming where", () => {
    const buf = pcapOf([{ sec: 1, ns: 0, sport: 1, dport: 2, payload: "x" }]);
    expect(() => readPcap(buf.subarray(0, buf.length - 4))).toThrow(/pcap record at byte 24: \d+ bytes declared, the file ends first/);
    expect(() => readPcap(Buffer.from("0a0d0d0a00000000000000000000000000000000000000000000", "hex"))).toThrow(/pcapng is not read/);
  });
});
