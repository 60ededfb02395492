import { describe, expect, it } from "vitest";
import { LEGACY_BOOK } from "../contract/sideProfile";
import { existsSync, readdirSync, readFileSync, writeFileSync, appendFileSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fixture, makeHostile, tree, type S } from "../../test/fixtures";
import { caveats, differencesOf, startStateRows } from "./notesModel";
import { renderDifferences, renderStartStates } from "./sections/runNotes";
import { sideBookOf } from "../contract/sideProfile";
import { controlCostMarkdown, headlineMarkdown, readmeHeadlineMarkdown, sameClockMarkdown } from "./sections/headline";
import { generateReport } from "./report";
import { tableSides } from "./model";
import { summarize, summarizeRun, type RawSample } from "../stats/summary";
import { verifyRunDir } from "../contract/verify";
import { fileDigest, RunDirError } from "../contract/runDirContract";
import { replaceHeadline, README_END, README_START } from "./readme";
import { repSpread } from "../stats/repetitions";
import { headlineData, histogramData, logTicks } from "./chartData";

const range = (n: number, f: (i: number) => S) => Array.from({ length: n }, (_, i) => f(i));

function sampleRun(): string {
  return fixture({
    "rivet.create.ping": {
      samples: [...range(30, (i) => ({ ms: 40 + i, cold: true, actorMs: 0.2 })), { ms: 5, cold: false }, { ms: 15000, ok: false }],
    },
    "rivet.warm.ping": { samples: range(50, (i) => ({ ms: 5 + (i % 10) / 10, actorMs: 0.05 })) },
    "rivet.sqlite.write": { samples: range(50, (i) => ({ ms: 9 + (i % 5), sqlMs: 1.3 })) },
    "rivet.burst.c8": { samples: range(16, () => ({ ms: 400, cold: true })), concurrency: 8, wallMs: 800 },
    "cloudflare.create.unique": { samples: range(20, (i) => ({ ms: 4 + (i % 3), cold: true, clientMs: 8 })) },
    "cloudflare.warm.ping": { samples: range(50, (i) => ({ ms: i % 2, clientMs: 2 })) },
    "cloudflare.sqlite.write": { samples: range(50, () => ({ ms: 2, clientMs: 4 })) },
    "cloudflare.burst.c8": { samples: [10, 20, 30].map((ms) => ({ ms, cold: true, clientMs: ms + 3 })), concurrency: 8, wallMs: 100 },
    "cloudflare.seqwrite": {
      samples: [
        { ms: 4, clientMs: 6 },
        { ms: 4, clientMs: 6 },
      ],
      wallMs: 20,
    },
  });
}

const allFiles = (dir: string): Record<string, Buffer> => {
  const out: Record<string, Buffer> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else out[`${rel}${e.name}`] = readFileSync(join(d, e.name));
    }
  };
  walk(dir, "");
  return out;
};

describe("throughput", () => {
  it("DO rates by Little's law on the Worker mean, Rivet rates measured, both labelled", () => {
    const dir = sampleRun();
    const { throughput, rows } = summarizeRun(dir, verifyRunDir(dir));
    const find = (side: string, metric: string, method: string) =>
      throughput.find((t) => t.side === side && t.metric === metric && t.method === method)!;
    expect(find("cloudflare", "burst.c8", "littles-law").perSecond).toBeCloseTo(400, 10); // 8 x 1000 / 20 ms
    expect(find("cloudflare", "burst.c8", "measured").perSecond).toBeCloseTo(30, 10); // 3 in 100 ms
    expect(find("cloudflare", "seqwrite", "littles-law").perSecond).toBeCloseTo(250, 10); // 1000 / 4 ms
    expect(find("rivet", "burst.c8", "measured").perSecond).toBeCloseTo(20, 10); // 16 in 800 ms
    expect(throughput.some((t) => t.side === "rivet" && t.method === "littles-law")).toBe(false);
    const create = rows.find((r) => r.side === "rivet" && r.metric === "create.ping")!;
    expect(create).toMatchObject({ n: 30, errors: 1, notCold: 1, p50: 54, p90: 66, p99: 69 });
  });
});

