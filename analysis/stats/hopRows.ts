/**
 * A run's waterfalls: every captured stage (--capture) read from its
 * repetitions' capture files and samples, one row per side and metric. Pure
 * given `read` (a listed file's verified bytes).
 */
import { captureNoteOf } from "../contract/hops";
import { stageReps, stageKey, type ManifestLike } from "../contract/runDirContract";
import { sideBookOf } from "../contract/sideProfile";
import { cutStage, segmentsOf, waterfall, type CallCut, type HopSample, type Waterfall } from "./hops";
import { PcapError, readPcap } from "./pcap";

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
}

/** The waterfall rows of a run's captured stages, in its stage order; none in a run made without --capture. */
export function hopRows(
  m: ManifestLike,
  samplesOf: (key: string) => ReadonlyArray<HopSample & { rep?: number }>,
  read: (file: string) => Buffer,
): HopRow[] {
  const book = sideBookOf(m);
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
    for (const { rep, note } of parts) {
      const where = `repetition ${rep + 1}`;
      if (note!.error) {
        row.refused.push(`${where}: the capture failed: ${note!.error}`);
        continue;
      }
      row.dropped += note!.droppedByKernel ?? 0;
      if (note!.droppedByKernel) {
        row.refused.push(`${where}: the kernel dropped ${note!.droppedByKernel} packets`);
        continue;
      }
      let packets: ReturnType<typeof readPcap>;
      try {
        packets = readPcap(read(note!.file));
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
    }
    row.waterfall = waterfall(segmentsOf(spec), cuts);
    out.push(row);
  }
  return out;
}
