/**
 * A run's waterfalls: every captured stage (--capture) read from its
 * repetitions' capture files and samples, one row per side and metric. Pure
 * given `read` (a listed file's verified bytes).
 */
import { captureNoteOf, otlpOf } from "../contract/hops";
import { stageReps, stageKey, type ManifestLike } from "../contract/runDirContract";
import { sideBookOf } from "../contract/sideProfile";
import { cutStage, medianCalls, segmentsOf, waterfall, type CallCut, type HopSample, type Waterfall } from "./hops";
import { spanIndex, spansOfCalls, type CallSpans, type SpanIndex, type TracedCall } from "./engineSpans";
import { exportSpans, grpcMessages, OtlpError } from "./otlp";
import { PcapError, pcapBaseSec, readPcap } from "./pcap";

export interface HopRow {
  side: string;
  metric: string;
  /** Repetitions captured. */
  reps: number;
  waterfall: Waterfall | null;
  /** Failed samples (no round trip to cut) over the captured repetitions. */
  failed: number;
  /** Succeeded calls whose inner hop was not on the wire (not in the waterfall). */
  noInnerHop: number;
  /** Per repetition whose capture could not be read or matched: why (its calls are not in the waterfall). */
  refused: string[];
  /** Packets the kernel dropped during the captures (tcpdump's count), summed. */
  dropped: number;
  /** The runtime's own spans in the median calls' traces, where the run kept its trace exports (--otel). */
  spans?: CallSpans;
}

/** A cut call as a call to find in the runtime's spans: its request id and its time on the wire since the epoch. */
const tracedCall = (x: CallCut, baseSec: number): TracedCall[] => {
  if (!x.ray || !x.wire) return [];
  const ns = (t: number) => BigInt(baseSec) * 1_000_000_000n + BigInt(Math.round(t * 1e6));
  return [{ id: x.ray, fromNs: ns(x.wire.from), toNs: ns(x.wire.to) }];
};

/** A side's trace exports of one repetition (--otel), read once: its spans indexed, or why they cannot be read. */
function tracesReader(m: ManifestLike, read: (file: string) => Buffer) {
  const cache = new Map<string, ReturnType<typeof spanIndex> | string>();
  return (side: string, rep: number): ReturnType<typeof spanIndex> | string | null => {
    const file = Object.keys(m.files).find((f) => otlpOf(f)?.side === side && otlpOf(f)?.rep === rep);
    if (!file) return null;
    if (!cache.has(file)) {
      try {
        cache.set(file, spanIndex(grpcMessages(read(file)).flatMap(exportSpans)));
      } catch (err) {
        if (!(err instanceof OtlpError)) throw err;
        cache.set(file, `${file}: ${err.message}`);
      }
    }
    return cache.get(file)!;
  };
}

/** The waterfall rows of a run's captured stages, in its stage order; none in a run made without --capture. */
export function hopRows(
  m: ManifestLike,
  samplesOf: (key: string) => ReadonlyArray<HopSample & { rep?: number }>,
  read: (file: string) => Buffer,
): HopRow[] {
  const book = sideBookOf(m);
  const traces = tracesReader(m, read);
  const out: HopRow[] = [];
  for (const st of Object.values(m.stages)) {
    const spec = book.get(st.side).hops;
    const parts = stageReps(st)
      .map((r) => ({ rep: r.rep, note: captureNoteOf(r.notes) }))
      .filter((p) => p.note !== null);
    if (!spec || parts.length === 0) continue;
    const all = samplesOf(stageKey(st.side, st.metric));
    const row: HopRow = {
      side: st.side,
      metric: st.metric,
      reps: parts.length,
      waterfall: null,
      failed: 0,
      noInnerHop: 0,
      refused: [],
      dropped: 0,
    };
    const cuts: CallCut[][] = [];
    const traced: Array<{ index: SpanIndex; calls: TracedCall[] }> = [];
    for (const { rep, note } of parts) {
      const where = `repetition ${rep + 1}`;
      if (note!.error || !(note!.file in m.files)) {
        row.refused.push(
          `${where}: ${note!.error ? `the capture failed: ${note!.error}` : `${note!.file} is not listed with a hash in the manifest`}`,
        );
        continue;
      }
      row.dropped += note!.droppedByKernel ?? 0;
      if (note!.droppedByKernel) {
        row.refused.push(`${where}: the kernel dropped ${note!.droppedByKernel} packets`);
        continue;
      }
      let packets: ReturnType<typeof readPcap>;
      let baseSec: number | null;
      try {
        const bytes = read(note!.file);
        packets = readPcap(bytes);
        baseSec = pcapBaseSec(bytes);
      } catch (err) {
        if (!(err instanceof PcapError)) throw err;
        row.refused.push(`${where}: ${note!.file}: ${err.message}`);
        continue;
      }
      const c = cutStage(
        packets,
        note!.port,
        all.filter((s) => (s.rep ?? 0) === rep),
        spec,
        book.get(st.side).msIsClientClock,
      );
      if (!c.ok) {
        row.refused.push(`${where}: ${c.why}`);
        continue;
      }
      row.failed += c.failed;
      row.noInnerHop += c.noInnerHop;
      cuts.push(c.calls);
      const index = traces(st.side, rep);
      if (typeof index === "string") row.refused.push(`${where}: its spans: ${index}`);
      else if (index && baseSec !== null) traced.push({ index, calls: medianCalls(c.calls).flatMap((x) => tracedCall(x, baseSec)) });
    }
    row.waterfall = waterfall(segmentsOf(spec), cuts);
    if (traced.length) row.spans = spansOfCalls(traced);
    out.push(row);
  }
  return out;
}
