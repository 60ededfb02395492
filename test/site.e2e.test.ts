import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { buildSite, type Site } from "../analysis/report/site";
import { generateReport } from "../analysis/report/report";
import { compareRuns } from "../analysis/report/compare";
import { CATALOG, type Side } from "../analysis/contract/catalog";
import { LEGACY_BOOK } from "../analysis/contract/sideProfile";
import type { SummaryRow } from "../analysis/stats/summary";
import { fixture, hostileRun, type S } from "./fixtures";

// Debian's chromium, driven by playwright-core; .ci/run installs it. Without it this file is skipped, saying so.
const CHROMIUM = "/usr/bin/chromium";
/** The README's headline run (three repetitions). */
const COMMITTED_ID = "20261204T1506Z";
const COMMITTED = resolve("results/local", COMMITTED_ID);
/** The committed A/B session's two arms (Engine 2.3.18 against 2.3.19), the newest runs here. */
const AB_ARMS = ["20261205T0140Z", "20261205T0140Z-2"];
/** Committed runs with the idle and scaling groups (three repetitions) and the capacity group: the charts that draw intervals. */
const CHART_RUNS = { idle: "20261205T0923Z", capacity: "20261205T0609Z" };
/** Where the screenshots go: the test's output, kept after the run (ignored by git). */
const OUTPUT = resolve("test-output/site");

let root: string;
let site: Site;
let browser: Browser;
let older: string;

