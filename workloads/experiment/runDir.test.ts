import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { formatRunId, RunDir } from "./runDir";
import { rawText } from "../../test/fixtures";

describe("RunDir", () => {
  it("names runs by UTC minute and never reuses a directory", () => {
    const at = new Date(Date.UTC(2026, 11, 2, 13, 5, 59));
    expect(formatRunId(at)).toBe("20261202T1305Z");
    const root = mkdtempSync(join(tmpdir(), "ab-rundir-"));
    const a = new RunDir(root, "local", "quick", {}, at);
    const b = new RunDir(root, "local", "quick", {}, at);
    expect(a.manifest.runId).toBe("20261202T1305Z");
    expect(b.manifest.runId).toBe("20261202T1305Z-2");
  });

  it("writes samples line by line and lists each raw file with its sha256 and line count", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-rundir-"));
    const run = new RunDir(root, "local", "quick", { x: 1 });
    const f = run.rawFile("rivet", "warm.ping");
    f.write({ seq: 0, at: 1, ok: true, ms: 1.5, cold: null });
    // on disk before close: a crash after this line loses nothing
    expect(readFileSync(f.path, "utf8").split("\n").length).toBe(2);
    f.write({ seq: 1, at: 2, ok: false, ms: 30000, cold: null, error: "timeout" });
    f.close();
    run.recordStage({
      side: "rivet",
      metric: "warm.ping",
      file: "raw/rivet.warm.ping.jsonl",
      attempts: 2,
      errors: 1,
      wallMs: 3,
      concurrency: 1,
      startedAt: "",
    });
    run.finish("complete");
    const m = JSON.parse(readFileSync(join(run.dir, "manifest.json"), "utf8"));
    // Stored compressed once ended; the hash is over the bytes written.
    expect(existsSync(f.path)).toBe(false);
    const bytes = gunzipSync(readFileSync(`${f.path}.gz`));
    expect(
      bytes
        .toString("utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).seq),
    ).toEqual([0, 1]);
    const sha = createHash("sha256").update(bytes).digest("hex");
    expect(m.files["raw/rivet.warm.ping.jsonl"]).toEqual({ sha256: sha, lines: 2 });
    expect(m).toMatchObject({ schema: 1, stack: "local", preset: "quick", status: "complete", config: { x: 1 } });
    expect(Object.keys(m.machine)).toEqual(expect.arrayContaining(["cpus", "memory", "os"]));
    expect(m.finishedAt).not.toBeNull();
  });

  it("never lists a stale digest: a file that grew since it was hashed is hashed again", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-rundir-"));
    const run = new RunDir(root, "local", "quick", {});
    const f = run.rawFile("rivet", "warm.ping");
    f.write({ seq: 0, at: 1, ok: true, ms: 1.5, cold: false });
    run.recordStage({
      side: "rivet",
      metric: "warm.ping",
      file: "raw/rivet.warm.ping.jsonl",
      attempts: 1,
      errors: 0,
      wallMs: 3,
      concurrency: 1,
      startedAt: "",
    });
    expect(run.manifest.files["raw/rivet.warm.ping.jsonl"].lines).toBe(1);
    f.write({ seq: 1, at: 2, ok: true, ms: 1.7, cold: false });
    f.close();
    run.recordStage({
      side: "rivet",
      metric: "warm.ping",
      file: "raw/rivet.warm.ping.jsonl",
      attempts: 2,
      errors: 0,
      wallMs: 4,
      concurrency: 1,
      startedAt: "",
    });
    const sha = createHash("sha256").update(readFileSync(f.path)).digest("hex");
    expect(run.manifest.files["raw/rivet.warm.ping.jsonl"]).toEqual({ sha256: sha, lines: 2 });
  });

  it("keeps each repetition's samples and stage part apart, the record's totals their sums, and the repetitions in the manifest", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-rundir-"));
    const run = new RunDir(root, "local", "local", {});
    for (const [rep, order] of [
      [0, ["rivet", "floor"]],
      [1, ["floor", "rivet"]],
    ] as const) {
      run.beginRepetition(rep, order);
      const f = run.rawFile("rivet", "warm.ping");
      f.write({ seq: 0, at: 1, ok: true, ms: 1 + rep, cold: false });
      f.write({ seq: 1, at: 2, ok: rep === 0, ms: 2, cold: null });
      f.close();
      run.recordStage({
        side: "rivet",
        metric: "warm.ping",
        file: "raw/rivet.warm.ping.jsonl",
        attempts: 2,
        errors: rep === 0 ? 0 : 1,
        wallMs: 10 + rep,
        concurrency: 1,
        startedAt: `t${rep}`,
        notes: { n: rep },
      });
      run.endRepetition();
    }
    expect(() => run.beginRepetition(5, ["rivet"])).toThrow(/repetition 5 begun after 2/);
    run.finish("complete");
    const m = JSON.parse(readFileSync(join(run.dir, "manifest.json"), "utf8"));
    expect(
      m.repetitions.map((r: { rep: number; order: string[]; finishedAt: string | null }) => [
        r.rep,
        r.order.join(" "),
        r.finishedAt !== null,
      ]),
    ).toEqual([
      [0, "rivet floor", true],
      [1, "floor rivet", true],
    ]);
    expect(m.stages["rivet.warm.ping"]).toEqual({
      side: "rivet",
      metric: "warm.ping",
      file: "raw/rivet.warm.ping.jsonl",
      attempts: 4,
      errors: 1,
      wallMs: 21,
      concurrency: 1,
      startedAt: "t0",
      repetitions: [
        { rep: 0, attempts: 2, errors: 0, wallMs: 10, startedAt: "t0", notes: { n: 0 } },
        { rep: 1, attempts: 2, errors: 1, wallMs: 11, startedAt: "t1", notes: { n: 1 } },
      ],
    });
    expect(
      rawText(run.dir, "raw/rivet.warm.ping.jsonl")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).rep),
    ).toEqual([0, 0, 1, 1]);
    expect(JSON.parse(readFileSync(join(run.dir, "stages", "rivet.warm.ping.json"), "utf8"))).toEqual(m.stages["rivet.warm.ping"]);
  });
});
