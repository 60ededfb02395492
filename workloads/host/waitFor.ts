import { readFileSync } from "node:fs";
import type { Managed } from "./processes";

/** Last `lines` lines of some output, for error messages. */
export function textTail(text: string, lines = 15): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

/** Last `lines` lines of a log file, for error messages. */
export function logTail(file: string, lines = 15): string {
  try {
    return textTail(readFileSync(file, "utf8"), lines);
  } catch {
    return "(no log)";
  }
}

/**
 * Polls `probe` every `intervalMs` until it returns true. Fails with a message
 * that names the process and shows its log when the process exits first or
 * the deadline passes.
 */
export async function waitUntil(
  what: string,
  proc: Managed,
  logFile: string,
  timeoutMs: number,
  probe: () => Promise<boolean> | boolean,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: { code: number | null; signal: string | null } | undefined;
  void proc.exited.then((e) => (exited = e));
  for (;;) {
    if (exited) {
      throw new Error(
        `${proc.name} exited (code ${exited.code}, signal ${exited.signal}) before ${what}. Last log lines of ${logFile}:\n${logTail(logFile)}`,
      );
    }
    if (await probe().valueOf()) return;
    if (Date.now() > deadline) {
      throw new Error(`${proc.name}: ${what} did not happen within ${timeoutMs} ms. Last log lines of ${logFile}:\n${logTail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
