/**
 * What the vendors and the reference say of the quantities this project
 * measures, dated and sourced, as the price table is: each claim's words
 * (shortened where long), who said it, where and when, the quantity it states
 * and the measure of this project that has the same quantity. The ledger
 * (analysis/stats/claims.ts) sets each beside a run's figure with its 95%
 * interval and says, by rule, whether the run is consistent with it. The
 * pages were found on 2026-12-06; this project has no network, so the words
 * are as quoted then, not re-read at run time. Nothing here is measured.
 */

import { REFERENCE_HEADLINE } from "./reference";

/** Which of a run's figures measures the claim's quantity. */
export type ClaimMeasure =
  /** A stage's percentile, on the side's own clock ("own"), the client's round trip ("client"), the actor's SQL interval ("sql") or an alarm's lateness ("late"). */
  | { kind: "percentile"; metric: string; q: "p50" | "p99"; clock: "own" | "client" | "sql" | "late" }
  /** The rate one search held (analysis/stats/capacity.ts): the ceiling's or the capacity group's operation. */
  | { kind: "held"; op: string }
  /** kB per actor asleep or alive, from the scaling group (analysis/stats/memory.ts). */
  | { kind: "memory"; state: "asleep" | "live" }
  /** Whether a payload stage's writes of a size were accepted. */
  | { kind: "accepts"; metric: string }
  /** Nothing this project measures yet: said why. */
  | { kind: "none"; why: string };

export interface Claim {
  id: string;
  /** The side whose runtime the claim is about. */
  side: string;
  words: string;
  who: string;
  /** The page (or file) it is on. */
  source: string;
  /** When the page said it: its own date where it has one, else when it was found. */
  date: string;
  /** The quantity stated, and how a figure is held to it: "about" is within a factor of ABOUT_FACTOR. */
  states: { value: number; unit: "ms" | "per second" | "kB" | "bytes"; relation: "about" | "at least" | "at most" };
  measure: ClaimMeasure;
  /** Why no run of this project can check it (another release, another SDK), where that is so. */
  never?: string;
  /** Why a local run cannot check it (a figure of a hosted platform or a cloud cluster), where that is so. */
  cloudOnly?: string;
}

/** "About X" holds when the interval reaches within this factor of X. */
export const ABOUT_FACTOR = 1.25;

const CF_FAQ = "developers.cloudflare.com/durable-objects/reference/faq/";
const CF_LIMITS = "developers.cloudflare.com/durable-objects/platform/limits/";
const RIVET_SITE = "rivet.dev (front page)";
const RIVET_30 = "rivet.dev, the Rivet 3.0 preview page";
const REFERENCE = "the reference's published headline (docs/reference.md)";
const FOUND = "undated; found 2026-12-06";
const LOCAL_DO = "a hosted platform's figure: local workerd runs the same code without the platform's limits and placement";
const REFERENCE_CLOUD = "the reference ran in a cloud region, client to a cluster; a local run is one machine's loopback";