/** A small second run of the same stages in three repetitions, so the comparison has two local runs with intervals over repetitions. */
function smallRun(resultsRoot: string, at: Date, factor: number, machine?: Record<string, unknown>): string {
  const cold = (ms: number, rep: number): S => ({ ms, cold: true, rep });
  const samples = (base: number) => Array.from({ length: 42 }, (_, i) => cold(base * factor + i * 0.5, i % 3));
  return fixture(
    { "rivet.create.ping": { samples: samples(50) }, "cloudflare.create.ping": { samples: samples(5), concurrency: 1 } },
    { root: resultsRoot, at, repetitions: 3, machine },
  );
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  root = mkdtempSync(join(tmpdir(), "ab-site-"));
  const results = join(root, "results");
  mkdirSync(join(results, "local"), { recursive: true });
  cpSync(COMMITTED, join(results, "local", COMMITTED_ID), { recursive: true });
  // A CPU model no machine has: the compare must warn of it on any machine the test runs on.
  older = smallRun(results, new Date(Date.UTC(2026, 10, 30, 9, 0)), 1, { cpuModel: "Fixture CPU 0 (no real machine's)" });
  await generateReport(older);
  const tampered = smallRun(results, new Date(Date.UTC(2026, 10, 29, 9, 0)), 2);
  appendFileSync(join(tampered, "raw", "rivet.create.ping.jsonl"), '{"seq":99,"ok":true,"ms":1}\n');
  hostileRun(results);
  site = buildSite(results, join(root, "site"), root);
  // A second site: the A/B session's arms, and a later run of another session beside them.
  const abResults = join(root, "results-ab");
  mkdirSync(join(abResults, "local"), { recursive: true });
  for (const arm of AB_ARMS) cpSync(resolve("results/local", arm), join(abResults, "local", arm), { recursive: true });
  cpSync(resolve("results/local/ab-20261205T0140Z"), join(abResults, "local", "ab-20261205T0140Z"), { recursive: true });
  smallRun(abResults, new Date(Date.UTC(2026, 11, 5, 0, 0)), 1);
  buildSite(abResults, join(root, "site-ab"), root);
  const chartResults = join(root, "results-charts");
  mkdirSync(join(chartResults, "local"), { recursive: true });
  for (const id of Object.values(CHART_RUNS)) cpSync(resolve("results/local", id), join(chartResults, "local", id), { recursive: true });
  buildSite(chartResults, join(root, "site-charts"), root);
  mkdirSync(OUTPUT, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

async function open(path: string, query = "", siteDir = "site"): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
  await page.goto(pathToFileURL(join(root, siteDir, path)).href + query);
  (page as Page & { errors: string[] }).errors = errors;
  return page;
}

/** Parses "a / b / c" (the report's p50 / p90 / p99 cell) into numbers. */
const triple = (cell: string) => cell.split("/").map((x) => Number(x.trim().replace(/,/g, "")));
/** The report prints ms with 2 decimals under 100 and whole numbers from 100. */
const close = (shown: number, value: number) => Math.abs(shown - value) <= (Math.abs(value) >= 100 ? 0.5 : 0.005) + 1e-9;

describe.skipIf(!existsSync(CHROMIUM))(
  "the static site in headless Chromium (skipped without /usr/bin/chromium: apt-get install chromium; .ci/run installs it)",
  () => {
    it("lists the verified runs and the tampered one as refused, with the reason", async () => {
      expect(site.runs.map((r) => `${r.stack}/${r.runId}`).sort()).toEqual([
        "local/20261128T0900Z",
        "local/20261130T0900Z",
        `local/${COMMITTED_ID}`,
      ]);
      const page = await open("index.html");
      const listed = await page.$$eval("#runs tbody tr", (rows) => rows.map((r) => r.getAttribute("data-run")));
      expect(listed.sort()).toEqual(["local/20261128T0900Z", "local/20261130T0900Z", `local/${COMMITTED_ID}`]);
      const refused = await page.$eval("#refused", (e) => e.textContent ?? "");
      expect(refused).toContain("results/local/20261129T0900Z");
      expect(refused).toMatch(/raw\/rivet\.create\.ping\.jsonl: sha256 [0-9a-f]{64} does not match the manifest's/);
      // A refused run has no page.
      expect(existsSync(join(root, "site", "runs", "local", "20261129T0900Z.html"))).toBe(false);
      await page.screenshot({ path: join(OUTPUT, "index.png") });
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });

    it("leads the index with the newest complete run's headline and its one-clock chart: log scale, one labelled bar per row and side", async () => {
      const page = await open("index.html");
      expect(await page.$eval("#lead h2", (e) => e.textContent ?? "")).toBe(`Newest complete run with a headline: local ${COMMITTED_ID}`);
      expect(await page.$$eval("#lead table tbody tr", (rows) => rows.length)).toBeGreaterThan(5);
      await page.waitForFunction(() => document.body.getAttribute("data-charts") !== null, undefined, { timeout: 60_000 });
      expect(await page.getAttribute("body", "data-charts")).toBe("rendered");
      const chart = await page.$eval("#chart-same-clock", (d) => ({
        bars: d.querySelectorAll("svg g.mark-rect.role-mark path").length,
        labels: [...d.querySelectorAll("svg g.mark-text.role-mark text")].map((t) => t.textContent ?? ""),
        heights: [...d.querySelectorAll("svg g.mark-rect.role-mark path")].map((p) => (p as SVGGraphicsElement).getBBox().height),
        axis: d.querySelector("svg g[class*='role-axis-title']")?.textContent ?? "",
      }));
      expect(chart.bars).toBeGreaterThan(10);
      expect(chart.labels.length).toBe(chart.bars);
      for (const l of chart.labels) expect(Number(l)).toBeGreaterThan(0);
      for (const h of chart.heights) expect(h).toBeGreaterThan(3);
      expect(chart.axis).toContain("log scale");
      await page.screenshot({ path: join(OUTPUT, "index-lead.png"), fullPage: true });
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });

    it("draws every chart of a run in the page, and its headline equals summary.json", async () => {
      const page = await open(`runs/local/${COMMITTED_ID}.html`);
      await page.waitForFunction(() => document.body.getAttribute("data-charts") !== null, undefined, { timeout: 60_000 });
      expect(await page.getAttribute("body", "data-charts")).toBe("rendered");
      const charts = await page.$$eval(".chart", (divs) =>
        divs.map((d) => ({
          name: d.getAttribute("data-chart"),
          marks: d.querySelectorAll("svg g[class*='mark-'] path, svg g[class*='mark-'] rect, svg g[class*='mark-'] line").length,
        })),
      );
      // The default run has no scaling group, so no scale chart (workloads/sides/floor/floor.e2e.test.ts draws one).
      expect(charts.map((c) => c.name)).toEqual(
        expect.arrayContaining(["headline", "same-clock", "cdf-create", "cdf-wake", "hist-create"]),
      );
      for (const c of charts) expect(c.marks, `${c.name} has SVG marks`).toBeGreaterThan(0);

      const summary = JSON.parse(readFileSync(join(COMMITTED, "report", "summary.json"), "utf8")) as { rows: SummaryRow[] };
      const table = await page.$$eval("#clock-own table", (ts) => {
        const t = ts[0];
        const head = [...t.querySelectorAll("thead th")].map((th) => th.textContent ?? "");
        return {
          head,
          rows: [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")),
        };
      });
      let checked = 0;
      for (const row of summary.rows) {
        const label = CATALOG.find((e) => e.id === row.metric)?.label;
        const line = table.rows.find((r) => r[0] === label);
        if (!label || !line) continue;
        const col = table.head.findIndex((h) => h.startsWith(`${LEGACY_BOOK.get(row.side as Side).name}:`));
        if (col < 0) continue;
        const [p50, p90, p99] = triple(line[col]);
        expect(
          close(p50, row.p50) && close(p90, row.p90) && close(p99, row.p99),
          `${row.side} ${row.metric}: page ${line[col]}, summary.json ${row.p50} / ${row.p90} / ${row.p99}`,
        ).toBe(true);
        expect(Number(line[col + 1]), `${row.side} ${row.metric} n`).toBe(row.n);
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(30);
      await page.screenshot({ path: join(OUTPUT, "run.png") });

      // Hovering a CDF names the sample under the pointer: its ms, the fraction below it and the series.
      const points = page.locator("#chart-cdf-create g.mark-symbol path");
      await points.nth(Math.floor((await points.count()) * 0.8)).hover({ force: true });
      await page.waitForSelector("#vg-tooltip-element.visible");
      expect(await page.$eval("#vg-tooltip-element", (e) => e.textContent ?? "")).toMatch(
        /ms \(log scale\)[\d.]+fraction of samples[\d.]+sideShort(Rivet|DO|Floor)metriccreate\.\w+/,
      );
      const box = (await page.locator("#chart-cdf-create").boundingBox())!;
      await page.screenshot({
        path: join(OUTPUT, "run-cdf-hover.png"),
        clip: { x: Math.max(0, box.x - 20), y: Math.max(0, box.y - 20), width: box.width + 40, height: box.height + 40 },
      });

      // The page opens on one clock for every side, as the index leads; the switch shows each side's own.
      expect(await page.isVisible("#clock-same")).toBe(true);
      expect(await page.isVisible("#clock-own")).toBe(false);
      expect(await page.$eval("#clock-same", (e) => e.textContent ?? "")).toContain("Rivet Actor (client)");
      await page.screenshot({ path: join(OUTPUT, "run-same-clock.png") });
      await page.check('input[name="clock"][value="own"]');
      expect(await page.isVisible("#clock-own")).toBe(true);
      expect(await page.isVisible("#clock-same")).toBe(false);
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });

    it("draws the intervals summary.json has on the idle, scale and capacity charts, and legends that show each line's dash", async () => {
      const rendered = async (id: string) => {
        const page = await open(`runs/local/${id}.html`, "", "site-charts");
        await page.waitForFunction(() => document.body.getAttribute("data-charts") !== null, undefined, { timeout: 60_000 });
        expect(await page.getAttribute("body", "data-charts")).toBe("rendered");
        return page;
      };
      const summaryOf = (id: string) => JSON.parse(readFileSync(resolve("results/local", id, "report", "summary.json"), "utf8"));
      const rules = (page: Page, chart: string, width?: string) =>
        page.$$eval(
          `#chart-${chart} g.mark-rule.role-mark line`,
          (ls, w) => ls.filter((l) => w === undefined || l.getAttribute("stroke-width") === w).length,
          width,
        );
      const both = (iv: { lo: number | null; hi: number | null }) => iv.lo !== null && iv.hi !== null;

      const idleRun = await rendered(CHART_RUNS.idle);
      const idle = summaryOf(CHART_RUNS.idle) as {
        idle: Array<{ p50: number | null; p50Interval: { lo: number | null; hi: number | null } }>;
        rows: SummaryRow[];
      };
      const idleIntervals = idle.idle.filter((s) => s.p50 !== null && both(s.p50Interval)).length;
      expect(idleIntervals).toBeGreaterThan(5);
      expect(await rules(idleRun, "idle")).toBe(idleIntervals);
      const scaleIntervals = idle.rows
        .filter((r) => /^scale\.(wake|create)\./.test(r.metric) && r.n > 0)
        .flatMap((r) => [r.repetitions.ci.p50, r.repetitions.ci.p99])
        .filter(both).length;
      expect(scaleIntervals).toBeGreaterThan(5);
      expect(await rules(idleRun, "scale")).toBe(scaleIntervals);
      // The p50 and p90 legend entries are stroked lines with different dashes, not one filled dot twice.
      const dashes = await idleRun.$$eval("#chart-idle g.role-legend-symbol path", (ps) =>
        ps
          .filter((p) => p.getAttribute("stroke-dasharray") !== null && p.getAttribute("stroke"))
          .map((p) => p.getAttribute("stroke-dasharray")),
      );
      expect(new Set(dashes).size).toBe(2);
      await idleRun.screenshot({ path: join(OUTPUT, "run-idle.png"), fullPage: true });

      const capacityRun = await rendered(CHART_RUNS.capacity);
      const capacity = summaryOf(CHART_RUNS.capacity) as { capacity: Array<{ interval: { lo: number | null; hi: number | null } }> };
      const knees = capacity.capacity.filter((c) => both(c.interval)).length;
      expect(knees).toBeGreaterThan(3);
      expect(await rules(capacityRun, "capacity", "5")).toBe(knees);
      // Rate labels on one axis never overlap (they once ran together as "1020200").
      const overlaps = await capacityRun.$$eval("#chart-capacity g.role-axis-label text", (ts) => {
        const boxes = ts.filter((t) => t.getAttribute("opacity") !== "0").map((t) => t.getBoundingClientRect());
        return boxes.filter((a, i) =>
          boxes.some((b, j) => j > i && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom),
        ).length;
      });
      expect(overlaps).toBe(0);
      await capacityRun.screenshot({ path: join(OUTPUT, "run-capacity.png"), fullPage: true });
      for (const page of [idleRun, capacityRun]) expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });

    it("compares two runs with the same statistics code as npm run compare", async () => {
      const a = "local/20261130T0900Z";
      const b = `local/${COMMITTED_ID}`;
      const page = await open("compare.html", `?runs=${a},${b}`);
      await page.waitForSelector("#comparison-table");
      const ratio = await page.$eval("tr[data-key='rivet.create.ping p50'] td[data-ratio]", (td) => td.textContent);
      // npm run compare's row for the same stage: | key | q | A ms | B ms | B/A | 95% interval | detectable | repetitions | verdict |
      const md = compareRuns(older, COMMITTED);
      const mdRow = md
        .split("\n")
        .find((l) => l.startsWith("| rivet.create.ping | p50 |"))!
        .split("|")
        .map((x) => x.trim());
      expect(mdRow[8]).toBe("3 / 3");
      expect(ratio).toBe(mdRow[5]);
      const verdict = await page.$eval("tr[data-key='rivet.create.ping p50'] td[data-verdict]", (td) => td.textContent);
      expect(verdict).toBe(mdRow[9]);
      expect(verdict).toMatch(/^(real: B\/A in|not detected, B\/A within) \[\d+\.\d\d, \d+\.\d\d\] \(\d+\.\d+% interval\)$/);
      expect(await page.$eval("[data-pairing]", (e) => e.getAttribute("data-pairing"))).toBe("unpaired");
      // The same warnings as the CLI's, in its order (the machines differ here: the committed run's CPU against the fixture's own).
      const cliWarnings = md
        .split("Warnings:\n")[1]
        .split("\n\n")[0]
        .split("\n")
        .map((l) => l.replace(/^- /, ""));
      expect(cliWarnings.some((w) => w.startsWith("the machine differs"))).toBe(true);
      expect(await page.$$eval(".warnings li", (li) => li.map((x) => x.textContent))).toEqual(cliWarnings);
      // Unticking a run leaves one: the view asks for two.
      await page.uncheck(`input[value="${b}"]`);
      expect(await page.$eval("#comparison", (e) => e.textContent)).toContain("Pick at least two runs");
      await page.check(`input[value="${b}"]`);
      await page.screenshot({ path: join(OUTPUT, "compare.png") });
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });

    it("lists runs newest first, each with its purpose and machine, an A/B arm linked to its session's comparison", async () => {
      const page = await open("index.html", "", "site-ab");
      const rows = await page.$$eval("#runs tbody tr", (trs) =>
        trs.map((tr) => ({ run: tr.getAttribute("data-run"), cells: [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "") })),
      );
      // The arms started 01:40 and after; the small run beside them at 00:00.
      expect(rows.map((r) => r.run)).toEqual(["local/20261205T0140Z-2", "local/20261205T0140Z", "local/20261205T0000Z"]);
      expect(rows[0].cells[3]).toContain("A/B arm B of ab-20261205T0140Z (--engine-version 2.3.19)");
      expect(rows[1].cells[3]).toContain("A/B arm A of ab-20261205T0140Z (--engine-version 2.3.18)");
      expect(rows[0].cells[4]).toMatch(/^2 x Intel\(R\) Xeon\(R\) Processor, /);
      await page.click("#runs tbody tr:first-child a.ab");
      expect(page.url()).toMatch(/\/ab\/local\/ab-20261205T0140Z\.html$/);
      expect(await page.textContent("main")).toContain("p50 (the primary family): 0 of 19 rows a real difference");
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });

    it("opens on the newest run against its A/B partner, pairs the arms as npm run compare does, and warns of what differs", async () => {
      const page = await open("compare.html", "", "site-ab");
      await page.waitForSelector("#comparison-table");
      expect(await page.$eval("[data-pairing]", (e) => e.getAttribute("data-pairing"))).toBe("paired");
      const md = compareRuns(resolve("results/local", AB_ARMS[0]), resolve("results/local", AB_ARMS[1]));
      expect(md).toContain("Paired: the two arms of one interleaved session");
      const rows = md
        .split("\n")
        .filter((l) => /^\| [a-z]+\.[^|]+ \| p(50|90|99) \|/.test(l))
        .map((l) => l.split("|").map((x) => x.trim()));
      expect(rows.length).toBeGreaterThan(5);
      // The arms ran on one machine: nothing about it to warn of.
      expect(
        (await page.$$eval(".warnings li", (li) => li.map((x) => x.textContent ?? ""))).filter((w) => w.includes("machine differs")),
      ).toEqual([]);
      for (const r of rows) {
        const key = `${r[1]} ${r[2]}`;
        const cell = await page.$(`tr[data-key='${key}'] td[data-verdict]`);
        expect(cell, key).not.toBeNull();
        expect(await cell!.textContent(), key).toBe(r[9]);
      }
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });

    it("a hostile run's strings stay text on its page and the index: no script of theirs runs, no element or heading comes from them", async () => {
      for (const path of ["runs/local/20261128T0900Z.html", "index.html"]) {
        const page = await open(path);
        await page.waitForLoadState("load");
        expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), path).toBeUndefined();
        expect(
          await page.$$eval("h1, h2, h3, h4, h5, h6", (hs) => hs.filter((h) => (h.textContent ?? "").includes("forged")).length),
          path,
        ).toBe(0);
        expect(await page.$$eval("img", (xs) => xs.length), path).toBe(0);
        // The only inline script is the charts' JSON (the index's lead chart too); every other script is one of the site's own files.
        expect(await page.$$eval("script:not([src])", (xs) => xs.map((x) => x.getAttribute("type"))), path).toEqual(["application/json"]);
        expect(await page.$$eval("a[href^='javascript']", (xs) => xs.length), path).toBe(0);
        if (path !== "index.html") expect(await page.$eval("main", (m) => m.textContent ?? ""), path).toContain("window.__pwned=1");
        await page.close();
      }
    });
  },
);
