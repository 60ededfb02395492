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

/** The one line that names a flag a command does not take, and the flags it does. */
const unknownFlagLine = (command: string, flag: string, flags: readonly string[]) =>
  `${command}: unknown flag ${flag}; it takes ${flags.length ? flags.join(", ") : "no flags"} (see --help)`;

/**
 * What is wrong with a command's arguments, in one line, or null: the first flag it does not take (by name, with
 * the usage), or too few or too many positional arguments (saying which is missing).
 */
export function argumentProblem(
  argv: readonly string[],
  o: { command: string; flags: readonly string[]; positional: readonly string[]; moreAllowed?: boolean },
): string | null {
  const unknown = argv.find((a) => a.startsWith("-") && !o.flags.includes(a));
  if (unknown) return unknownFlagLine(o.command, unknown, o.flags);
  const given = argv.filter((a) => !a.startsWith("-"));
  if (given.length < o.positional.length) return `${o.command}: missing ${o.positional.slice(given.length).join(" and ")} (see --help)`;
  if (given.length > o.positional.length && !o.moreAllowed)
    return `${o.command}: takes ${o.positional.length ? o.positional.join(" and ") : "no arguments"}, got ${given.length} (see --help)`;
  return null;
}

/**
 * The guard at the top of a command: `--help` prints its usage and exits 0; a flag it does not take is named in one
 * line and exits 2. `valued` flags take the next argument as their value (which may itself start with "--").
 */
export function guardArguments(
  argv: readonly string[],
  o: { command: string; usage: string; flags?: readonly string[]; valued?: readonly string[] },
): void {
  if (wantsHelp(argv)) {
    console.log(o.usage);
    process.exit(0);
  }
  const flags = [...(o.flags ?? []), ...(o.valued ?? [])];
  for (let i = 0; i < argv.length; i++) {
    if ((o.valued ?? []).includes(argv[i])) i++;
    else if (argv[i].startsWith("--") && !flags.includes(argv[i])) {
      console.error(unknownFlagLine(o.command, argv[i], flags));
      process.exit(2);
    }
  }
}