export const CLAIMS: readonly Claim[] = [
  {
    id: "do-object-rate",
    side: "cloudflare",
    words: "An individual Object has a soft limit of 1,000 requests per second.",
    who: "Cloudflare",
    source: CF_FAQ,
    date: "2025-07; found 2026-12-06",
    states: { value: 1000, unit: "per second", relation: "at least" },
    measure: { kind: "held", op: "warm1" },
  },
  {
    id: "do-object-rate-range",
    side: "cloudflare",
    words: "A single Durable Object handles 500-1,500 requests per second, depending on the work per request (an earlier wording).",
    who: "Cloudflare documentation, as quoted in users' questions",
    source: "Cloudflare documentation (an earlier version of the limits page)",
    date: FOUND,
    states: { value: 500, unit: "per second", relation: "at least" },
    measure: { kind: "held", op: "write1" },
  },
  {
    id: "do-row-size",
    side: "cloudflare",
    words: "Maximum string, BLOB or table row size: 2 MB.",
    who: "Cloudflare",
    source: CF_LIMITS,
    date: FOUND,
    states: { value: 2_000_000, unit: "bytes", relation: "at least" },
    measure: { kind: "accepts", metric: "payload.write.b2000000" },
  },
  {
    id: "do-alarm-usual",
    side: "cloudflare",
    words: "Alarms usually execute within a few milliseconds of their scheduled time (a few read here as at most 5).",
    who: "Cloudflare",
    source: "developers.cloudflare.com/durable-objects/api/alarms/",
    date: FOUND,
    states: { value: 5, unit: "ms", relation: "at most" },
    measure: { kind: "percentile", metric: "alarm.awake.d1000", q: "p50", clock: "late" },
  },
  {
    id: "do-alarm-delay",
    side: "cloudflare",
    words: "Alarms can be delayed by up to a minute.",
    who: "Cloudflare",
    source: "developers.cloudflare.com/durable-objects/api/alarms/",
    date: FOUND,
    states: { value: 60_000, unit: "ms", relation: "at most" },
    measure: { kind: "percentile", metric: "alarm.asleep.d10000", q: "p99", clock: "late" },
  },
  {
    id: "do-hibernate",
    side: "cloudflare",
    words: "A hibernateable Durable Object hibernates after 10 seconds of inactivity.",
    who: "Cloudflare",
    source: "developers.cloudflare.com/durable-objects/concepts/durable-object-lifecycle/",
    date: FOUND,
    states: { value: 10_000, unit: "ms", relation: "about" },
    measure: { kind: "none", why: "hibernation is of objects that hold hibernatable WebSockets; this project's objects hold none" },
  },
  {
    id: "do-eviction",
    side: "cloudflare",
    words: "An idle, non-hibernateable Durable Object is evicted after 70-140 seconds.",
    who: "Cloudflare staff and users, in public threads",
    source: "community threads quoting the runtime's behaviour",
    date: FOUND,
    states: { value: 140_000, unit: "ms", relation: "at most" },
    measure: { kind: "none", why: "the idle ladder reports the cold share by idle length, not an eviction time" },
    cloudOnly: LOCAL_DO,
  },
  {
    id: "rivet-cold-start",
    side: "rivet",
    words: "~20 ms cold start.",
    who: "Rivet",
    source: RIVET_SITE,
    date: FOUND,
    states: { value: 20, unit: "ms", relation: "about" },
    measure: { kind: "percentile", metric: "create.ping", q: "p50", clock: "client" },
  },
  {
    id: "rivet-memory",
    side: "rivet",
    words: "~0.6 KB per actor (RSS delta over 10,000 actors).",
    who: "Rivet",
    source: RIVET_SITE,
    date: FOUND,
    states: { value: 0.6, unit: "kB", relation: "about" },
    measure: { kind: "memory", state: "asleep" },
  },
  {
    id: "rivet3-cold-p50",
    side: "rivet",
    words: "Cold start 6.92 ms p50 on a three-zone cluster.",
    who: "Rivet",
    source: RIVET_30,
    date: FOUND,
    states: { value: 6.92, unit: "ms", relation: "about" },
    measure: { kind: "percentile", metric: "create.ping", q: "p50", clock: "client" },
    never: "another Engine release (the 3.0 preview) on a three-zone cluster, by a method not published",
  },
  {
    id: "rivet3-cold-p99",
    side: "rivet",
    words: "Cold start 8.11 ms p99 on a three-zone cluster.",
    who: "Rivet",
    source: RIVET_30,
    date: FOUND,
    states: { value: 8.11, unit: "ms", relation: "about" },
    measure: { kind: "percentile", metric: "create.ping", q: "p99", clock: "client" },
    never: "another Engine release (the 3.0 preview) on a three-zone cluster, by a method not published",
  },
  {
    id: "rivet3-wake",
    side: "rivet",
    words: "Wake 4.37 ms.",
    who: "Rivet",
    source: RIVET_30,
    date: FOUND,
    states: { value: 4.37, unit: "ms", relation: "about" },
    measure: { kind: "percentile", metric: "wake.ping", q: "p50", clock: "client" },
    never: "another Engine release (the 3.0 preview), percentile and method not stated",
  },
  {
    id: "rivet3-memory",
    side: "rivet",
    words: "72.4 KB per running actor (Rust SDK).",
    who: "Rivet",
    source: RIVET_30,
    date: FOUND,
    states: { value: 72.4, unit: "kB", relation: "about" },
    measure: { kind: "memory", state: "live" },
    never: "another SDK (Rust) and release; this project's actors are RivetKit TypeScript",
  },
  {
    id: "rivet-sqlite-1mib",
    side: "rivet",
    words: "A 1 MiB insert took 832 ms against 1.8 ms for native SQLite (317 KV round trips per MiB).",
    who: "Rivet (examples/sqlite-raw/BENCH_RESULTS.md in its actors repository)",
    source: "github.com/rivet-dev/rivet, examples/sqlite-raw/BENCH_RESULTS.md",
    date: "2026-04-15",
    states: { value: 832, unit: "ms", relation: "about" },
    measure: { kind: "percentile", metric: "payload.write.b1048576", q: "p50", clock: "sql" },
  },
  {
    id: "reference-rivet-warm",
    side: "rivet",
    words: `Warm request, Rivet client to actor: ${REFERENCE_HEADLINE["warm.ping"].rivet!.p50} ms p50.`,
    who: "the reference benchmark",
    source: REFERENCE,
    date: "2026-10-28",
    states: { value: REFERENCE_HEADLINE["warm.ping"].rivet!.p50, unit: "ms", relation: "about" },
    measure: { kind: "percentile", metric: "warm.ping", q: "p50", clock: "own" },
    cloudOnly: REFERENCE_CLOUD,
  },
  {
    id: "reference-rivet-create",
    side: "rivet",
    words: `Actor create, first request answered: ${REFERENCE_HEADLINE["create.ping"].rivet!.p50} ms p50.`,
    who: "the reference benchmark",
    source: REFERENCE,
    date: "2026-10-28",
    states: { value: REFERENCE_HEADLINE["create.ping"].rivet!.p50, unit: "ms", relation: "about" },
    measure: { kind: "percentile", metric: "create.ping", q: "p50", clock: "own" },
    cloudOnly: REFERENCE_CLOUD,
  },
  {
    id: "reference-do-warm",
    side: "cloudflare",
    words: `Warm request, Worker to Durable Object: ${REFERENCE_HEADLINE["warm.ping"].cloudflare!.p50} ms p50.`,
    who: "the reference benchmark",
    source: REFERENCE,
    date: "2026-10-27",
    states: { value: REFERENCE_HEADLINE["warm.ping"].cloudflare!.p50, unit: "ms", relation: "about" },
    measure: { kind: "percentile", metric: "warm.ping", q: "p50", clock: "own" },
    cloudOnly: REFERENCE_CLOUD,
  },
  {
    id: "reference-do-create",
    side: "cloudflare",
    words: `Durable Object create, first request answered: ${REFERENCE_HEADLINE["create.ping"].cloudflare!.p50} ms p50.`,
    who: "the reference benchmark",
    source: REFERENCE,
    date: "2026-10-27",
    states: { value: REFERENCE_HEADLINE["create.ping"].cloudflare!.p50, unit: "ms", relation: "about" },
    measure: { kind: "percentile", metric: "create.ping", q: "p50", clock: "own" },
    cloudOnly: REFERENCE_CLOUD,
  },
];
