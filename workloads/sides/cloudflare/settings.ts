/** The Durable Object side's own settings, with their flags and stack keys, and what it refuses. */
import { DAY_MS, whole, type OptionSpec } from "../options";
import { hardOpenFileLimit, openFileProblem } from "./openFiles";
import type { SampleCounts, Group } from "../../../analysis/contract/catalog";

export interface CloudflareSettings {
  /**
   * Idle time before a DO wake. It must exceed the runtime's eviction: a DO
   * has no sleep call, so only idle time puts it to sleep. Local workerd
   * evicts after about 10 s, so 12 s locally; a cloud stack sets the
   * reference's 10 minutes (Pulumi.eastus2.yaml).
   */
  cfWakeIdleMs: number;
  /** Local workerd's open-file limit; absent: raised to the hard limit (set lower only to see a machine limit named). */
  workerdOpenFiles?: number;
}

export const CLOUDFLARE_DEFAULTS: CloudflareSettings = { cfWakeIdleMs: 12_000 };

export const CLOUDFLARE_OPTIONS: readonly OptionSpec<Partial<CloudflareSettings>>[] = [
  {
    flag: "--cf-wake-idle-ms",
    value: "N",
    key: "cfWakeIdleMs",
    default: String(CLOUDFLARE_DEFAULTS.cfWakeIdleMs),
    stackDefault: CLOUDFLARE_DEFAULTS.cfWakeIdleMs,
    help: "how long every DO stays idle before its wake; must exceed the runtime's eviction (local workerd's: docs/local-runs.md; a cloud stack sets the reference's 10 minutes)",
    ...whole(1, DAY_MS, "milliseconds", (p, n) => (p.cfWakeIdleMs = n)),
  },
  {
    flag: "--workerd-open-files",
    value: "N",
    default: "the hard limit",
    help: "local workerd's open-file limit; a run whose DOs cannot fit under it is refused before it starts",
    ...whole(1, 1_048_576, "open files", (p, n) => (p.workerdOpenFiles = n)),
  },
];

/** Local workerd must hold the run's measured DOs under its open-file limit. */
export function cloudflarePreflight(s: {
  counts: SampleCounts;
  groups: readonly Group[];
  scaleLevels: readonly number[];
  own: CloudflareSettings;
}): string | null {
  return openFileProblem(s.counts, s.groups, s.scaleLevels, s.own.workerdOpenFiles ?? hardOpenFileLimit());
}
