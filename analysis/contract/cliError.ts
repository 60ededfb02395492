/**
 * How every command ends on an error: one line that says what is wrong,
 * never a stack trace (the message's first line; a thrown non-Error as text).
 */
export function failureLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split("\n")[0].trim() || (err instanceof Error ? err.name : "unknown error");
}

/** Whether a command was asked for its usage (`--help` or `-h` anywhere): then it prints the usage on standard output and exits 0. */
export const wantsHelp = (argv: readonly string[]): boolean => argv.includes("--help") || argv.includes("-h");
