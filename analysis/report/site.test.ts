import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSite, indexPage, purpose, SITE_MARKER, siteOutputProblem } from "./site";
import { escapeHtml } from "./html";
import { runDirsUnder } from "../contract/runDirContract";
import { compareRows, notInBoth, type StageStats } from "../stats/compareRows";
import { fixture } from "../../test/fixtures";

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

  it("the index shows the newest complete run's curves, each from the run it names", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-site-c-"));
    const ladder = (idle: string, n: number) => Array.from({ length: n }, (_, i) => ({ ms: 10 + i, cold: idle === "1m" }));
    const dir = fixture(
      { "rivet.wake.idle.10s": { samples: ladder("10s", 3) }, "rivet.wake.idle.1m": { samples: ladder("1m", 3) } },
      { root: join(root, "results") },
    );
    const out = join(root, "site");
    buildSite(join(root, "results"), out, root);
    const html = readFileSync(join(out, "index.html"), "utf8");
    expect(html).toContain('<section id="curves">');
    expect(html).toContain('data-chart="idle"');
    expect(html).toContain(dir.split("/").pop()!);
    expect(html).not.toContain('data-chart="scale"');
    expect(indexPage([], [])).not.toContain('id="curves"');
  });

  it("builds pages for verified runs, lists a tampered run and a bad stack name as refused, and replaces the old site whole", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-site-b-"));
    const results = join(root, "results");
    const good = fixture({ "rivet.create.ping": { samples: [cold(40), cold(50), cold(60)] } }, { root: results });
    const bad = fixture({ "rivet.create.ping": { samples: [cold(40)] } }, { root: results, at: new Date(Date.UTC(2026, 10, 1)) });
    appendFileSync(join(bad, "raw", "rivet.create.ping.jsonl"), "\n");
    const odd = fixture(
      { "rivet.create.ping": { samples: [cold(40)] } },
      { root: join(root, "elsewhere"), at: new Date(Date.UTC(2026, 9, 1)) },
    );
    cpSync(odd, join(results, "no stack!", odd.split("/").pop()!), { recursive: true });
    const out = join(root, "site");
    buildSite(results, out, root);
    writeFileSync(join(out, "stale.html"), "from an older build");
    const site = buildSite(results, out, root);
    expect(site.runs.map((r) => r.runId)).toEqual([good.split("/").pop()]);
    expect(site.refused.map((r) => r.dir)).toEqual(
      expect.arrayContaining([`results/local/${bad.split("/").pop()}`, `results/no stack!/${odd.split("/").pop()}`]),
    );
    expect(site.refused).toHaveLength(2);
    expect(site.refused.find((r) => r.dir.includes("no stack!"))!.reason).toMatch(/is not a stack name/);
    expect(existsSync(join(out, "stale.html"))).toBe(false);
    const page = readFileSync(join(out, site.runs[0].page), "utf8");
    // The run's numbers come from its samples: 40 / 50 / 60 ms, nearest rank.
    expect(page).toMatch(/<td>50.00 \/ 60.00 \/ 60.00<\/td>\s*<td>3<\/td>/);
    for (const asset of ["vega.min.js", "vega-lite.min.js", "vega-embed.min.js", "compare.js", "run.js", "site.css"])
      expect(existsSync(join(out, "assets", asset)), asset).toBe(true);
  });

  it("leads the index with the newest complete run's one-clock headline and says what every run covers", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-site-lead-"));
    const results = join(root, "results");
    const older = fixture(
      { "rivet.create.ping": { samples: [cold(40), cold(50)] }, "rivet.warm.ping": { samples: [{ ms: 5 }] } },
      { root: results, at: new Date(Date.UTC(2026, 10, 1)), repetitions: 2 },
    );
    const newer = fixture(
      { "floor.create.ping": { samples: [cold(2), cold(3), cold(4)] } },
      { root: results, at: new Date(Date.UTC(2026, 11, 1)) },
    );
    const site = buildSite(results, join(root, "site"), root);
    const index = readFileSync(site.index, "utf8");
    expect(index).toContain(
      `Newest complete run with a headline: <a href="runs/local/${newer.split("/").pop()}.html">local ${newer.split("/").pop()}</a>`,
    );
    // the floor's create: nearest rank over 2, 3, 4 ms on the client's clock
    expect(index).toMatch(
      /<td>Actor create, first request answered \(no storage\)<\/td>\s*<td>-<\/td>\s*<td>-<\/td>\s*<td>-<\/td>\s*<td>3.00 \/ 4.00<\/td>\s*<td>3<\/td>/,
    );
    expect(index).toContain("<td>floor; the create group only; 1 repetition</td>");
    expect(index).toContain("<td>rivet; 2 groups (create, warm); 2 repetitions</td>");
    // Newest first, each labelled with what it was made for.
    const order = [...index.matchAll(/<tr data-run="local\/([^"]+)">/g)].map((x) => x[1]);
    expect(order).toEqual([newer.split("/").pop(), older.split("/").pop()]);
    expect(index).toContain('<td class="purpose">preset quick</td>');
    // Its one-clock chart follows the table, with the scripts that draw it.
    expect(index).toContain('<div class="chart" id="chart-same-clock" data-chart="same-clock"></div>');
    expect(index).toContain('<script src="assets/run.js"></script>');
  });

  it("shows a run of the scaling group alone without a headline, a clock switch or empty tables, and never leads the index with it", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-site-scale-"));
    const results = join(root, "results");
    const older = fixture(
      { "rivet.warm.ping": { samples: [{ ms: 5 }, { ms: 6 }] } },
      { root: results, at: new Date(Date.UTC(2026, 10, 1)) },
    );
    const scale = fixture(
      {
        "rivet.scale.wake.e0": { samples: [cold(40), cold(45)] },
        "rivet.scale.create.e0": { samples: [cold(80), cold(90)] },
        "rivet.scale.burst.e0": { samples: [cold(90), cold(95)], concurrency: 32 },
      },
      { root: results, at: new Date(Date.UTC(2026, 11, 1)) },
    );
    const site = buildSite(results, join(root, "site"), root);
    const page = readFileSync(join(root, "site", "runs", "local", `${scale.split("/").pop()}.html`), "utf8");
    expect(page).toContain(
      '<p id="no-headline">This run covers rivet; the scale group only; 1 repetition: none of its stages is a row of the headline',
    );
    expect(page).not.toContain('name="clock"');
    expect(page).not.toContain('id="clock-own"');
    expect(page).toContain("<h2>Cost as the work grows</h2>");
    // No chart of a group it did not run is named or announced.
    expect(page).not.toContain("Distributions");
    expect(page).not.toMatch(/data-chart="(headline|same-clock|cdf-|hist-)/);
    expect(readFileSync(site.index, "utf8")).toContain(
      `Newest complete run with a headline: <a href="runs/local/${older.split("/").pop()}.html">`,
    );
  });
});

