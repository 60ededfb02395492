/**
 * The reference benchmark this project reimplements, as it published itself:
 * its headline, per metric of this project's catalog (what it ran is in docs/reference.md). Typed
 * in once from its published tables; the reference table of docs/reference.md
 * is generated from this and a committed run, and a test holds the two together.
 */

interface ReferenceFigure {
  p50: number;
  p90: number;
  p99: number;
  n: number;
}

const f = (p50: number, p90: number, p99: number, n: number): ReferenceFigure => ({ p50, p90, p99, n });

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
