import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSite, indexPage } from "./site";
import { escapeHtml } from "./html";
import { runDirsUnder } from "./runDirContract";
import { compareRows, notInBoth, type StageStats } from "./compareRows";
import { fixture } from "../test/fixtures";

const cold = (ms: number) => ({ ms, cold: true });

describe("the site's pages without a browser", () => {
  it("finds results/<stack>/<runId>/ folders only", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-site-u-"));
    const dir = fixture({ "rivet.create.ping": { samples: [cold(40), cold(50)] } }, { root });
    mkdirSync(join(root, "local", "notes"));
    writeFileSync(join(root, "README.txt"), "not a stack");
    expect(runDirsUnder(root).map((r) => r.dir)).toEqual([dir]);
    expect(runDirsUnder(join(root, "missing"))).toEqual([]);
  });

  it("escapes everything a run directory can put on the index: names and refusal reasons", () => {
    expect(escapeHtml(`<img src=x onerror="a('b')">&`)).toBe("&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;");
    const html = indexPage([], [{ dir: "results/x/20261201T0000Z", reason: "<script>alert(1)</script> in manifest" }]);
    expect(html).not.toContain("<script>alert");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; in manifest");
  });

  it("builds pages for verified runs, lists a tampered run and a bad stack name as refused, and replaces the old site whole", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-site-b-"));
    const results = join(root, "results");
    const good = fixture({ "rivet.create.ping": { samples: [cold(40), cold(50), cold(60)] } }, { root: results });
    const bad = fixture({ "rivet.create.ping": { samples: [cold(40)] } }, { root: results, at: new Date(Date.UTC(2026, 10, 1)) });
    appendFileSync(join(bad, "raw", "rivet.create.ping.jsonl"), "\n");
    const odd = fixture({ "rivet.create.ping": { samples: [cold(40)] } }, { root: join(root, "elsewhere"), at: new Date(Date.UTC(2026, 9, 1)) });
    cpSync(odd, join(results, "no stack!", odd.split("/").pop()!), { recursive: true });
    const out = join(root, "site");
    mkdirSync(out);
    writeFileSync(join(out, "stale.html"), "from an older build");
    const site = buildSite(results, out, root);
    expect(site.runs.map((r) => r.runId)).toEqual([good.split("/").pop()]);
    expect(site.refused.map((r) => r.dir)).toEqual(expect.arrayContaining([`results/local/${bad.split("/").pop()}`, `results/no stack!/${odd.split("/").pop()}`]));
    expect(site.refused).toHaveLength(2);
    expect(site.refused.find((r) => r.dir.includes("no stack!"))!.reason).toMatch(/is not a stack name/);
    expect(existsSync(join(out, "stale.html"))).toBe(false);
    const page = readFileSync(join(out, site.runs[0].page), "utf8");
    // The run's numbers come from its samples: 40 / 50 / 60 ms, nearest rank.
    expect(page).toMatch(/<td>50.00 \/ 60.00 \/ 60.00<\/td>\s*<td>3<\/td>/);
    for (const asset of ["vega.min.js", "vega-lite.min.js", "vega-embed.min.js", "compare.js", "run.js", "site.css"]) expect(existsSync(join(out, "assets", asset)), asset).toBe(true);
  });
});

describe("compareRows (npm run compare and the site's comparison view)", () => {
  const s = (p50: number, lo: number | null, hi: number | null): StageStats => ({ n: 100, p50, p90: p50 * 2, p99: p50 * 3, ci: { p50: { lo, hi }, p90: { lo: null, hi: null }, p99: { lo: null, hi: null } } });
  it("gives B/A and whether the intervals overlap, per stage in A's order, for stages in both", () => {
    const rows = compareRows({ "rivet.x": s(10, 9, 11), "rivet.y": s(0, 0, 0), "rivet.only": s(1, 1, 1) }, { "rivet.y": s(5, 4, 6), "rivet.x": s(20, 18, 22) });
    expect(rows.filter((r) => r.q === "p50").map((r) => [r.key, r.ratio, r.overlap])).toEqual([["rivet.x", 2, false], ["rivet.y", null, false]]);
    // Unknown interval ends are unbounded, so they overlap.
    expect(rows.find((r) => r.key === "rivet.x" && r.q === "p90")!.overlap).toBe(true);
    expect(notInBoth({ a: 1, b: 1 }, { b: 1, c: 1 })).toEqual(["a (A only)", "c (B only)"]);
  });
});