describe("a malformed run among good ones", () => {
  it("is listed as refused, naming the field, while the others build, and leaves no temporary folder", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-site-malformed-"));
    const results = join(root, "results");
    const good = fixture({ "rivet.create.ping": { samples: [cold(40)] } }, { root: results });
    const bad = fixture({ "rivet.create.ping": { samples: [cold(40)] } }, { root: results, at: new Date(Date.UTC(2026, 10, 1)) });
    const m = JSON.parse(readFileSync(join(bad, "manifest.json"), "utf8"));
    m.stages["rivet.create.ping"] = null;
    writeFileSync(join(bad, "manifest.json"), JSON.stringify(m));
    const site = buildSite(results, join(root, "site"), root);
    expect(site.runs.map((r) => r.runId)).toEqual([good.split("/").pop()]);
    expect(site.refused.map((r) => r.reason)).toEqual([
      expect.stringMatching(/manifest\.stages\["rivet\.create\.ping"\] must be an object, got null/),
    ]);
    expect(readdirSync(bad).sort()).toEqual(["manifest.json", "raw", "stages"]);
  });
});

describe("where the site may write", () => {
  it("refuses the results folder, a folder holding it, one inside it, a file, and a folder it did not make; nothing there is touched", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-site-out-"));
    const results = join(root, "results");
    const run = fixture({ "rivet.create.ping": { samples: [cold(40)] } }, { root: results });
    const mine = join(root, "notes");
    mkdirSync(mine);
    writeFileSync(join(mine, "keep.txt"), "mine");
    writeFileSync(join(root, "a-file"), "mine too");
    const cases: Array<[string, RegExp]> = [
      [results, /is the results folder or a folder that holds it/],
      [root, /is the results folder or a folder that holds it/],
      [join(results, "local"), /is inside the results folder/],
      [join(root, "a-file"), /exists and is not a folder/],
      [mine, /holds files the site did not make \(no \.actor-bench-site in it\)/],
    ];
    for (const [out, why] of cases) {
      expect(siteOutputProblem(out, results), out).toMatch(why);
      expect(() => buildSite(results, out, root), out).toThrow(why);
    }
    expect(readFileSync(join(mine, "keep.txt"), "utf8")).toBe("mine");
    expect(readFileSync(join(root, "a-file"), "utf8")).toBe("mine too");
    expect(existsSync(join(run, "manifest.json"))).toBe(true);
    // Nothing was left beside them: the build folder is made only once the output is allowed.
    expect(readdirSync(root).sort()).toEqual(["a-file", "notes", "results"]);
  });

  it("writes into an absent or empty folder, marks it as its own, and replaces only such a folder", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-site-out-"));
    const results = join(root, "results");
    fixture({ "rivet.create.ping": { samples: [cold(40)] } }, { root: results });
    const empty = join(root, "empty");
    mkdirSync(empty);
    expect(siteOutputProblem(empty, results)).toBeNull();
    buildSite(results, empty, root);
    expect(existsSync(join(empty, SITE_MARKER))).toBe(true);
    expect(siteOutputProblem(empty, results)).toBeNull();
    expect(() => buildSite(join(root, "resluts"), empty, root)).toThrow(/resluts: no results folder there .*nothing was written/);
    expect(existsSync(join(empty, "index.html"))).toBe(true);
    buildSite(results, join(root, "new", "site"), root);
    expect(existsSync(join(root, "new", "site", "index.html"))).toBe(true);
    expect(readdirSync(root).sort()).toEqual(["empty", "new", "results"]);
  });
});

