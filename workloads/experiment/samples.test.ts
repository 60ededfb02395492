import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sampleLine, SampleFile, type Sample } from "./samples";

describe("sampleLine", () => {
  // Every field of the contract: a field added to Sample fails to compile here until it is listed.
  const full: Required<Sample> = {
    seq: 7,
    rep: 2,
    at: 1764820000123,
    ok: false,
    ms: 0.123456789,
    cold: null,
    actorMs: 1.5,
    sqlMs: null,
    clientMs: 3.25,
    colo: "FRA",
    rowsRead: 3,
    rowsWritten: 1,
    lateMs: 2.5,
    error: 'HTTP 500: "quoted" \\ back\nnew line \u0001 é 😀',
  };

  it("writes what JSON.stringify writes, for every kind of sample the driver and the reference tools take", () => {
    const cases: Sample[] = [
      full,
      { seq: 0, rep: 0, at: 1764820000000, ok: true, ms: 0.1 + 0.2, cold: false, actorMs: 0, sqlMs: 0.000123 },
      { seq: 1, at: 1764820000001, ok: true, ms: 12.5, cold: true, actorMs: null, sqlMs: null, clientMs: 80.125, colo: "AMS" },
      {
        seq: 2,
        at: 1764820000002,
        ok: false,
        ms: 30000.000001,
        cold: null,
        error: "timeout after 30000 ms: no complete reply within 30000 ms",
      },
      { seq: 3, at: 1764820000003, ok: true, ms: 1e21, cold: null },
      { seq: 4, at: 1764820000004, ok: true, ms: 5e-7, cold: null, actorMs: -0 },
    ];
    for (const s of cases) expect(sampleLine(s)).toBe(JSON.stringify(s));
    expect(JSON.parse(sampleLine(full))).toEqual(full);
  });

  it("writes a number that is not finite as null, as JSON does, so the line still parses", () => {
    const s: Sample = { seq: 5, at: 1764820000005, ok: true, ms: Number.NaN, cold: false, actorMs: Number.POSITIVE_INFINITY };
    expect(sampleLine(s)).toBe(JSON.stringify(s));
    expect(JSON.parse(sampleLine(s))).toEqual({ seq: 5, at: 1764820000005, ok: true, ms: null, cold: false, actorMs: null });
  });
});

describe("SampleFile", () => {
  it("appends one line per sample, counts failures, and drops a write after close", () => {
    const dir = mkdtempSync(join(tmpdir(), "actor-bench-samples-"));
    try {
      const f = new SampleFile(join(dir, "s.jsonl"));
      f.write({ seq: 0, at: 1, ok: true, ms: 1.25, cold: false });
      f.write({ seq: 1, at: 2, ok: false, ms: 3, cold: null, error: "HTTP 503" });
      f.close();
      f.write({ seq: 2, at: 3, ok: true, ms: 1, cold: false });
      expect(readFileSync(join(dir, "s.jsonl"), "utf8")).toBe(
        '{"seq":0,"at":1,"ok":true,"ms":1.25,"cold":false}\n{"seq":1,"at":2,"ok":false,"ms":3,"cold":null,"error":"HTTP 503"}\n',
      );
      expect([f.lines, f.errors]).toEqual([2, 1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("marks every sample with the file's repetition, appending to what an earlier repetition wrote", () => {
    const dir = mkdtempSync(join(tmpdir(), "actor-bench-samples-"));
    try {
      const first = new SampleFile(join(dir, "s.jsonl"), 0);
      first.write({ seq: 0, at: 1, ok: true, ms: 1, cold: true });
      first.close();
      const second = new SampleFile(join(dir, "s.jsonl"), 1);
      second.write({ seq: 0, at: 2, ok: true, ms: 2, cold: true });
      second.close();
      expect(readFileSync(join(dir, "s.jsonl"), "utf8")).toBe(
        '{"seq":0,"rep":0,"at":1,"ok":true,"ms":1,"cold":true}\n{"seq":0,"rep":1,"at":2,"ok":true,"ms":2,"cold":true}\n',
      );
      expect([second.lines, second.errors]).toEqual([1, 0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
