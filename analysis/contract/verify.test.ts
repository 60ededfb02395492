import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyRunDir } from "./verify";
import { summarizeRun } from "../stats/summary";
import { fixture } from "../../test/fixtures";
import { generateReport } from "../report/report";
import { partialRun } from "../report/notesModel";
import { compressRawFiles, readListed, stageSamples } from "./runDirContract";
import { CHECKPOINT_MS, RunDir } from "../../workloads/experiment/runDir";

const cold = (ms: number, rep: number) => ({ ms, cold: true, rep });

/** Rewrites a raw file through `edit` and pins the new bytes in the manifest, as a hostile runner could: only the content checks can stop it. */
function rewrite(dir: string, file: string, edit: (text: string) => string): void {
  const text = edit(readFileSync(join(dir, file), "utf8"));
  writeFileSync(join(dir, file), text);
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  m.files[file] = { sha256: createHash("sha256").update(text).digest("hex"), lines: text.split("\n").length - 1 };
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(m, null, 2)}\n`);
}

function threeRepetitions(): string {
  return fixture(
    { "rivet.create.ping": { samples: [cold(40, 0), cold(41, 0), cold(50, 1), cold(52, 1), cold(45, 2), cold(44, 2)] } },
    { repetitions: 3 },
  );
}

describe("a run directory with repetitions", () => {
  it("verifies, with each sample in its repetition and each repetition's part of the stage record", () => {
    const dir = threeRepetitions();
    const m = verifyRunDir(dir);
    expect(m.repetitions!.map((r) => [r.rep, r.order])).toEqual([
      [0, ["rivet"]],
      [1, ["rivet"]],
      [2, ["rivet"]],
    ]);
    const st = m.stages["rivet.create.ping"];
    expect([st.attempts, st.repetitions!.map((r) => r.attempts)]).toEqual([6, [2, 2, 2]]);
    const row = summarizeRun(dir, m).rows[0];
    expect(row.repetitions.perRep.p50).toEqual([40, 50, 44]);
    expect(row.p50).toBe(44);
  });

  it("refuses a sample whose repetition the manifest does not list, naming the file, line and repetition", () => {
    const dir = threeRepetitions();
    rewrite(dir, "raw/rivet.create.ping.jsonl", (t) => t.replace('"rep":1,', '"rep":7,'));
    expect(() => verifyRunDir(dir)).toThrow(
      /raw\/rivet\.create\.ping\.jsonl line 3: names repetition 7, which the manifest does not list \(repetitions 0, 1, 2\)/,
    );
  });

  it("refuses a sample moved to another listed repetition: the parts' counts no longer match", () => {
    const dir = threeRepetitions();
    rewrite(dir, "raw/rivet.create.ping.jsonl", (t) => t.replace('"rep":1,', '"rep":2,'));
    expect(() => verifyRunDir(dir)).toThrow(
      /stage rivet\.create\.ping: repetition 1 records 2 attempts and 0 errors, but raw\/rivet\.create\.ping\.jsonl holds 1 samples with 0 failures for it/,
    );
  });

  it("refuses a sample with no repetition in a run that has them, and one with a repetition in a run that has none", () => {
    const dir = threeRepetitions();
    rewrite(dir, "raw/rivet.create.ping.jsonl", (t) => t.replace('"rep":0,', ""));
    expect(() => verifyRunDir(dir)).toThrow(/line 1: names no repetition, which the manifest does not list/);
    const single = fixture({ "rivet.create.ping": { samples: [{ ms: 40, cold: true }] } });
    rewrite(single, "raw/rivet.create.ping.jsonl", (t) => t.replace('"seq":0,', '"seq":0,"rep":0,'));
    expect(() => verifyRunDir(single)).toThrow(
      /line 1: names repetition 0, which the manifest does not list \(a run without repetitions\)/,
    );
  });

  it("the report shows each repetition's p50, their CV and the level that dominates; a one-repetition run prints no interval and says why", async () => {
    const md = (await generateReport(threeRepetitions())).markdown;
    expect(md).toContain(
      "This run repeated its plan 3 times, every side's runtime started afresh each time, in these orders: rivet; rivet; rivet.",
    );
    // p50s 40, 50 and 44 (nearest rank of two samples each): CV = SD / mean of them, 5.03 / 44.67; the interval is
    // exp(mean log ± t(2) s / √3) of those three; the p90 and p99 of two samples a repetition are each one's maximum.
    expect(md).toMatch(
      /\| create\.ping \| 6 \| 0 \| 0 \| 44\.00 \[33\.68, 58\.74\] \| [\d.]+ \(no interval: each repetition's p90 is its maximum\) \|.*\| 40\.00, 50\.00, 44\.00 \| 11\.3% \| between repetitions \|/,
    );
    const one = (
      await generateReport(
        fixture({
          "rivet.create.ping": {
            samples: [
              { ms: 40, cold: true },
              { ms: 41, cold: true },
            ],
          },
        }),
      )
    ).markdown;
    expect(one).toContain("The run made one repetition, so no interval is printed");
    expect(one).toContain("(no interval: one repetition)");
  });
});

describe("a run that never finished (its driver killed) or was interrupted", () => {
  /** A run made by the driver's own RunDir: one stage recorded in repetition 1, the next still taking samples in repetition 2. */
  async function killedMidStage() {
    const run = new RunDir(mkdtempSync(join(tmpdir(), "ab-killed-")), "local", "quick", {});
    const sample = (seq: number) => ({ seq, at: 1, ok: true, ms: 10 + seq, cold: false });
    const write = (metric: string, n: number) => {
      const f = run.rawFile("rivet", metric);
      for (let i = 0; i < n; i++) f.write(sample(i));
      return f;
    };
    run.beginRepetition(0, ["rivet"]);
    const a = write("warm.ping", 4);
    a.close();
    run.recordStage({
      side: "rivet",
      metric: "warm.ping",
      file: "raw/rivet.warm.ping.jsonl",
      attempts: 4,
      errors: 0,
      wallMs: 1,
      concurrency: 1,
      startedAt: "x",
    });
    run.endRepetition();
    run.beginRepetition(1, ["rivet"]);
    const b = write("warm.ping", 3);
    // A checkpoint hashes the 3 samples so far; 2 more follow it before the kill.
    await new Promise((r) => setTimeout(r, CHECKPOINT_MS + 300));
    for (let i = 3; i < 5; i++) b.write(sample(i));
    return run;
  }

  it("verifies what the last checkpoint hashed, leaves out the stage that never ended, and says the run is partial", async () => {
    const run = await killedMidStage();
    const m = verifyRunDir(run.dir);
    expect(m.status).toBe("running");
    expect(m.files["raw/rivet.warm.ping.jsonl"].lines).toBe(7);
    // repetition 2 never recorded its part: its samples are not read
    expect(stageSamples(run.dir, m, m.stages["rivet.warm.ping"]).map((s) => s.rep)).toEqual([0, 0, 0, 0]);
    expect(summarizeRun(run.dir, m).rows[0]).toMatchObject({ n: 4 });
    const text = partialRun(m).join("\n");
    expect(text).toContain("This run is partial: it never finished");
    expect(text).toContain("`raw/rivet.warm.ping.jsonl` (repetition 2)");
    await generateReport(run.dir);
    expect(readFileSync(join(run.dir, "report", "results.md"), "utf8")).toContain(
      "**Partial run.** This run is partial: it never finished",
    );
  });

  it("still refuses a hashed line changed after the run, in one line naming the file", async () => {
    const run = await killedMidStage();
    const path = join(run.dir, "raw/rivet.warm.ping.jsonl");
    writeFileSync(path, readFileSync(path, "utf8").replace('"ms":10,', '"ms":1,'));
    expect(() => verifyRunDir(run.dir)).toThrow(/^raw\/rivet\.warm\.ping\.jsonl: sha256 [0-9a-f]+ does not match the manifest's/);
  });

  it("a finished run gets no such leniency: a line after the hash is a changed file", async () => {
    const run = await killedMidStage();
    run.finish("complete");
    // Stored compressed once finished: the line goes into the compressed file, as an edit would.
    const text = readListed(run.dir, "raw/rivet.warm.ping.jsonl").toString("utf8");
    writeFileSync(join(run.dir, "raw/rivet.warm.ping.jsonl.gz"), gzipSync(`${text + text.split("\n")[0]}\n`));
    expect(() => verifyRunDir(run.dir)).toThrow(/sha256 [0-9a-f]+ does not match/);
  });
});

describe("raw samples stored compressed", () => {
  it("a run compressed after it was made verifies against its own hashes and reads the same samples; a damaged or edited .gz is refused", () => {
    const dir = threeRepetitions();
    const m = verifyRunDir(dir);
    const st = m.stages["rivet.create.ping"];
    const before = stageSamples(dir, m, st);
    const c = compressRawFiles(dir, m);
    expect(c.before).toBeGreaterThan(0);
    expect(existsSync(join(dir, st.file))).toBe(false);
    expect(existsSync(join(dir, `${st.file}.gz`))).toBe(true);
    expect(stageSamples(dir, verifyRunDir(dir), st)).toEqual(before);
    // Compressed again: nothing plain is left to do.
    expect(compressRawFiles(dir, m)).toEqual({ before: 0, after: 0 });
    const gz = join(dir, `${st.file}.gz`);
    const good = readFileSync(gz);
    writeFileSync(gz, gzipSync(gunzipSync(good).toString("utf8").replace('"ms":40', '"ms":4')));
    expect(() => verifyRunDir(dir)).toThrow(/raw\/rivet\.create\.ping\.jsonl: sha256 [0-9a-f]{64} does not match the manifest's/);
    writeFileSync(gz, good.subarray(0, 10));
    expect(() => verifyRunDir(dir)).toThrow(/raw\/rivet\.create\.ping\.jsonl\.gz: not a gzip file/);
    // A compression cut short leaves both: the plain file is the one read.
    writeFileSync(join(dir, st.file), gunzipSync(good));
    expect(stageSamples(dir, verifyRunDir(dir), st)).toEqual(before);
  });
});