describe("compareRows (npm run compare and the site's comparison view)", () => {
  const s = (reps: number[]): StageStats => ({
    n: 100 * reps.length,
    reps: { p50: reps, p90: reps.map((x) => x * 2), p99: reps.map((x) => x * 3) },
    perRepN: reps.map(() => 100),
    tick: 0.000001,
    clock: "client round trip",
  });
  it("judges each row over repetitions, per stage in A's order, for stages in both", () => {
    const rows = compareRows(
      { "rivet.x": s([10, 10.2, 9.9]), "rivet.y": s([5, 5.5, 4.5]), "rivet.one": s([3]), "rivet.only": s([1, 1, 1]) },
      { "rivet.y": s([5.2, 4.6, 5.4]), "rivet.x": s([20, 20.5, 19.8]), "rivet.one": s([6]) },
    );
    const p50 = rows.filter((r) => r.q === "p50");
    expect(p50.map((r) => [r.key, r.verdict])).toEqual([
      ["rivet.x", "different"],
      ["rivet.y", "not detected"],
      ["rivet.one", "cannot tell"],
    ]);
    const x = p50[0];
    expect(x.ratio!).toBeCloseTo(2, 1);
    // The ratio's interval over repetitions holds the ratio and excludes 1.
    expect(x.ratioCi!.lo!).toBeGreaterThan(1.8);
    expect(x.ratioCi!.hi!).toBeLessThan(2.2);
    expect(p50[2].ratioCi).toBeNull();
    expect(notInBoth({ a: 1, b: 1 }, { b: 1, c: 1 })).toEqual(["a (A only)", "c (B only)"]);
  });
});

describe("a run's purpose", () => {
  const base = {
    preset: "local",
    config: { groups: ["warm", "sqlite"] },
    versions: { node: "v20", undici: "7", rivetkit: "2.3.19", engine: "2.3.18" },
  };
  it("names preset, groups, the A/B arm with its flags, a planted change and the runtimes' releases, not the driver's", () => {
    const m = {
      ...base,
      settings: {
        ab: { id: "ab-20261205T0140Z", arm: "B", flags: "--plant-delay-us rivet:write=450" },
        rivet: { plantedDelay: "450 us in write" },
      },
    } as unknown as Parameters<typeof purpose>[0];
    expect(purpose(m)).toBe(
      "preset local; groups warm, sqlite; A/B arm B of ab-20261205T0140Z (--plant-delay-us rivet:write=450); planted: 450 us in write; rivetkit 2.3.19, engine 2.3.18",
    );
  });
  it("ignores an A/B session id that is not one (no path can come from it)", () => {
    const m = { ...base, settings: { ab: { id: "../../x", arm: "A" } } } as unknown as Parameters<typeof purpose>[0];
    expect(purpose(m)).toBe("preset local; groups warm, sqlite; rivetkit 2.3.19, engine 2.3.18");
  });
});
