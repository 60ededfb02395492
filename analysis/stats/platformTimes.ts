/**
 * A platform's own wall times inside its actors: its analytics for each
 * block of calls (one measured stage), as stored beside a run in
 * raw/<side>.analytics.<group>.jsonl (GraphQL responses, one a line). Pure:
 * the report reads the stored responses, never the API.
 */

import { parseJsonLines } from "../contract/jsonLines";

export const ANALYTICS_FILE = /^raw\/[a-z]+\.analytics\.[a-z]+\.jsonl$/;

/** One stored GraphQL response, one JSON line. `body` is the response text exactly as it came. */
export interface AnalyticsLine {
  seq: number;
  at: string;
  /** schema-* for introspection, block for a block's data. */
  label: string;
  /** The block a data response is for: <side>.<metric>. */
  block?: string;
  /** The window asked for, whole seconds (ISO 8601). */
  window?: { from: string; to: string };
  /** Successful calls in the block on the side's own clock, to compare with the analytics' count. */
  calls?: number;
  status: number;
  body: string;
}

/** One group of a block's response: one colo. Wall times in ms (the API's µs / 1000). */
interface PlatformGroup {
  colo: string;
  requests: number;
  errors: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

const us = (v: unknown) => Number(v) / 1000;

/**
 * The groups of one block's data response: the `data` of a `block` line's
 * body, whose account holds one dataset (the one the side's collector asked
 * for), its rows each a colo's sums and quantiles.
 */
export function blockGroups(data: { viewer?: { accounts?: Array<Record<string, unknown>> } } | null | undefined): PlatformGroup[] {
  const account = data?.viewer?.accounts?.[0] ?? {};
  const rows = (Object.values(account).find((v) => Array.isArray(v)) ?? []) as Array<{
    sum: Record<string, number>;
    quantiles: Record<string, number>;
    dimensions: Record<string, string>;
  }>;
  return rows.map((r) => ({
    colo: r.dimensions.colo,
    requests: r.sum.requests,
    errors: r.sum.errors,
    meanMs: r.sum.requests > 0 ? us(r.sum.wallTime) / r.sum.requests : NaN,
    p50Ms: us(r.quantiles.wallTimeP50),
    p90Ms: us(r.quantiles.wallTimeP90),
    p99Ms: us(r.quantiles.wallTimeP99),
  }));
}

export interface PlatformBlock {
  block: string;
  window: { from: string; to: string };
  calls: number;
  groups: PlatformGroup[];
}

/** Each block's last data response (earlier ones were asked before the analytics had arrived), in file order. */
export function platformBlocks(lines: readonly AnalyticsLine[]): PlatformBlock[] {
  const last = new Map<string, AnalyticsLine>();
  for (const l of lines) if (l.label === "block" && l.block && l.status === 200) last.set(l.block, l);
  return [...last.values()].map((l) => ({
    block: l.block!,
    window: l.window!,
    calls: l.calls ?? 0,
    groups: blockGroups(JSON.parse(l.body).data),
  }));
}

export function readAnalyticsLines(text: string, file: string): AnalyticsLine[] {
  return parseJsonLines<AnalyticsLine>(text, file);
}
