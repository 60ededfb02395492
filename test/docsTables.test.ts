/** Tables in docs/ that restate code are checked against it: the presets and the flags of npm start, the Rivet stages of the methodology, the reference beside a committed run. */
import { IDLE_LADDERS, idleLabel } from "../analysis/contract/idleLadder";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CATALOG, PRESET_REPEAT, PRESET_SCALE_LEVELS, PRESETS, sideMeasures, type SampleCounts } from "../analysis/contract/catalog";
import { RIVET_PROFILE } from "../workloads/sides/rivet/profile";
import { cloudflareSide } from "../workloads/sides/cloudflare/side";
import { FLAGS_END, FLAGS_START, flagsMarkdown, parseRunArgs, RUN_OPTIONS, USAGE } from "../workloads/run/runConfig";
import { referenceMarkdown, REFERENCE_END, REFERENCE_START } from "../analysis/report/referenceTable";
import { claimsBlock, claimsLabel, CLAIMS_END, CLAIMS_START, hopsBlock, hopsLabel, HOPS_END, HOPS_START } from "../analysis/report/readme";
import { CLAIMS } from "../analysis/contract/claims";
import { escapeMd } from "../analysis/report/format";
import { summarizeRun } from "../analysis/stats/summary";
import { verifyRunDir } from "../analysis/contract/verify";

const page = readFileSync(resolve(__dirname, "../docs/local-runs.md"), "utf8");
/** A table row's cells, found by the start of its first cell. */
const rowOf = (start: string) => {
  const line = page.split("\n").find((l) => l.startsWith(`| ${start}`));
  if (!line) throw new Error(`docs/local-runs.md has no row starting "${start}"`);
  return line
    .split(" | ")
    .slice(1)
    .map((c) => c.replace(/ \|$/, "").trim());
};

describe("docs/local-runs.md's presets table", () => {
  // quick, local, large (the same n on every side), then full for Rivet (and the floor) and for the DO (its package's own counts)
  const columns: SampleCounts[] = [PRESETS.quick, PRESETS.local, PRESETS.large, PRESETS.full, cloudflareSide.presetCounts!.full!];
  const cells = (f: (c: SampleCounts) => string) => columns.map(f);
  it("gives each preset's counts and repetitions as analysis/contract/catalog.ts and the DO's package have them", () => {
    expect(rowOf("repetitions")).toEqual(
      [PRESET_REPEAT.quick, PRESET_REPEAT.local, PRESET_REPEAT.large, PRESET_REPEAT.full, PRESET_REPEAT.full].map(String),
    );
    expect(rowOf("create.ping")).toEqual(cells((c) => `${c.createPing} / ${c.createRead} / ${c.createWrite}`));
    expect(rowOf("wake.ping")).toEqual(cells((c) => String(c.wake)));
    expect(rowOf("warm.ping")).toEqual(cells((c) => String(c.warm)));
    expect(rowOf("sqlite.read")).toEqual(cells((c) => `${c.sqliteRead} / ${c.sqliteWrite} / ${c.sqliteScan}`));
    expect(rowOf("burst.c1")).toEqual(cells((c) => String(c.burstAttempts)));
    expect(rowOf("seqwrite")).toEqual(cells((c) => String(c.seqWrite)));
    expect(rowOf("open.r*")).toEqual(cells((c) => String(c.openSeconds)));
    expect(rowOf("scale.wake")).toEqual(cells((c) => `${c.scaleWake} / ${c.scaleCreate} / ${c.scaleBurst}`));
    expect(rowOf("wake.idle.*")).toEqual(cells((c) => String(c.idleWake)));
    expect(rowOf("payload.write.*")).toEqual(cells((c) => String(c.payload)));
    expect(rowOf("alarm.*")).toEqual(cells((c) => String(c.alarms)));
    const ladder = (l: readonly number[]) => l.map(idleLabel).join(",");
    expect(rowOf("idle group: ladder").slice(2)).toEqual([
      ladder(IDLE_LADDERS.local),
      ladder(IDLE_LADDERS.long),
      ladder(IDLE_LADDERS.long),
    ]);
    const levels = (p: keyof typeof PRESET_SCALE_LEVELS) => PRESET_SCALE_LEVELS[p].map((l) => l.toLocaleString("en-US")).join(", ");
    expect(rowOf("scaling group: levels").slice(2)).toEqual([levels("large"), levels("full"), levels("full")]);
  });
});

