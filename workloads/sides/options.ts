/**
 * The form every option of a run takes, the run's own (workloads/run/runConfig.ts)
 * and each side's (its package's options): flag, stack key, default, bounds,
 * one line of help, and how a value is read into the draft it sets. The
 * parser, --help, the stack's keys and the docs' flag table are all made
 * from these declarations.
 */
export class UsageError extends Error {}

/** --help: the usage was asked for, not refused; a CLI prints it to stdout and exits 0. */
export class HelpRequested extends UsageError {}

export interface OptionSpec<P> {
  flag: `--${string}`;
  /** The value's shape in the usage text; absent: a switch, which takes no value. */
  value?: string;
  /** The Pulumi stack key (`actor-bench:<key>`) that sets this option on a stack. */
  key?: string;
  /** The default, as the docs and --help say it. */
  default: string;
  /** The default as a stack's Pulumi.yaml declares it, where the option has a key and one value for every preset. */
  stackDefault?: number | string;
  bounds?: string;
  /** integer: a whole number (whole()), which a stack's Pulumi.yaml types integer; absent: a word or list, typed string. */
  kind?: "integer";
  help: string;
  /** The side whose option this is (its package declares it); absent: the run's own. */
  side?: string;
  /** Read where the report is written (the operator's machine), not passed to a stack's runner. */
  reportOnly?: true;
  /** Reads a value into the draft; an error names `name` (the flag, or the stack key). */
  read(v: string, name: string, into: P): void;
}

/** A plain decimal whole number within [min, max] (no sign, exponent, hex or spaces); a UsageError naming `name` and the range otherwise. */
export function wholeNumber(name: string, v: string, min: number, max: number, unit: string): number {
  const n = /^[0-9]{1,10}$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= min && n <= max))
    throw new UsageError(
      `${name} takes a whole number of ${unit} from ${min} to ${max}, written in plain digits; got ${JSON.stringify(v)}`,
    );
  return n;
}

/** A whole-number option: its bounds in the usage text and the docs, its reading checked against them. */
export function whole<P>(
  min: number,
  max: number,
  unit: string,
  set: (p: P, n: number) => void,
): Pick<OptionSpec<P>, "bounds" | "read" | "kind"> {
  return { bounds: `${min} to ${max} ${unit}`, kind: "integer", read: (v, name, p) => set(p, wholeNumber(name, v, min, max, unit)) };
}

/** One of a few words. */
export function oneOf<P, T extends string>(values: readonly T[], said: string, set: (p: P, v: T) => void): Pick<OptionSpec<P>, "read"> {
  return {
    read: (v, name, p) => {
      if (!(values as readonly string[]).includes(v)) throw new UsageError(`${name} must be ${said}, got "${v}"`);
      set(p, v as T);
    },
  };
}

/** A switch: present means on. */
export const on = <P>(set: (p: P) => void): Pick<OptionSpec<P>, "read"> => ({ read: (_v, _name, p) => set(p) });

/** Waits up to a day: setTimeout cannot wait longer than 2^31-1 ms, and no stage needs to. */
export const DAY_MS = 86_400_000;