describe("generateReport", () => {
  it("writes summary.json of the contract, results.md and charts as valid PNG and SVG", async () => {
    const dir = sampleRun();
    await generateReport(dir);
    const summary = JSON.parse(readFileSync(join(dir, "report/summary.json"), "utf8"));
    expect(Object.keys(summary)).toEqual(["rows", "throughput", "cost", "claims"]);
    // Priced where a price applies, with the table's date; a cell that cannot be priced says why.
    expect(summary.cost.asOf).toMatch(/not read by it/);
    expect(
      summary.cost.cells.find(
        (c: { side: string; metric: string; pricing: string }) =>
          c.side === "rivet" && c.metric === "create.ping" && c.pricing === "Rivet Cloud",
      ),
    ).toMatchObject({ usdPerMillion: null, missing: "its reads and writes are not units this run counts" });
    expect(Object.keys(summary.rows[0])).toEqual([
      "side",
      "metric",
      "n",
      "errors",
      "notCold",
      "restarts",
      "p50",
      "p90",
      "p99",
      "mean",
      "repetitions",
    ]);
    expect(Object.keys(summary.rows[0].repetitions)).toEqual(["k", "perRep", "perRepN", "cv", "ci", "dominant"]);
    expect(Object.keys(summary.throughput[0])).toEqual(["side", "metric", "concurrency", "perSecond", "errors", "attempts", "method"]);
    const md = readFileSync(join(dir, "report/results.md"), "utf8");
    expect(md).toMatch(
      /\| Metric \| Rivet Actor: client round trip through the Engine gateway \(driver hrtime\) \| n \| errors \/ cold flag wrong \| Durable Object: Worker's Date\.now\(\) around the awaited DO call \| n \| errors \/ cold flag wrong \|/,
    );
    expect(md).toMatch(
      /\| Actor create, first request answered \(no storage\) \| 54\.00 \/ 66\.00 \/ 69\.00 \| 30 \| 1 ⚠ \/ 1 \| - \| - \| - \|/,
    );
    // Same clock: the DO rows read clientMs, Rivet rows ms; the DO's warm ping is 0 or 1 on the Worker's clock but 2 on the client's.
    expect(md).toMatch(/## Same clock: the client's round trip on both sides/);
    expect(md).toMatch(/\| Warm request \(no storage\) \| 5\.40 \/ 5\.80 \/ 5\.90 \| 50 \| 2\.00 \/ 2\.00 \/ 2\.00 \| 50 \| - \|/);
    expect(md).toMatch(/Code: commit `[0-9a-f]{12}`/);
    // The reference's "in the actor" row: the SQL interval the Rivet actor reports; the DO reports none.
    expect(md).toMatch(
      /\| SQLite durable write \(1 row\), round trip \| 11\.00 \/ 13\.00 \/ 13\.00 \| 50 \| 0 \/ 0 \| 2\.00 \/ 2\.00 \/ 2\.00 \| 50 \| 0 \/ 0 \|/,
    );
    expect(md).toMatch(
      /\| SQLite durable write \(1 row\), in the actor \(its SQL interval, performance\.now\(\)\) \| 1\.30 \/ 1\.30 \/ 1\.30 \| 50 \| - \| - \| - \| - \|/,
    );
    expect(md).toMatch(
      /\| Burst creates at concurrency 8 \| 20\.0\/s \(0 errors of 16\) \| 30\.0\/s measured by the driver \(0 errors of 3\); by the side's own method, as the column says: 400\/s \|/,
    );
    expect(md).toMatch(/p50 \[95% interval\]/);
    expect(md).toMatch(/does not freeze timers/);
    expect(md).toMatch(/Failures were counted, not retried, and left out of the percentiles: rivet create\.ping 1 of 32/);
    const charts = readdirSync(join(dir, "report/charts"));
    expect(charts).toEqual(
      expect.arrayContaining([
        "headline.png",
        "headline.svg",
        "same-clock.png",
        "same-clock.svg",
        "cdf-create.png",
        "cdf-warm.png",
        "hist-create.png",
      ]),
    );
    for (const c of charts.filter((f) => f.endsWith(".png"))) {
      const png = readFileSync(join(dir, "report/charts", c));
      expect(png.subarray(0, 8).toString("hex"), c).toBe("89504e470d0a1a0a");
      expect(png.subarray(12, 16).toString("ascii"), c).toBe("IHDR");
      expect(png.readUInt32BE(16), c).toBeGreaterThan(100);
    }
    expect(readFileSync(join(dir, "report/charts/headline.svg"), "utf8")).toMatch(/^<svg/);
  });

  it("the same raw files give a byte-identical report directory", async () => {
    const dir = sampleRun();
    await generateReport(dir);
    const first = allFiles(join(dir, "report"));
    await generateReport(dir);
    const second = allFiles(join(dir, "report"));
    expect(Object.keys(second)).toEqual(Object.keys(first));
    for (const k of Object.keys(first)) expect(second[k].equals(first[k]), k).toBe(true);
  });

  it("refuses a tampered raw file, naming it, and writes nothing", async () => {
    const dir = sampleRun();
    appendFileSync(join(dir, "raw/rivet.warm.ping.jsonl"), '{"seq":50,"at":1,"ok":true,"ms":0.1,"cold":null}\n');
    await expect(generateReport(dir)).rejects.toThrow(/raw\/rivet\.warm\.ping\.jsonl: sha256 [0-9a-f]{64} does not match the manifest's/);
    expect(existsSync(join(dir, "report"))).toBe(false);
    expect(existsSync(join(dir, "report.tmp"))).toBe(false);
  });

  it("refuses a missing raw file or run directory with a clear message", async () => {
    const dir = sampleRun();
    rmSync(join(dir, "raw/cloudflare.seqwrite.jsonl"));
    await expect(generateReport(dir)).rejects.toThrow(/raw\/cloudflare\.seqwrite\.jsonl: listed in the manifest but missing/);
    await expect(generateReport(join(dir, "nope"))).rejects.toThrow(/no such run directory/);
    await expect(generateReport(join(dir, "raw"))).rejects.toThrow(/no manifest\.json/);
    expect(existsSync(join(dir, "report"))).toBe(false);
  });
});

describe("what the report refuses, by name", () => {
  const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  const saveManifest = (dir: string, m: unknown) => writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(m, null, 2)}\n`);

  for (const field of ["attempts", "errors", "wallMs"] as const) {
    it(`a stage's ${field} edited in the manifest`, async () => {
      const dir = sampleRun();
      const m = manifestOf(dir);
      m.stages["rivet.burst.c8"][field] += 1;
      saveManifest(dir, m);
      await expect(generateReport(dir)).rejects.toThrow(
        new RegExp(`stage rivet\\.burst\\.c8: the manifest's record differs from the hashed stages/rivet\\.burst\\.c8\\.json \\(${field}:`),
      );
      expect(existsSync(join(dir, "report"))).toBe(false);
    });
  }

  it("a stage record edited in both places: its hash no longer matches", async () => {
    const dir = sampleRun();
    const m = manifestOf(dir);
    m.stages["rivet.burst.c8"].wallMs = 1;
    saveManifest(dir, m);
    writeFileSync(join(dir, "stages/rivet.burst.c8.json"), `${JSON.stringify(m.stages["rivet.burst.c8"], null, 2)}\n`);
    await expect(generateReport(dir)).rejects.toThrow(/stages\/rivet\.burst\.c8\.json: sha256 [0-9a-f]{64} does not match/);
  });

  it("a stage whose counts disagree with its samples, hashes and all", async () => {
    const dir = sampleRun();
    const m = manifestOf(dir);
    m.stages["rivet.warm.ping"].errors = 3;
    saveManifest(dir, m);
    const stageFile = join(dir, "stages/rivet.warm.ping.json");
    writeFileSync(stageFile, `${JSON.stringify(m.stages["rivet.warm.ping"], null, 2)}\n`);
    m.files["stages/rivet.warm.ping.json"] = fileDigest(stageFile);
    saveManifest(dir, m);
    await expect(generateReport(dir)).rejects.toThrow(
      /stage rivet\.warm\.ping: records 50 attempts and 3 errors, but raw\/rivet\.warm\.ping\.jsonl holds 50 samples with 0 failures/,
    );
  });

  it("a malformed sample line, even with a matching hash: one line naming the file and line", async () => {
    const dir = sampleRun();
    const raw = join(dir, "raw/rivet.warm.ping.jsonl");
    const lines = readFileSync(raw, "utf8").split("\n");
    lines[6] = '{"seq":6,"at":1,"ok":"yes","ms":5}';
    writeFileSync(raw, lines.join("\n"));
    const m = manifestOf(dir);
    m.files["raw/rivet.warm.ping.jsonl"] = fileDigest(raw);
    saveManifest(dir, m);
    const err = await generateReport(dir).catch((e: Error) => e);
    expect(err).toBeInstanceOf(RunDirError);
    expect((err as Error).message).toBe('raw/rivet.warm.ping.jsonl:7: not a sample ("ok" must be true or false)');
  });

  it("`npm run report` prints the refusal as one line, no stack trace, and exits 1", () => {
    const dir = sampleRun();
    writeFileSync(join(dir, "raw/rivet.warm.ping.jsonl"), "not json\n");
    const m = manifestOf(dir);
    m.files["raw/rivet.warm.ping.jsonl"] = fileDigest(join(dir, "raw/rivet.warm.ping.jsonl"));
    saveManifest(dir, m);
    const r = spawnSync(process.execPath, [join(__dirname, "..", "..", "dist", "analysis", "report", "cli.js"), dir], { encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual(["report refused: raw/rivet.warm.ping.jsonl:1: not valid JSON"]);
  });

  for (const kind of ["dotdot", "absolute", "symlink"] as const) {
    it(`a listed ${kind} entry, named, with nothing written`, async () => {
      const dir = sampleRun();
      const name = makeHostile(dir, kind);
      const around = tree(join(dir, ".."));
      await expect(generateReport(dir)).rejects.toThrow(kind === "symlink" ? `${name}: not a regular file` : `lists "${name}"`);
      expect(tree(join(dir, ".."))).toEqual(around);
    });
  }

  it("a listed path outside the run directory", async () => {
    const dir = sampleRun();
    const m = manifestOf(dir);
    m.files["../escape.jsonl"] = m.files["raw/rivet.warm.ping.jsonl"];
    saveManifest(dir, m);
    await expect(generateReport(dir)).rejects.toThrow(
      /lists "\.\.\/escape\.jsonl", which is not a plain relative path inside the run directory/,
    );
  });
});

