import { describe, expect, it } from "vitest";
import type { TcpPacket } from "../../analysis/stats/pcap";
import { hopLines, traceCalls } from "./hopTrace";

const pkt = (t: number, from: number, to: number, payload: string | Buffer, flags = 0x18): TcpPacket => ({
  t,
  src: "127.0.0.1",
  dst: "127.0.0.1",
  srcPort: from,
  dstPort: to,
  seq: 0,
  flags,
  payload: typeof payload === "string" ? Buffer.from(payload, "latin1") : payload,
});
const masked = (text: string) => {
  const key = Buffer.from([7, 7, 7, 7]);
  const data = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x82, 0x80 | data.length]), key, Buffer.from(data.map((b, i) => b ^ key[i & 3]))]);
};
const ACTOR = "a".repeat(30);
const BODY = '{"output":{"actorMs":0.004}}';

/** The gateway on 6420, the RivetKit process's connection to it from 7000; clients from 5001 on. */
const answered = (t: number, client: number): TcpPacket[] => [
  pkt(t, client, 6420, `POST /gateway/${ACTOR}/action/ping HTTP/1.1\r\n\r\n`),
  pkt(t + 3, 6420, 7000, `tunnel ray-${client} ${ACTOR}`),
  pkt(t + 3.8, 7000, 6420, masked(BODY)),
  pkt(
    t + 4.1,
    6420,
    client,
    `HTTP/1.1 200 OK\r\nx-rivet-ray-id: ray-${client}\r\nx-rivet-actor: ${ACTOR}\r\ncontent-length: ${BODY.length}\r\n\r\n${BODY}`,
  ),
];

describe("following a repro's calls from the wire", () => {
  it("says which hop holds an answered call's time, and whether the Engine forwarded the calls that got no answer", () => {
    const packets = [
      ...answered(0, 5001),
      ...answered(10, 5002),
      ...answered(20, 5003),
      // The Engine sends nothing naming the actor; the client gives up (FIN) at 5 s.
      pkt(30, 5004, 6420, `POST /gateway/${ACTOR}/action/ping HTTP/1.1\r\n\r\n`),
      pkt(5030, 5004, 6420, "", 0x11),
      // Forwarded 2 ms in, never answered.
      pkt(5040, 5005, 6420, `POST /gateway/${ACTOR}/action/ping HTTP/1.1\r\n\r\n`),
      pkt(5042, 6420, 7000, `tunnel ray-x ${ACTOR}`),
      pkt(10040, 5005, 6420, "", 0x11),
    ];
    const traces = traceCalls(packets, 6420);
    expect(traces.map((t) => t.answered)).toEqual([true, true, true, false, false]);
    expect(traces[0]).toMatchObject({ answered: true, parts: { engineIn: 3, start: 0 } });
    expect(traces[3]).toMatchObject({ answered: false, actor: ACTOR, forwardedAfterMs: null, spanMs: 5000 });
    expect(traces[4]).toMatchObject({ answered: false, forwardedAfterMs: 2 });
    const lines = hopLines(traces);
    expect(lines[1]).toBe("the hop that holds the time: the Engine, request in to the actor named to RivetKit (73% of the median span)");
    expect(lines[2]).toMatch(
      /^hops, 2 calls with no answer on the wire: 1 of the 2 that name their actor were forwarded to the RivetKit process \(after 2 ms\); for 1 the Engine sent it nothing naming the actor/,
    );
  });
});
