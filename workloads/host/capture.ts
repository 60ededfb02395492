/**
 * A packet capture of the loopback while a stage runs: tcpdump (Debian's) writes
 * every TCP packet on `lo` to a pcap file with nanosecond timestamps; the
 * project parses the file itself (analysis/stats/pcap.ts), never tcpdump's text.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { spawnManaged } from "./processes";
import { waitUntil } from "./waitFor";

const CAPTURE_BUFFER_KIB = 32_768;
/**
 * Bytes kept of each packet: the identifiers a call is followed by (a request's line, a response's headers and
 * body, the front's forwarded message, the inner process's reply) sit in a packet's first few hundred bytes; the
 * rest (SQLite pages on their way to the Engine's storage) would make the committed captures five times larger.
 */
export const SNAP_BYTES = 1024;

/**
 * tcpdump's arguments: the loopback, each packet's first SNAP_BYTES, nanosecond stamps, the TCP of one port (the
 * driver's: the connections a runtime's own processes make to it too), handed over as they come and written when it stops.
 */
export function tcpdumpArgv(file: string, port: number, euid: number | undefined = process.geteuid?.()): string[] {
  return [
    "-i",
    "lo",
    // Not promiscuous: the loopback's own packets are all there are to see.
    "-p",
    "-s",
    String(SNAP_BYTES),
    // Each packet handed over as it comes, not in blocks a stop would leave unread; the file is written as tcpdump
    // stops (no flush per packet, which costs it the time to keep up with a fast side).
    "--immediate-mode",
    // A larger kernel buffer (KiB) than the 2 MiB default: a burst must not overflow it.
    "-B",
    String(CAPTURE_BUFFER_KIB),
    "--time-stamp-precision=nano",
    // As root tcpdump would drop to its own user (which may not write the run directory): it stays root, on lo only.
    ...(euid === 0 ? ["-Z", "root"] : []),
    "-w",
    file,
    "tcp",
    "port",
    String(port),
  ];
}

/** Whether a capture can run here: tcpdump installed and allowed to open the loopback (root, or its capabilities). */
export function captureAvailable(): { ok: true } | { ok: false; reason: string } {
  const r = spawnSync("tcpdump", ["-i", "lo", "-d", "tcp"], { encoding: "utf8", timeout: 10_000 });
  if (r.error) return { ok: false, reason: `tcpdump: ${r.error.message} (apt-get install tcpdump)` };
  if (r.status !== 0) {
    const why = (r.stderr || "").trim().split("\n").at(-1) ?? `exit ${r.status}`;
    return { ok: false, reason: `tcpdump cannot capture the loopback here: ${why} (run as root)` };
  }
  return { ok: true };
}

/** What tcpdump said of its capture when it stopped. */
export interface CaptureCounts {
  captured: number | null;
  /** Packets the kernel dropped: any means calls may be missing from the file, and the stage's hops are not read. */
  droppedByKernel: number | null;
}

/** Pure: the counts tcpdump prints on stderr when it ends. */
export function captureCounts(stderr: string): CaptureCounts {
  const n = (re: RegExp) => {
    const m = re.exec(stderr);
    return m ? Number(m[1]) : null;
  };
  return { captured: n(/^(\d+) packets? captured$/m), droppedByKernel: n(/^(\d+) packets? dropped by kernel$/m) };
}

/** How long a stop waits for packets already sent to reach tcpdump. */
const STOP_GRACE_MS = 100;

export interface Capture {
  /** Ends the capture (tcpdump flushes the file) and says what it counted. */
  stop(): Promise<CaptureCounts>;
}

/**
 * Starts tcpdump on the loopback's `port` writing `file` (a managed process: it ends
 * with the run, whatever stops it); resolves once it says it is listening.
 */
export async function startCapture(file: string, port: number, timeoutMs = 10_000): Promise<Capture> {
  const logFile = join(mkdtempSync(join(tmpdir(), "actor-bench-capture-")), "tcpdump.log");
  const said = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");
  const tcpdump = spawnManaged({ name: "tcpdump", command: "tcpdump", args: tcpdumpArgv(file, port), logFile, env: process.env });
  try {
    await waitUntil("listening on lo", tcpdump, logFile, timeoutMs, () => /listening on lo/.test(said()), 20);
  } catch (err) {
    await tcpdump.stop(0);
    rmSync(dirname(logFile), { recursive: true, force: true });
    throw new Error(`packet capture: ${(err as Error).message}`);
  }
  return {
    async stop() {
      // The last reply's packets may still be on their way to tcpdump: a moment for them, then SIGTERM (it writes what it
      // holds and prints its counts). A packet lost anyway leaves the stage's calls unmatched, never mismatched.
      await new Promise((r) => setTimeout(r, STOP_GRACE_MS));
      await tcpdump.stop();
      const counts = captureCounts(said());
      rmSync(dirname(logFile), { recursive: true, force: true });
      return counts;
    },
  };
}
