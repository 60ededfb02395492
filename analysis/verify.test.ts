import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyRunDir } from "./verify";
import { summarizeRun } from "./summary";
import { fixture } from "../test/fixtures";
import { generateReport } from "./report";

const cold = (ms: number, rep: number) => ({ ms, cold: true, rep });

/** Rewrites a raw file through `edit` and pins the new bytes in the manifest, as a hostile runner could: only the content checks can stop it. */
function rewrite(dir: string, file: string, edit: (text: string) => string): void {
  const text = edit(readFileSync(join(dir, file), "utf8"));
  writeFileSync(join(dir, file), text);
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  m.files[file] = { sha256: createHash("sha256").update(text).digest("hex"), lines: text.split("\n").length - 1 };
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(m, null, 2) + "\n");
}

function threeRepetitions(): string {
  return fixture({ "rivet.create.ping": { samples: [cold(40, 0), cold(41, 0), cold(50, 1), cold(52, 1), cold(45, 2), cold(44, 2)] } }, { repetitions: 3 });
}

describe("a run directory with repetitions", () => {
  it("verifies, with each sample in its repetition and each repetition's part of the stage record", () => {
    const dir = threeRepetitions();
    const m = verifyRunDir(dir);
    expect(m.repetitions!.map((r) => [r.rep, r.order])).toEqual([[0, ["rivet"]], [1, ["rivet"]], [2, ["rivet"]]]);
    const st = m.stages["rivet.create.ping"];
    expect([st.attempts, st.repetitions!.map((r) => r.attempts)]).toEqual([6, [2, 2, 2]]);
    const row = summarizeRun(dir, m).rows[0];
    expect(row.repetitions.perRep.p50).toEqual([40, 50, 44]);
    expect(row.p50).toBe(44);
  });

  it("refuses a sample whose repetition the manifest does not list, naming the file, line and repetition", () => {
    const dir = threeRepetitions();
    rewrite(dir, "raw/rivet.create.ping.jsonl", (t) => t.replace('"rep":1,', '"rep":7,'));
    expect(() => verifyRunDir(dir)).toThrow(/raw\/rivet\.create\.ping\.jsonl line 3: names repetition 7, which the manifest does not list \(repetitions 0, 1, 2\)/);
  });

  it("refuses a sample moved to another listed repetition: the parts' counts no longer match", () => {
    const dir = threeRepetitions();
    rewrite(dir, "raw/rivet.create.ping.jsonl", (t) => t.replace('"rep":1,', '"rep":2,'));
    expect(() => verifyRunDir(dir)).toThrow(/stage rivet\.create\.ping: repetition 1 records 2 attempts and 0 errors, but raw\/rivet\.create\.ping\.jsonl holds 1 samples with 0 failures for it/);
  });

  it("refuses a sample with no repetition in a run that has them, and one with a repetition in a run that has none", () => {
    const dir = threeRepetitions();
    rewrite(dir, "raw/rivet.create.ping.jsonl", (t) => t.replace('"rep":0,', ""));
    expect(() => verifyRunDir(dir)).toThrow(/line 1: names no repetition, which the manifest does not list/);
    const single = fixture({ "rivet.create.ping": { samples: [{ ms: 40, cold: true }] } });
    rewrite(single, "raw/rivet.create.ping.jsonl", (t) => t.replace('"seq":0,', '"seq":0,"rep":0,'));
    expect(() => verifyRunDir(single)).toThrow(/line 1: names repetition 0, which the manifest does not list \(a run without repetitions\)/);
  });

  it("the report shows each repetition's p50, their CV and the level that dominates; a one-repetition run's interval says it covers one run only", async () => {
    const md = (await generateReport(threeRepetitions())).markdown;
    expect(md).toContain("This run repeated its plan 3 times, every side's runtime started afresh each time, in these orders: rivet; rivet; rivet.");
    // p50s 40, 50 and 44 (nearest rank of two samples each): CV = SD / mean of them, 5.03 / 44.67.
    expect(md).toMatch(/\| create\.ping \| 6 \| 0 \| 0 \| 44\.00 \[40\.00, 52\.00\] \|.*\| 40\.00, 50\.00, 44\.00 \| 11\.3% \| between repetitions \|/);
    const one = (await generateReport(fixture({ "rivet.create.ping": { samples: [{ ms: 40, cold: true }, { ms: 41, cold: true }] } }))).markdown;
    expect(one).toContain("they cover only the noise within one run, not the run-to-run spread");
  });
});
