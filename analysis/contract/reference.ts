/**
 * The reference benchmark this project reimplements, as it published itself:
 * what it ran and its headline, per metric of this project's catalog. Typed
 * in once from its published tables; the reference table of docs/reference.md
 * is generated from this and a committed run, and a test holds the two together.
 */

export interface ReferenceFigure {
  p50: number;
  p90: number;
  p99: number;
  n: number;
}

export const REFERENCE = {
  rivet:
    "the public release rivetdev/engine:3.0.0-preview.2 and rivetkit@3.0.0-preview.2 on three Azure Standard_L8as_v5 VMs (8 vCPU AMD EPYC 9V45, local NVMe) in eastus2 zones 1, 2 and 4, one Engine each, the driver and RivetKit node on a Standard_D16as_v7 in zone 1 (Node 24.10.0); samples of 2026-10-28",
  cloudflare:
    "one Worker and one SQLite-backed Durable Object class deployed to Cloudflare, driven from the same Azure region (Worker in IAD, DOs in IAD and EWR); samples of 2026-10-27",
  clocks:
    "Rivet: the driver's round trip through the Engine gateway; Durable Object: the Worker's Date.now() around the awaited DO call, whole milliseconds",
  counts: "1,000 to 2,000 samples a Rivet row, 200 to 300 a Durable Object row, one run per condition",
} as const;

const f = (p50: number, p90: number, p99: number, n: number): ReferenceFigure => ({ p50, p90, p99, n });

/** The reference's headline rows, by this project's metric id; a side it did not measure is absent. */
/** The sides the reference measured, in its order, with the words its table heads use. */
export const REFERENCE_SIDES: ReadonlyArray<{ side: "rivet" | "cloudflare"; name: string }> = [
  { side: "rivet", name: "Rivet" },
  { side: "cloudflare", name: "Durable Object" },
];

export const REFERENCE_HEADLINE: Record<string, { rivet?: ReferenceFigure; cloudflare?: ReferenceFigure }> = {
  "create.ping": { rivet: f(4.9, 7.18, 7.59, 1500), cloudflare: f(222, 394, 1028, 200) },
  "create.unique": { cloudflare: f(169, 258, 875, 200) },
  "create.read": { rivet: f(5.44, 7.74, 8.69, 1200), cloudflare: f(234, 783, 1936, 200) },
  "create.write": { rivet: f(7.0, 9.14, 10.16, 1200), cloudflare: f(218, 326, 1278, 200) },
  "wake.ping": { rivet: f(8.22, 12.66, 34.1, 1200), cloudflare: f(49, 399, 1306, 200) },
  "wake.read": { rivet: f(9.27, 14.07, 26.44, 1200), cloudflare: f(49, 399, 1306, 200) },
  "wake.write": { rivet: f(10.42, 16.8, 79.62, 1200), cloudflare: f(105, 303, 1358, 200) },
  "warm.ping": { rivet: f(0.84, 1.21, 1.43, 2000), cloudflare: f(11, 13, 20, 300) },
  "warm.getOrCreate": { rivet: f(0.78, 1.17, 1.34, 2000) },
  "sqlite.read": { rivet: f(0.95, 1.15, 1.33, 1200), cloudflare: f(11, 12, 14, 300) },
  "sqlite.write": { rivet: f(1.52, 1.65, 3.01, 1200), cloudflare: f(30, 32, 92, 300) },
  "sqlite.scan": { rivet: f(1.13, 1.26, 2.23, 1000), cloudflare: f(12, 14, 17, 300) },
};