describe("text from a run is Markdown-escaped", () => {
  it("a failure, a preparation error and a CPU model that try to add table cells, links or HTML show literally", async () => {
    const dir = fixture({ "rivet.wake.ping": { samples: [{ ms: 1, cold: true }] } });
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    m.status = "failed";
    m.failure = "boom | injected | cell\n# Heading\n<script>alert(1)</script> [link](http://x) ```";
    m.machine.cpuModel = "EPYC | <b>bold</b> ```";
    writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(m, null, 2)}\n`);
    const { markdown } = await generateReport(dir);
    expect(markdown).toContain(
      "Why: boom \\| injected \\| cell; # Heading; \\<script\\>alert(1)\\</script\\> \\[link\\](http://x) \\`\\`\\`",
    );
    expect(markdown).toContain("EPYC \\| \\<b\\>bold\\</b\\> \\`\\`\\`");
    const outsideFences = markdown.replace(/^(`{3,})json\n[\s\S]*?\n\1$/gm, "");
    expect(outsideFences).not.toMatch(/<script>|<b>/);
    // The machine's JSON holds three backticks, so its fence is four: they cannot close it.
    expect(markdown).toMatch(/^````json\n\{\n {2}"cpus"/m);
  });
});

describe("cold flags on every row", () => {
  it("a warm call that hit a fresh instance is a restart, counted in n and shown", async () => {
    const dir = fixture({ "rivet.warm.ping": { samples: [{ ms: 1 }, { ms: 30, cold: true }, { ms: 1 }, { ms: 2, ok: false }] } });
    const { rows } = summarizeRun(dir, verifyRunDir(dir));
    expect(rows[0]).toMatchObject({ n: 3, errors: 1, notCold: 0, restarts: 1 });
    const { markdown } = await generateReport(dir);
    expect(markdown).toMatch(/\| Warm request \(no storage\) \| 1\.00 \/ 30\.00 \/ 30\.00 \| 3 \| 1 ⚠ \/ 1 \|/);
  });
});

describe("where Cloudflare ran", () => {
  it("names the Worker's data centers from its replies, most calls first, and nothing on a local run", async () => {
    const at = (colo?: string) => ({ ms: 1, clientMs: 2, ...(colo ? { colo } : {}) });
    const cloud = fixture({ "cloudflare.warm.ping": { samples: [at("IAD"), at("IAD"), at("EWR")] } });
    expect((await generateReport(cloud)).markdown).toContain("Where Cloudflare ran it: the Worker in IAD (2 calls), EWR (1 calls).");
    const local = fixture({ "cloudflare.warm.ping": { samples: [at(), at()] } });
    expect((await generateReport(local)).markdown).not.toContain("Where Cloudflare ran it");
  });
  it("a colo that is not a data center code is not a sample", async () => {
    const dir = fixture({ "cloudflare.warm.ping": { samples: [{ ms: 1 }] } });
    const raw = join(dir, "raw/cloudflare.warm.ping.jsonl");
    writeFileSync(raw, '{"seq":0,"at":1,"ok":true,"ms":1,"cold":false,"colo":"<b>x</b>"}\n');
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    m.files["raw/cloudflare.warm.ping.jsonl"] = fileDigest(raw);
    writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(m, null, 2)}\n`);
    await expect(generateReport(dir)).rejects.toThrow(
      'raw/cloudflare.warm.ping.jsonl:1: not a sample ("colo" must be a data center code such as IAD)',
    );
  });
});

