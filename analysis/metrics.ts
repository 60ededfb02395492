/** Canonical metric order and the headline's wording, per the design's metric ids. */
export const METRIC_ORDER = [
  "create.ping", "create.unique", "create.read", "create.write",
  "wake.ping", "wake.read", "wake.write",
  "warm.ping", "warm.getOrCreate", "baseline.noop",
  "sqlite.read", "sqlite.write", "sqlite.scan",
  "burst.c1", "burst.c8", "burst.c32", "burst.c128", "seqwrite",
] as const;

export const SIDES = ["rivet", "cloudflare"] as const;

export const HEADLINE_LABELS: Record<string, string> = {
  "create.ping": "Actor create, first request answered (no storage)",
  "create.unique": "Actor create, unique id (DO only)",
  "create.read": "Create, first request is a SQLite read",
  "create.write": "Create, first request is a durable SQLite write",
  "wake.ping": "Actor wake, first request answered",
  "wake.read": "Wake, first request is a SQLite read",
  "wake.write": "Wake, first request is a durable SQLite write",
  "warm.ping": "Warm request round trip (no storage)",
  "warm.getOrCreate": "Warm request round trip, getOrCreate",
  "sqlite.read": "SQLite point read, warm, round trip",
  "sqlite.write": "SQLite durable write (1 row), round trip",
  "sqlite.scan": "SQLite scan of 1,000 rows, round trip",
  "baseline.noop": "Client to Worker, no DO call (third clock baseline)",
};

/** Metrics whose samples count only with a proven cold start. */
export function isColdMetric(metric: string): boolean {
  return metric.startsWith("create.") || metric.startsWith("wake.") || metric.startsWith("burst.") || isOpenModelMetric(metric);
}

/** Open-model stages (`open.r<rate>`): creates at a constant arrival rate, latency from the intended send. */
export function isOpenModelMetric(metric: string): boolean {
  return metric.startsWith("open.");
}

export function isThroughputMetric(metric: string): boolean {
  return metric.startsWith("burst.") || metric === "seqwrite" || isOpenModelMetric(metric);
}
