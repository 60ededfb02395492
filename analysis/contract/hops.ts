/**
 * The stages a run's packet capture covers (--capture) and where it keeps
 * each repetition's capture: raw/<side>.<metric>.rep<N>.pcap; and where a run
 * made with --otel keeps the trace exports a side's runtime sent its collector:
 * raw/<side>.otlp.rep<N>.grpc. Both are hashed in the manifest like the
 * samples and stored compressed once the run ends.
 */

/** The stages captured: every operation's one-call-at-a-time series, so each request on the wire is one sample. */
export const HOP_METRICS = [
  "warm.ping",
  "create.ping",
  "create.read",
  "create.write",
  "wake.ping",
  "wake.read",
  "wake.write",
  "sqlite.read",
  "sqlite.write",
  "sqlite.scan",
] as const;

export const isHopMetric = (metric: string): boolean => (HOP_METRICS as readonly string[]).includes(metric);

export const captureFileName = (side: string, metric: string, rep: number) => `raw/${side}.${metric}.rep${rep}.pcap`;

/** A listed capture's side, metric and repetition, or null where the name is not a capture's. */
export function captureOf(name: string): { side: string; metric: string; rep: number } | null {
  const m = /^raw\/([a-z]+)\.([A-Za-z0-9][A-Za-z0-9.-]*)\.rep(\d{1,4})\.pcap$/.exec(name);
  return m ? { side: m[1], metric: m[2], rep: Number(m[3]) } : null;
}

/** What a captured stage's record notes, per repetition: its capture file, the driver's port on the loopback, tcpdump's counts. */
export interface CaptureNote {
  file: string;
  port: number;
  captured?: number | null;
  droppedByKernel?: number | null;
  /** Why the capture failed to start or stop, where it did: the stage ran and its samples stand. */
  error?: string;
}

/** Pure: a stage note's capture, where it is one. */
export function captureNoteOf(notes: Record<string, unknown> | undefined): CaptureNote | null {
  const c = notes?.capture as CaptureNote | undefined;
  return c && typeof c.file === "string" && Number.isInteger(c.port) && captureOf(c.file) ? c : null;
}

export const otlpFileName = (side: string, rep: number) => `raw/${side}.otlp.rep${rep}.grpc`;

/** A listed trace file's side and repetition, or null where the name is not one. */
export function otlpOf(name: string): { side: string; rep: number } | null {
  const m = /^raw\/([a-z]+)\.otlp\.rep(\d{1,4})\.grpc$/.exec(name);
  return m ? { side: m[1], rep: Number(m[2]) } : null;
}
