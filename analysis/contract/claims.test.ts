import { describe, expect, it } from "vitest";
import { CLAIMS } from "./claims";
import { metricEntry } from "./catalog";
import { SEARCH_OPS } from "./capacity";
import { REFERENCE_HEADLINE } from "./reference";

describe("the claims table", () => {
  it("has at least ten claims, each with its words, who, a source, a date and a stated quantity, ids unique", () => {
    expect(CLAIMS.length).toBeGreaterThanOrEqual(10);
    expect(new Set(CLAIMS.map((c) => c.id)).size).toBe(CLAIMS.length);
    for (const c of CLAIMS) {
      for (const text of [c.words, c.who, c.source, c.date]) expect(text.trim().length, c.id).toBeGreaterThan(3);
      expect(c.date, c.id).toMatch(/\d{4}-\d{2}/);
      expect(c.states.value, c.id).toBeGreaterThan(0);
      expect(["rivet", "cloudflare"]).toContain(c.side);
    }
  });

  it("names only measures the project has: catalog metrics, searched operations", () => {
    for (const c of CLAIMS) {
      const m = c.measure;
      if (m.kind === "percentile" || m.kind === "accepts") expect(metricEntry(m.metric), `${c.id}: ${m.metric}`).toBeDefined();
      if (m.kind === "held") expect(SEARCH_OPS as readonly string[], c.id).toContain(m.op);
      if (m.kind === "none") expect(m.why.length, c.id).toBeGreaterThan(10);
    }
  });

  it("quotes the reference's headline from its one table, not a second copy", () => {
    const warm = CLAIMS.find((c) => c.id === "reference-rivet-warm")!;
    expect(warm.states.value).toBe(REFERENCE_HEADLINE["warm.ping"].rivet!.p50);
    expect(warm.words).toContain(String(REFERENCE_HEADLINE["warm.ping"].rivet!.p50));
  });
});
