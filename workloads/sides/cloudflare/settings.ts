/** The Durable Object side's own settings, with their flags and stack keys, and what it refuses. */
import { DAY_MS, oneOf, whole, type OptionSpec } from "../options";
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
  /** How a group lets earlier groups' live DOs go: reset them at once (abort), or wait out the runtime's eviction. */
  settle: "reset" | "wait";
}

export const CLOUDFLARE_DEFAULTS: CloudflareSettings = { cfWakeIdleMs: 12_000, settle: "reset" };

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
  {
    flag: "--cf-settle",
    value: "reset|wait",
    default: CLOUDFLARE_DEFAULTS.settle,
    help: "before each group, reset the DOs earlier groups left live (DurableObjectState.abort()), or wait out their eviction as runs before 2026-12-06 did; a wake's own idle set is always waited out",
    ...oneOf(["reset", "wait"] as const, "reset or wait", (p, v) => (p.settle = v)),
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
