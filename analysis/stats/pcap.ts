/**
 * A pcap file (the classic format tcpdump -w writes) read into its TCP
 * packets: when each crossed the wire, between which ends, and its payload.
 * Pure; a file that is not what it says is a PcapError naming the offset.
 */

export class PcapError extends Error {}

export interface TcpPacket {
  /** When the kernel saw it, ms from the start of the second the file's first packet fell in (the capture's clock, not the driver's). */
  t: number;
  src: string;
  dst: string;
  srcPort: number;
  dstPort: number;
  seq: number;
  /** TCP flags byte: FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10. */
  flags: number;
  payload: Buffer;
}

/** Bytes before the IP header for each link type this reads (Ethernet, Linux cooked v1 and v2, raw IP). */
const LINK_HEADER: Record<number, number> = { 1: 14, 113: 16, 276: 20, 101: 0, 12: 0 };

function header(buf: Buffer): { le: boolean; nano: boolean; link: number } {
  if (buf.length < 24) throw new PcapError(`not a pcap file: ${buf.length} bytes, shorter than its 24-byte header`);
  const magics: Record<number, { le: boolean; nano: boolean }> = {
    2712847316: { le: false, nano: false },
    2712812621: { le: false, nano: true },
    3569595041: { le: true, nano: false },
    1295823521: { le: true, nano: true },
  };
  const m = magics[buf.readUInt32BE(0)];
  if (!m) throw new PcapError(`not a pcap file: magic 0x${buf.readUInt32BE(0).toString(16)} (pcapng is not read: write with tcpdump -w)`);
  const link = m.le ? buf.readUInt32LE(20) : buf.readUInt32BE(20);
  if (!((link & 0xffff) in LINK_HEADER))
    throw new PcapError(`pcap link type ${link} is not one this reads (Ethernet, Linux cooked, raw IP)`);
  return { ...m, link: link & 0xffff };
}

const ip4 = (b: Buffer, at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;

/** The TCP packet in one record's bytes, or null when it is not TCP over IPv4 or IPv6. */
function tcpOf(frame: Buffer, linkBytes: number): Omit<TcpPacket, "t"> | null {
  let at = linkBytes;
  if (frame.length < at + 20) return null;
  const version = frame[at] >> 4;
  let proto: number;
  let end: number;
  let src: string;
  let dst: string;
  if (version === 4) {
    const ihl = (frame[at] & 0x0f) * 4;
    proto = frame[at + 9];
    end = at + frame.readUInt16BE(at + 2);
    src = ip4(frame, at + 12);
    dst = ip4(frame, at + 16);
    at += ihl;
  } else if (version === 6 && frame.length >= at + 40) {
    proto = frame[at + 6];
    end = at + 40 + frame.readUInt16BE(at + 4);
    src = frame.subarray(at + 8, at + 24).toString("hex");
    dst = frame.subarray(at + 24, at + 40).toString("hex");
    at += 40;
  } else return null;
  if (proto !== 6 || frame.length < at + 20) return null;
  const dataAt = at + (frame[at + 12] >> 4) * 4;
  return {
    src,
    dst,
    srcPort: frame.readUInt16BE(at),
    dstPort: frame.readUInt16BE(at + 2),
    seq: frame.readUInt32BE(at + 4),
    flags: frame[at + 13],
    // The IP length bounds the payload (an Ethernet frame may carry padding); the capture's length bounds what is there.
    payload: frame.subarray(Math.min(dataAt, frame.length), Math.min(end, frame.length)),
  };
}

/** The whole second, since the epoch, that a pcap file's packet times count from (its first packet's); null with no packet. */
export function pcapBaseSec(buf: Buffer): number | null {
  const h = header(buf);
  if (buf.length < 24 + 16) return null;
  return h.le ? buf.readUInt32LE(24) : buf.readUInt32BE(24);
}

/** Every TCP packet of a pcap file, in file order. */
export function readPcap(buf: Buffer): TcpPacket[] {
  const h = header(buf);
  const u32 = (at: number) => (h.le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const out: TcpPacket[] = [];
  let first: number | null = null;
  for (let at = 24; at < buf.length; ) {
    if (at + 16 > buf.length) throw new PcapError(`pcap record at byte ${at}: header cut short (the capture was not stopped cleanly)`);
    const sec = u32(at);
    const frac = u32(at + 4);
    const incl = u32(at + 8);
    if (at + 16 + incl > buf.length) throw new PcapError(`pcap record at byte ${at}: ${incl} bytes declared, the file ends first`);
    first ??= sec;
    // Seconds since the first packet's second, then the fraction: an epoch in ms would lose the nanoseconds.
    const t = (sec - first) * 1000 + (h.nano ? frac / 1e6 : frac / 1e3);
    const tcp = tcpOf(buf.subarray(at + 16, at + 16 + incl), LINK_HEADER[h.link]);
    if (tcp) out.push({ t, ...tcp });
    at += 16 + incl;
  }
  return out;
}
