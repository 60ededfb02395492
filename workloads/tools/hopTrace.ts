/**
 * Which hop holds a repro's time: the loopback captured while a repro's calls
 * run, each gateway call then followed from the wire (analysis/stats/hops.ts,
 * by the identifiers it carries, so concurrent calls are told apart). An
 * answered call is cut at the Engine's hops; one that got no answer says
 * whether the Engine sent the RivetKit process anything naming its actor.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nearestRank } from "../../analysis/stats/percentiles";
import { innerParts } from "../../analysis/stats/hops";
import { readPcap, type TcpPacket } from "../../analysis/stats/pcap";
import { exchangesOf, firstCarrying } from "../../analysis/stats/wire";
import { captureAvailable, startCapture } from "../host/capture";
import { loopbackPort } from "../run/stageCapture";
import { RIVET_PROFILE } from "../sides/rivet/profile";

const SPEC = RIVET_PROFILE.hops!;
const INNER = SPEC.inner!;
/** An answered call's parts, in the order a call crosses them. */
export const PARTS = {
  engineIn: "the Engine, request in to the actor named to RivetKit",
  start: "the actor's start (named to call forwarded)",
  rivetkit: "the RivetKit process (call forwarded to reply back)",
  engineOut: "the Engine, reply in to response out",
} as const;
type Part = keyof typeof PARTS;

export type CallTrace =
  | { answered: true; spanMs: number; parts: Record<Part, number> | null }
  | { answered: false; spanMs: number; actor: string | null; forwardedAfterMs: number | null };

/** The actor a by-id gateway request names in its path (a by-key one names none until it is answered). */
const actorOfPath = (request: Buffer): string | null =>
  /^POST \/gateway\/([a-z0-9]{20,})\/action\//.exec(request.toString("latin1", 0, 200))?.[1] ?? null;

/** The index of the packet that closed the client's connection `conn` after packet `from` (FIN or RST), else the capture's end. */
function closedAt(packets: readonly TcpPacket[], from: number, conn: string): number {
  for (let i = from + 1; i < packets.length; i++) {
    const p = packets[i];
    if (p.flags & 0x05 && (`${p.src}:${p.srcPort}` === conn || `${p.dst}:${p.dstPort}` === conn)) return i;
  }
  return packets.length - 1;
}

/** Pure: every gateway call in a capture, followed hop by hop; one no answer ended, until its client closed its connection. */
export function traceCalls(packets: readonly TcpPacket[], port: number): CallTrace[] {
  return exchangesOf(packets, port, SPEC.request).map((x): CallTrace => {
    if (x.respFirst !== null && x.complete) {
      const p = innerParts(packets, x, INNER);
      return {
        answered: true,
        spanMs: x.respLast! - x.reqStart,
        parts: p && { engineIn: p.frontIn, start: p.start, rivetkit: p.inner, engineOut: p.frontOut },
      };
    }
    const actor = actorOfPath(packets[x.at.req].payload);
    const end = closedAt(packets, x.at.req, x.conn);
    const fwd = actor ? firstCarrying(packets, x.at.req + 1, end + 1, Buffer.from(actor), { exclude: x.conn }) : -1;
    return {
      answered: false,
      spanMs: (packets[end]?.t ?? x.reqStart) - x.reqStart,
      actor,
      forwardedAfterMs: fwd >= 0 ? packets[fwd].t - x.reqStart : null,
    };
  });
}

/** Pure: the lines a repro prints: where the median answered call spent its time, and what the unanswered ones met. */
export function hopLines(traces: readonly CallTrace[]): string[] {
  const answered = traces.filter((t): t is Extract<CallTrace, { answered: true }> => t.answered);
  const cut = answered.filter((t) => t.parts !== null);
  const lines: string[] = [];
  if (cut.length) {
    const p50 = (k: Part) =>
      nearestRank(
        cut.map((t) => t.parts![k]).sort((a, b) => a - b),
        50,
      );
    const parts = (Object.keys(PARTS) as Part[]).map((k) => ({ k, ms: p50(k) }));
    const top = parts.reduce((a, b) => (b.ms > a.ms ? b : a));
    const span = nearestRank(
      cut.map((t) => t.spanMs).sort((a, b) => a - b),
      50,
    );
    lines.push(
      `hops, ${cut.length} answered calls, each part's p50 (capture clock): ${parts.map((p) => `${PARTS[p.k]} ${p.ms.toFixed(2)} ms`).join("; ")}; the Engine's span of a call ${span.toFixed(2)} ms`,
      `the hop that holds the time: ${PARTS[top.k]} (${((100 * top.ms) / span).toFixed(0)}% of the median span)`,
    );
  }
  if (answered.length > cut.length) lines.push(`hops: ${answered.length - cut.length} answered calls whose inner hop was not on the wire`);
  const silent = traces.filter((t): t is Extract<CallTrace, { answered: false }> => !t.answered);
  if (silent.length) {
    const named = silent.filter((t) => t.actor !== null);
    const forwarded = named.filter((t) => t.forwardedAfterMs !== null);
    lines.push(
      `hops, ${silent.length} calls with no answer on the wire: ${forwarded.length} of the ${named.length} that name their actor were forwarded to the RivetKit process` +
        (forwarded.length ? ` (after ${forwarded.map((t) => t.forwardedAfterMs!.toFixed(0)).join(", ")} ms)` : "") +
        (named.length > forwarded.length
          ? `; for ${named.length - forwarded.length} the Engine sent it nothing naming the actor: the Engine holds the time`
          : ""),
    );
  }
  return lines;
}

/**
 * Runs `body` with the loopback captured (where this machine allows it) and
 * returns its result with the hop lines of every call to `gatewayUrl` it made;
 * where no capture can run, the lines say why.
 */
export async function withHopTrace<T>(gatewayUrl: string, body: () => Promise<T>): Promise<{ result: T; hops: string[] }> {
  const can = captureAvailable();
  const port = loopbackPort(gatewayUrl);
  if (!can.ok || port === null)
    return {
      result: await body(),
      hops: [`hops: not captured (${can.ok ? "the gateway is not on this machine's loopback" : can.reason})`],
    };
  const dir = mkdtempSync(join(tmpdir(), "actor-bench-hops-"));
  try {
    const capture = await startCapture(join(dir, "calls.pcap"), port);
    let result: T;
    try {
      result = await body();
    } finally {
      await capture.stop();
    }
    return { result, hops: hopLines(traceCalls(readPcap(readFileSync(join(dir, "calls.pcap"))), port)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