describe("the differences between the sides", () => {
  it("lists each adapter's properties from the manifest", async () => {
    const settings = {
      rivet: { adapter: { clock: "client hrtime", sleep: "explicit c.sleep()" } },
      cloudflare: { adapter: { clock: "Worker Date.now()", sleep: "eviction by idle" } },
    };
    const dir = fixture(
      { "rivet.warm.ping": { samples: [{ ms: 1 }] }, "cloudflare.warm.ping": { samples: [{ ms: 1, clientMs: 2 }] } },
      { settings },
    );
    const { markdown } = await generateReport(dir);
    expect(markdown).toMatch(/## How the sides differ/);
    expect(markdown).toMatch(/\| sleep \| explicit c\.sleep\(\) \| eviction by idle \|/);
  });
});

describe("chart domains, ticks and bins (d3-array)", () => {
  it("log ticks are 1, 2 and 5 per decade inside the domain", () => {
    expect(logTicks(0.5, 300)).toEqual([0.5, 1, 2, 5, 10, 20, 50, 100, 200]);
  });
  it("histogram bins hold every counted sample once, on a log scale, and only the counted ones", () => {
    const samples = new Map<string, RawSample[]>([
      [
        "rivet.create.ping",
        [
          ...[3, 4, 5, 40, 50, 5000].map((ms) => ({ ok: true, ms, cold: true })),
          { ok: true, ms: 9, cold: false },
          { ok: false, ms: 15000, cold: null },
        ],
      ],
      ["cloudflare.create.unique", [1, 1, 2].map((ms) => ({ ok: true, ms, cold: true }))],
    ]);
    const bins = histogramData(samples, "create");
    const total = (series: string) => bins.filter((b) => b.series === series).reduce((n, b) => n + b.count, 0);
    expect(total("Rivet create.ping")).toBe(6);
    expect(total("DO create.unique")).toBe(3);
    for (const b of bins) expect(b.to).toBeGreaterThan(b.from);
    // The 5 s sample lands in a bin of its own, far right: the tail is not folded in.
    expect(bins.filter((b) => b.series === "Rivet create.ping").at(-1)).toMatchObject({ count: 1 });
    expect(bins.filter((b) => b.series === "Rivet create.ping").at(-1)!.to).toBeCloseTo(5000, 6);
  });
});

describe("headline chart data", () => {
  it("request = median warm; create and write have that median subtracted from every sample", () => {
    const samples = new Map<string, RawSample[]>([
      ["rivet.warm.ping", [1, 2, 3].map((ms) => ({ ok: true, ms, cold: null }))],
      ["rivet.create.ping", [12, 22, 32].map((ms) => ({ ok: true, ms, cold: true }))],
      ["cloudflare.warm.ping", [10, 11, 12].map((ms) => ({ ok: true, ms, cold: null }))],
      ["cloudflare.create.unique", [111, 211].map((ms) => ({ ok: true, ms, cold: true }))],
      ["cloudflare.create.ping", [999].map((ms) => ({ ok: true, ms, cold: true }))],
    ]);
    const summary = {
      rows: [...samples].map(([k, s]) => summarize(LEGACY_BOOK.get(k.split(".")[0]), k.split(".").slice(1).join("."), s)),
      throughput: [],
      sides: LEGACY_BOOK,
    };
    expect(headlineData(samples, summary)).toEqual([
      {
        group: "Warm request (the baseline)",
        side: "Rivet Actor (client round trip)",
        sideShort: "Rivet",
        ms: 2,
        n: 3,
        lo: null,
        hi: null,
      },
      { group: "Create minus baseline", side: "Rivet Actor (client round trip)", sideShort: "Rivet", ms: 20, n: 3, lo: null, hi: null },
      {
        group: "Warm request (the baseline)",
        side: "Durable Object (Worker-timed DO call)",
        sideShort: "DO",
        ms: 11,
        n: 3,
        lo: null,
        hi: null,
      },
      { group: "Create minus baseline", side: "Durable Object (Worker-timed DO call)", sideShort: "DO", ms: 100, n: 2, lo: null, hi: null },
    ]);
  });
});

describe("the README's headline", () => {
  it("has six columns, the same clock first and the DO's Worker clock beside it, p50 / p99 from the samples, and the run's failures in one line", () => {
    const dir = fixture({
      "rivet.warm.ping": { samples: [4, 5, 6, 7].map((ms) => ({ ms })) },
      "cloudflare.warm.ping": {
        samples: [
          { ms: 0, clientMs: 0.5 },
          { ms: 1, clientMs: 0.7 },
          { ms: 0, clientMs: 0.6 },
          { ms: 2, clientMs: 3 },
        ],
      },
      "cloudflare.create.ping": {
        samples: [
          { ms: 2, cold: true, clientMs: 3 },
          { ms: 9, ok: false },
        ],
      },
    });
    const m = verifyRunDir(dir);
    const samples = new Map<string, RawSample[]>();
    for (const st of Object.values(m.stages))
      samples.set(
        `${st.side}.${st.metric}`,
        readFileSync(join(dir, st.file), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as RawSample),
      );
    const md = readmeHeadlineMarkdown(summarizeRun(dir, m), samples);
    const lines = md.split("\n").filter((l) => l.startsWith("|"));
    for (const l of lines) expect(l.split("|").length - 2).toBeLessThanOrEqual(6);
    expect(lines[0]).toBe(
      "| Metric | Rivet Actor (client) | Durable Object (client, via the Worker) | Durable Object (Worker's clock) | Floor (client) | n |",
    );
    // nearest rank over 4 samples: p50 is the 2nd, p99 the 4th
    expect(lines).toContain("| Warm request (no storage) | 5.00 / 7.00 | 0.60 / 3.00 | 0.00 / 2.00 | - | 4 |");
    expect(lines).toContain("| Actor create, first request answered (no storage) | - | 3.00 / 3.00 | 2.00 / 2.00 | - | 1 |");
    expect(md).toContain("Over every row of the run: failed calls 1, creates or wakes not proven cold 0, restarts inside a series 0.");
  });
});

describe("the caveats of a changed run", () => {
  it("say first that a side had a planted delay, another Engine release, or was an A/B arm, as text", () => {
    const dir = fixture(
      { "floor.warm.ping": { samples: [{ ms: 1 }] } },
      {
        settings: {
          floor: { plantedDelay: "400 us planted [x](y)" },
          rivet: { engineRelease: { version: "2.3.18", sha256: "a7754e8206e7dc183e16d724" } },
          ab: { id: "ab-1", arm: "B", partnerRunId: "20261205T0100Z" },
        },
      },
    );
    const c = caveats(verifyRunDir(dir));
    expect(c[0]).toBe(
      "**A planted change**, Floor (Node http + SQLite file): 400 us planted \\[x\\](y). Every figure of that side includes it.",
    );
    expect(c[1]).toMatch(/^The Rivet Engine is release 2\.3\.18 \(asked for with --engine-version; binary sha256 a7754e8206e7dc18\.\.\./);
    expect(c[2]).toMatch(/^Arm B of the A\/B session ab-1: its repetitions alternated with those of run 20261205T0100Z/);
  });
});

describe("README and compare helpers", () => {
  it("replaces only the block between the markers, and says how to add them when absent", () => {
    const readme = `# x\n\n${README_START}\nold\n${README_END}\n\nrest\n`;
    expect(replaceHeadline(readme, "label", "| t |")).toBe(`# x\n\n${README_START}\nlabel\n\n| t |\n${README_END}\n\nrest\n`);
    expect(() => replaceHeadline("# x\n", "l", "h")).toThrow(/no headline markers/);
  });
});

describe("caveats", () => {
  it("name the actors a stage could not prepare and what failed in a failed run", () => {
    const dir = fixture({ "rivet.wake.read": { samples: [{ ms: 30, cold: true }] } });
    const m = verifyRunDir(dir);
    m.stages["rivet.wake.read"].notes = { preparationFailures: 1, preparationErrors: ["HTTP 504: route_resolve_query_timeout"] };
    m.status = "failed";
    m.failure = "rivet burst: setup failed\nsecond line";
    const text = caveats(m).join("\n");
    expect(text).toContain(
      "Actors that could not be prepared were left out of their stage, not retried: rivet wake.read 1 (e.g. HTTP 504: route\\_resolve\\_query\\_timeout)",
    );
    expect(text).toContain('This run is partial: its status is "failed". Why: rivet burst: setup failed; second line');
  });
  it("say of a run made with --capture which stages ran beside tcpdump; nothing of a run made without", () => {
    const dir = fixture({ "floor.warm.ping": { samples: [{ ms: 1 }] } });
    const m = verifyRunDir(dir);
    expect(caveats(m).join("\n")).not.toContain("--capture");
    m.stages["floor.warm.ping"].notes = { capture: { file: "raw/floor.warm.ping.rep0.pcap", port: 4000, droppedByKernel: 0 } };
    expect(caveats(m).join("\n")).toContain(
      "A run made with --capture: warm.ping were measured with tcpdump capturing the loopback beside them",
    );
    expect(caveats(m).join("\n")).not.toContain("--otel");
    m.files["raw/floor.otlp.rep0.grpc"] = { sha256: "0".repeat(64), lines: 0 };
    expect(caveats(m).join("\n")).toContain("A run made with --otel: a trace collector ran on the loopback for floor");
  });
  it("say first that a run fell back from the quickack loopback, and why; nothing when it did not", () => {
    const dir = fixture({ "floor.warm.ping": { samples: [{ ms: 1 }] } });
    const m = verifyRunDir(dir);
    expect(caveats(m).join("\n")).not.toContain("Host loopback");
    m.config = { ...m.config, loopback: "host", loopbackFallback: "unshare: user namespaces are off" };
    expect(caveats(m)[0]).toMatch(
      /^\*\*Host loopback\.\*\* The run asked for `--loopback quickack` and could not make a private network namespace \(unshare: user namespaces are off\)/,
    );
  });
  it("name a stage its deadline ended, with its outcome, and leave the run complete", () => {
    const dir = fixture({ "rivet.wake.ping": { samples: [{ ms: 30, cold: true }] } });
    const m = verifyRunDir(dir);
    m.stages["rivet.wake.ping"].notes = {
      deadline: { ms: 600_000, done: 62, planned: 200, outcome: "deadline: 62 of 200 calls done in 600 s" },
    };
    const text = caveats(m).join("\n");
    expect(text).toContain(
      "Stages ended by their deadline, their samples kept (where a runtime stopped keeping up, this is the end of its curve, not a crash): rivet wake.ping: deadline: 62 of 200 calls done in 600 s.",
    );
    expect(text).not.toContain("partial");
  });
});

describe("the floor beside the runtimes", () => {
  const warm = (ms: number, clientMs?: number): RawSample => ({
    ok: true,
    ms,
    cold: false,
    ...(clientMs === undefined ? {} : { clientMs }),
  });
  const samples = new Map<string, RawSample[]>([
    ["floor.warm.ping", Array.from({ length: 9 }, () => warm(0.5))],
    ["rivet.warm.ping", Array.from({ length: 9 }, () => warm(2))],
    // The DO's ms is the Worker's clock (0 here); its client round trip is clientMs.
    ["cloudflare.warm.ping", Array.from({ length: 9 }, () => warm(0, 1.5))],
    ["floor.sqlite.write", Array.from({ length: 9 }, () => warm(3))],
    ["rivet.sqlite.write", Array.from({ length: 9 }, () => warm(2.5))],
  ]);
  it("each runtime's p50 over the floor's, all on the driver's clock: the difference with its sign, and the ratio", () => {
    const md = controlCostMarkdown(samples, LEGACY_BOOK);
    expect(md).toMatch(/^## Cost over the floor/);
    expect(md).toContain("| Warm request (no storage) | 0.50 / 0.50 / 0.50 | 9 | 2.00 | +1.50 | 4.0x | 1.50 | +1.00 | 3.0x |");
    expect(md).toContain("| SQLite durable write (1 row), round trip | 3.00 / 3.00 / 3.00 | 9 | 2.50 | -0.50 | 0.8x | - | - | - |");
    expect(md).not.toContain("| Actor create");
  });
  it("the same-clock table gains a floor column, with a header for every cell", () => {
    const md = sameClockMarkdown(samples, LEGACY_BOOK);
    const lines = md.split("\n").filter((l) => l.startsWith("|"));
    expect(lines[0]).toBe(
      "| Metric | Rivet Actor (client) | n | Durable Object (client, via the Worker) | n | Floor (client) | n | DO client p50 minus /noop p50 |",
    );
    for (const l of lines) expect(l.split("|").length, l).toBe(lines[0].split("|").length);
    expect(md).toContain("| Warm request (no storage) | 2.00 / 2.00 / 2.00 | 9 | 1.50 / 1.50 / 1.50 | 9 | 0.50 / 0.50 / 0.50 | 9 | - |");
    expect(
      sameClockMarkdown(new Map([...samples].filter(([k]) => !k.startsWith("floor."))), LEGACY_BOOK)
        .split("\n")
        .find((l) => l.startsWith("| Metric")),
    ).not.toContain("Floor");
  });
  it("no floor samples, no section; the headline gains the floor's columns only when the run has it", () => {
    expect(controlCostMarkdown(new Map([...samples].filter(([k]) => !k.startsWith("floor."))), LEGACY_BOOK)).toBe("");
    const row = (side: string, metric: string, p: number) => ({
      side,
      metric,
      n: 9,
      errors: 0,
      notCold: 0,
      restarts: 0,
      p50: p,
      p90: p,
      p99: p,
      mean: p,
      repetitions: repSpread([[p]], 0.000001),
    });
    const withFloor = headlineMarkdown({
      rows: [row("rivet", "warm.ping", 2), row("floor", "warm.ping", 0.5)],
      throughput: [],
      sides: LEGACY_BOOK,
    });
    expect(withFloor).toContain(
      "| Floor (Node http + SQLite file): client round trip to a plain Node server (driver hrtime) | n | errors / cold flag wrong |",
    );
    expect(withFloor).toContain(
      "| Warm request (no storage) | 2.00 / 2.00 / 2.00 | 9 | 0 / 0 | - | - | - | 0.50 / 0.50 / 0.50 | 9 | 0 / 0 |",
    );
    expect(headlineMarkdown({ rows: [row("rivet", "warm.ping", 2)], throughput: [], sides: LEGACY_BOOK })).not.toContain("Floor");
  });
});

describe("what each group started from", () => {
  const stage = (side: string, metric: string, startState: unknown) => ({
    side,
    metric,
    file: `raw/${side}.${metric}.jsonl`,
    attempts: 1,
    errors: 0,
    wallMs: 1,
    concurrency: 1,
    startedAt: "",
    notes: { startState },
  });
  const st = (group: string, existing: number, awake: number) => ({
    group,
    before: { existing, awake },
    atStart: { existing, awake: 0 },
    settleMs: 1500,
    sleepFailures: 0,
    atStage: { existing, awake: 0 },
  });
  it("one row per side and group, from the group's first stage, in suite order", () => {
    const m = {
      stages: {
        "rivet.burst.c8": stage("rivet", "burst.c8", st("burst", 999, 9)),
        "rivet.burst.c1": stage("rivet", "burst.c1", st("burst", 900, 12)),
        "rivet.create.ping": stage("rivet", "create.ping", st("create", 0, 0)),
        "floor.warm.ping": stage("floor", "warm.ping", st("warm", 40, 40)),
        "cloudflare.warm.ping": stage("cloudflare", "warm.ping", { group: "warm", before: "lots" }),
      },
    } as never;
    const md = renderStartStates(startStateRows(m), sideBookOf(m));
    expect(md).toMatch(/^## What each group started from/);
    const rows = md.split("\n").filter((l) => /^\| (Rivet|Floor|Durable)/.test(l));
    expect(rows).toEqual([
      "| Rivet Actor | create | 0 | 0 | 0 | 1.5 | 0 |",
      "| Rivet Actor | burst | 900 | 12 | 0 | 1.5 | 0 |",
      "| Floor (Node http + SQLite file) | warm | 40 | 40 | 0 | 1.5 | 0 |",
    ]);
    expect(renderStartStates(startStateRows({ stages: {} } as never), sideBookOf({ stages: {} } as never))).toBe("");
  });
});

describe("which sides a table shows", () => {
  it("both runtimes always, in catalog order; the floor only where measured", () => {
    expect(tableSides(LEGACY_BOOK, new Set())).toEqual(["rivet", "cloudflare"]);
    expect(tableSides(LEGACY_BOOK, new Set(["cloudflare"]))).toEqual(["rivet", "cloudflare"]);
    expect(tableSides(LEGACY_BOOK, new Set(["floor", "rivet"]))).toEqual(["rivet", "cloudflare", "floor"]);
  });
});

describe("how the sides differ", () => {
  it("lists the timed calls' client of each side, as its manifest names it, above the adapters' properties", () => {
    const m = {
      settings: {
        rivet: { client: "the driver's own HTTP/1.1 client; at most 256 connections", adapter: { clock: "client rtt" } },
        cloudflare: { client: "the driver's own HTTP/1.1 client; at most 256 connections", adapter: { clock: "Worker Date.now()" } },
      },
    };
    const md = renderDifferences(differencesOf(m as never), sideBookOf(m as never));
    const lines = md.split("\n").filter((l) => l.startsWith("|"));
    expect(lines[2]).toBe(
      "| timed calls' client | the driver's own HTTP/1.1 client; at most 256 connections | the driver's own HTTP/1.1 client; at most 256 connections |",
    );
    expect(lines[3]).toContain("| clock | client rtt | Worker Date.now() |");
  });
  it("has no client row for a run whose manifest names none (runs made before the client was recorded per side)", () => {
    const m = { settings: { rivet: { adapter: { clock: "c" } } } } as never;
    const md = renderDifferences(differencesOf(m), sideBookOf(m));
    expect(md).not.toContain("timed calls' client");
  });
});
