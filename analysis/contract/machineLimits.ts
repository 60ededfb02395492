/**
 * Failures that come from a limit of the machine the run is on (open files,
 * memory, ports) rather than from the runtime under test. They are named as
 * such while the run runs, in the stage's record and in the report, so a
 * local artifact never passes for the runtime's behaviour.
 */
const MACHINE_LIMITS = [
  // workerd cannot open a DO's SQLite file once it is out of descriptors; Node and undici say EMFILE.
  { kind: "open files", pattern: /EMFILE|ENFILE|Too many open files|SQLITE_CANTOPEN|unable to open database file/ },
  { kind: "memory", pattern: /SQLITE_NOMEM|out of memory|ENOMEM|Cannot allocate memory|std::bad_alloc/i },
  { kind: "ports", pattern: /EADDRNOTAVAIL|EADDRINUSE/ },
] as const;

type MachineLimit = (typeof MACHINE_LIMITS)[number]["kind"];

/** The machine limit a failure's text names, or null. */
export function machineLimitOf(text: string): MachineLimit | null {
  return MACHINE_LIMITS.find((l) => l.pattern.test(text))?.kind ?? null;
}

/** Counts of lines naming each machine limit, in a runtime's log (stack lines skipped). */
export function machineLimitLines(log: string): Partial<Record<MachineLimit, number>> {
  const out: Partial<Record<MachineLimit, number>> = {};
  for (const line of log.split("\n")) {
    if (line.startsWith("stack:")) continue;
    const kind = machineLimitOf(line);
    if (kind) out[kind] = (out[kind] ?? 0) + 1;
  }
  return out;
}

/** A stage whose failures exceed this share of its attempts is flagged in the headline. */
export const FLAG_FAILURE_SHARE = 0.01;

export function flagged(attempts: number, errors: number): boolean {
  return attempts > 0 && errors / attempts > FLAG_FAILURE_SHARE;
}

/** What a stage's record holds about it (notes.machineLimit). */
export interface MachineLimitNote {
  /** Failed samples whose own error names a limit. */
  samples: Partial<Record<MachineLimit, number>>;
  /** The runtime's log lines naming one, written while the stage ran. */
  runtimeLog: Partial<Record<MachineLimit, number>>;
}

/** One line for the run's output and the report: "open files (87 workerd log lines), memory (2 samples)". */
export function describeMachineLimit(note: MachineLimitNote, runtime: string): string {
  // A note from another machine may be of another shape: read only the counts it holds as objects.
  const asCounts = (x: unknown) =>
    typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Partial<Record<MachineLimit, number>>) : {};
  const n = { samples: asCounts(note?.samples), runtimeLog: asCounts(note?.runtimeLog) };
  const kinds = new Set([...Object.keys(n.samples), ...Object.keys(n.runtimeLog)]) as Set<MachineLimit>;
  return [...kinds]
    .map((k) => {
      const parts = [
        n.samples[k] ? `${n.samples[k]} failed samples say so` : "",
        n.runtimeLog[k] ? `${n.runtimeLog[k]} ${runtime} log lines` : "",
      ].filter(Boolean);
      return `${k} (${parts.join(", ")})`;
    })
    .join(", ");
}