describe("docs/local-runs.md's flags table", () => {
  it("is the option table's own rendering: every option with its stack key, side, default and bounds", () => {
    const block = page.slice(page.indexOf(FLAGS_START) + FLAGS_START.length, page.indexOf(FLAGS_END));
    expect(page.indexOf(FLAGS_START), "the page has the markers").toBeGreaterThan(0);
    // `npm run flags` rewrites it.
    expect(block.trim()).toBe(flagsMarkdown());
    let usage = "";
    try {
      parseRunArgs(["--help"]);
    } catch (err) {
      usage = (err as Error).message;
    }
    const listed = new Set(
      block
        .split("\n")
        .filter((l) => l.startsWith("| `--"))
        .map((l) => /--[a-z-]+/.exec(l)![0]),
    );
    expect(listed.size).toBeGreaterThan(15);
    expect([...listed].sort()).toEqual([...new Set(usage.match(/--[a-z-]+/g))].filter((f) => f !== "--help").sort());
  });

  it("--help says every option's default and bounds, and the table's defaults are the parser's", () => {
    for (const o of RUN_OPTIONS) {
      const line = USAGE.split("\n").find((l) => l.trimStart().startsWith(`${o.flag} `) || l.trim() === o.flag);
      expect(line, o.flag).toContain(`default ${o.default}`);
      if (o.bounds) expect(line, o.flag).toContain(o.bounds);
    }
    // The numbers the table states are the config's when no option is given.
    const c = parseRunArgs([]);
    const stated = (flag: string) => RUN_OPTIONS.find((o) => o.flag === flag)!.default;
    expect(Number(stated("--wake-idle-ms"))).toBe(c.wakeIdleMs);
    expect(Number(stated("--request-timeout-ms"))).toBe(c.requestTimeoutMs);
    expect(Number(stated("--actor-sleep-timeout-ms"))).toBe(c.actorSleepTimeoutMs);
    expect(Number(stated("--stall-ms"))).toBe(c.stallMs);
    expect(stated("--loopback")).toBe(c.loopback);
    expect(Number(stated("--cf-wake-idle-ms"))).toBe((c.sideSettings.cloudflare as { cfWakeIdleMs: number }).cfWakeIdleMs);
    expect(stated("--engine-topology")).toBe((c.sideSettings.rivet as { engineTopology: string }).engineTopology);
  });
});

describe("docs/methodology.md's table of what each Rivet stage measures", () => {
  const text = readFileSync(resolve(__dirname, "../docs/methodology.md"), "utf8");
  const start = text.indexOf("| metric | what happens |");
  const rows = text
    .slice(start)
    .split("\n")
    .slice(2)
    .filter((l) => l.startsWith("| `"));
  /** The metric ids a row's first cell names: `a.b` / `.c` is a.b and a.c; `x.c1` ... `x.c128` every catalog id between. */
  const named = (cell: string): string[] => {
    const ids = [...cell.matchAll(/`([a-z.0-9A-Z]+)`/g)].map((m) => m[1]);
    const base = ids[0].split(".")[0];
    const full = ids.map((id) => (id.startsWith(".") ? `${base}${id}` : id));
    if (cell.includes("..."))
      return CATALOG.filter((e) => e.id.startsWith(`${base}.`) && sideMeasures(RIVET_PROFILE, e.id)).map((e) => e.id);
    return full;
  };
  it("names every metric the Rivet side measures outside the scaling group, and only those", () => {
    expect(start).toBeGreaterThan(0);
    // The capacity steps' ids carry the rate their search chose, the idle ladder's the length the run's ladder gave: one row names each pattern.
    const patterns = rows.filter((r) => r.startsWith("| `capacity.") || r.startsWith("| `wake.idle."));
    expect(patterns).toHaveLength(2);
    const listed = rows.filter((r) => !patterns.includes(r)).flatMap((r) => named(r.split(" | ")[0]));
    const measured = [
      ...CATALOG.filter((e) => sideMeasures(RIVET_PROFILE, e.id) && e.group !== "scale").map((e) => e.id),
      ...RIVET_PROFILE.openRates.map((r) => `open.r${r}`),
    ];
    expect([...new Set(listed)].sort()).toEqual([...new Set(measured)].sort());
  });
  it("gives the Rivet side's open-model rates as the catalog has them", () => {
    const open = rows.find((r) => r.startsWith("| `open."))!;
    expect(open).toContain(`${RIVET_PROFILE.openRates.slice(0, -1).join(", ")} and ${RIVET_PROFILE.openRates.at(-1)} per second`);
  });
});

