/**
 * The published prices the report turns measured units into money with,
 * each with the page it comes from and when that page said it. These are the
 * prices as quoted to this project in December 2026 from the pages named;
 * this project has not read the pages itself (no network here), so check
 * them before relying on a figure, and give your own with `--prices FILE`
 * (the same shape, as JSON). Nothing here is measured.
 */

export interface Price {
  usd: number;
  /** The unit the price is for, in words. */
  per: string;
  /** The page and the date it stated the price. */
  source: string;
}

export type PriceKey = keyof PriceTable["prices"];

export interface PriceTable {
  /** When and how the prices were taken. */
  asOf: string;
  prices: {
    doRequests: Price;
    doDurationGbS: Price;
    doRowsRead: Price;
    doRowsWritten: Price;
    workersRequests: Price;
    workersCpuMs: Price;
    rivetCloudReads: Price;
    rivetCloudWrites: Price;
    rivetComputeVcpuS: Price;
  };
  /** Stated assumptions of the modelled cells. */
  assumptions: {
    /** The memory a Durable Object is billed at while active, GB. */
    doBilledGb: number;
    /** The share of a self-hosted Engine's vCPU time that does the work (the rest idles): 1 is a fully loaded machine. */
    selfHostedUtilisation: number;
  };
}

const CLOUDFLARE =
  "Cloudflare docs, Durable Objects and Workers pricing (Workers Standard usage model since 2024-03-01; SQLite storage billing since 2026-01-07)";
const RIVET = "Rivet pricing page, 2026-06-14";

export const DEFAULT_PRICES: PriceTable = {
  asOf: "quoted to this project in 2026-12 from the pages named; not read by it",
  prices: {
    doRequests: { usd: 0.15, per: "million Durable Object requests", source: CLOUDFLARE },
    doDurationGbS: { usd: 12.5, per: "million GB-s of Durable Object wall-clock duration", source: CLOUDFLARE },
    doRowsRead: { usd: 0.001, per: "million SQLite rows read", source: CLOUDFLARE },
    doRowsWritten: { usd: 1.0, per: "million SQLite rows written", source: CLOUDFLARE },
    workersRequests: { usd: 0.3, per: "million Worker requests", source: CLOUDFLARE },
    workersCpuMs: { usd: 0.02, per: "million Worker CPU-ms", source: CLOUDFLARE },
    rivetCloudReads: { usd: 0.2, per: "million reads", source: RIVET },
    rivetCloudWrites: { usd: 1.0, per: "million writes", source: RIVET },
    rivetComputeVcpuS: { usd: 0.000033, per: "vCPU-second (Rivet Compute, the lowest tier)", source: RIVET },
  },
  assumptions: { doBilledGb: 0.125, selfHostedUtilisation: 0.5 },
};

/** The first field of a price table that is not of its type, as "<path> <what is wrong>", or null. */
export function priceTableProblem(t: unknown): string | null {
  const o = t as PriceTable;
  if (typeof o !== "object" || o === null) return "the price table must be a JSON object";
  if (typeof o.asOf !== "string" || !o.asOf) return "asOf must say when and where the prices were read";
  for (const k of Object.keys(DEFAULT_PRICES.prices) as Array<keyof PriceTable["prices"]>) {
    const p = o.prices?.[k];
    if (!p || typeof p.usd !== "number" || !(p.usd >= 0) || typeof p.per !== "string" || typeof p.source !== "string" || !p.source)
      return `prices.${k} needs usd (a number from 0), per and source (the page and its date)`;
  }
  const a = o.assumptions;
  if (!a || !(a.doBilledGb > 0)) return "assumptions.doBilledGb must be a number above 0";
  if (!(a.selfHostedUtilisation > 0 && a.selfHostedUtilisation <= 1))
    return "assumptions.selfHostedUtilisation must be above 0 and at most 1";
  return null;
}