describe("docs/reference.md's table of the reference beside a committed run", () => {
  it("is what the code makes of the run it names, and of the reference's published figures", () => {
    const doc = readFileSync(resolve(__dirname, "../docs/reference.md"), "utf8");
    const block = doc.slice(doc.indexOf(REFERENCE_START) + REFERENCE_START.length, doc.indexOf(REFERENCE_END));
    const run = /From run `(results\/[a-z0-9-]+\/[0-9TZ-]+)`/.exec(block)?.[1];
    expect(run, "the block names its run").toBeDefined();
    const dir = resolve(__dirname, "..", run!);
    expect(block).toContain(referenceMarkdown(summarizeRun(dir, verifyRunDir(dir))));
    // The reference's own figures as it published them: Rivet's create 4.90 ms p50, the DO's warm request 11 ms.
    expect(block).toMatch(/\| Actor create, first request answered \(no storage\) \| 4\.90 \/ 7\.59 \| [^|]+ \| 222 \/ 1,028 \|/);
    expect(block).toMatch(/\| Warm request \(no storage\) \| 0\.84 \/ 1\.43 \| [^|]+ \| 11\.00 \/ 20\.00 \|/);
  });
});

describe("the README's claims ledger", () => {
  it("is what the code makes of the committed runs it names: at least ten claims, each a dated and sourced one of the claims table, with a verdict", () => {
    const readme = readFileSync(resolve(__dirname, "../README.md"), "utf8");
    const block = readme.slice(readme.indexOf(CLAIMS_START) + CLAIMS_START.length, readme.indexOf(CLAIMS_END));
    const label = block.trim().split("\n")[0];
    const runs = [...label.matchAll(/`(results\/[a-z0-9-]+\/[0-9TZ-]+)`/g)].map((m) => m[1]);
    expect(runs.length, "the block names its runs").toBeGreaterThan(0);
    const root = resolve(__dirname, "..");
    const cwd = process.cwd();
    process.chdir(root);
    try {
      expect(label).toBe(claimsLabel(runs));
      expect(block).toContain(claimsBlock(runs));
    } finally {
      process.chdir(cwd);
    }
    const rows = block.split("\n").filter((line) => /\| (consistent here|not consistent here|not comparable here) \|$/.test(line));
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const row of rows) {
      const claim = CLAIMS.find((c) => row.includes(`| ${escapeMd(c.words)} |`));
      expect(claim, row).toBeDefined();
      expect(claim!.source.length, row).toBeGreaterThan(5);
      expect(claim!.date, row).toMatch(/\d{4}-\d{2}/);
    }
  });
});

describe("the README's waterfall", () => {
  it("is what the code makes of the committed capture run it names: Rivet's warm and create calls, hop by hop", () => {
    const readme = readFileSync(resolve(__dirname, "../README.md"), "utf8");
    const block = readme.slice(readme.indexOf(HOPS_START) + HOPS_START.length, readme.indexOf(HOPS_END));
    const label = block.trim().split("\n")[0];
    const run = /`(results\/[a-z0-9-]+\/[0-9TZ-]+)`/.exec(label)?.[1];
    expect(run, "the block names its run").toBeDefined();
    const cwd = process.cwd();
    process.chdir(resolve(__dirname, ".."));
    try {
      expect(label).toBe(hopsLabel(run!));
      expect(block).toContain(hopsBlock(run!));
    } finally {
      process.chdir(cwd);
    }
    expect(block).toMatch(/\*\*Rivet warm\.ping\*\*, [\d.]+ ms p50: .*Engine before it names the actor [\d.]+/);
    expect(block).toMatch(/\*\*Rivet create\.ping\*\*, [\d.]+ ms p50: .*actor start [\d.]+/);
  });
});
