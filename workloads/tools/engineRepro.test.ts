import { describe, expect, it } from "vitest";
import { engineLogKinds, failureKind, renderRepro } from "./engineRepro";
import { collapseVerdict } from "./wakeCollapseRepro";
import { stallSummary, stallVerdict } from "./pauseStallRepro";

describe("the Engine reproductions' readings", () => {
  it("groups the Engine's warn and error lines by message, most frequent first, and leaves the rest out", () => {
    const log = [
      'ts=1 level=info message="started"',
      'ts=2 level=warn message="PerfMeasure exceeded slow threshold" elapsed_ms=1789',
      'ts=3 level=warn message="PerfMeasure exceeded slow threshold" elapsed_ms=2140',
      'ts=4 level=error message="runner ping timed out" runner_id=abc',
      "not a log line",
    ].join("\n");
    expect(engineLogKinds(log)).toEqual([
      {
        level: "warn",
        message: "PerfMeasure exceeded slow threshold",
        count: 2,
        example: 'ts=2 level=warn message="PerfMeasure exceeded slow threshold" elapsed_ms=1789',
      },
      {
        level: "error",
        message: "runner ping timed out",
        count: 1,
        example: 'ts=4 level=error message="runner ping timed out" runner_id=abc',
      },
    ]);
  });

  it("names a failure by the Engine's error code where the body has one, a timeout as such", () => {
    expect(failureKind('HTTP 503: {"group":"actor","code":"actor_ready_timeout"}')).toBe("actor_ready_timeout");
    expect(failureKind("request timed out after 30000 ms")).toBe("timed out");
    expect(failureKind("ECONNRESET: socket hang up")).toBe("ECONNRESET");
  });

  it("calls the wake collapse reproduced on a failed wake or a tenfold median, and not otherwise", () => {
    const small = { ok: 40, wakes: 40, p50: 20 };
    expect(collapseVerdict(small, { actors: 4000, ok: 28, wakes: 40, p50: 40 }).reproduced).toBe(true);
    expect(collapseVerdict(small, { actors: 4000, ok: 40, wakes: 40, p50: 250 })).toEqual({
      reproduced: true,
      text: "REPRODUCED: with 4000 actors asleep the median wake took 250 ms, 13 times the small population's",
    });
    expect(collapseVerdict(small, { actors: 4000, ok: 40, wakes: 40, p50: 150 }).reproduced).toBe(false);
  });

  it("measures the silence after the continue from the first call that answered", () => {
    const probes = [
      { at: 0, ok: false, ms: 5000, error: "timed out" },
      { at: 5, ok: false, ms: 5000, error: "timed out" },
      { at: 70.5, ok: true, cold: true, ms: 300 },
    ];
    const s = stallSummary(probes, 120);
    expect(s).toMatchObject({ failedBefore: 2, silentS: 70.5 });
    expect(stallVerdict(s, 120).text).toBe(
      "REPRODUCED: the actor first answered 71 s after the Engine was continued (2 calls failed first)",
    );
    expect(stallVerdict(stallSummary(probes.slice(0, 2), 120), 120).text).toBe(
      "REPRODUCED: the actor answered nothing in the 120 s after the Engine was continued (2 calls failed)",
    );
    expect(stallVerdict(stallSummary([{ at: 0.2, ok: true, cold: false, ms: 3 }], 120), 120).reproduced).toBe(false);
  });

  it("prints every part a maintainer reads, the verdict last", () => {
    const text = renderRepro({
      title: "T",
      versions: ["rivet-engine 2.3.19"],
      commands: ["kill -STOP 1"],
      expected: "E",
      seen: ["S"],
      harness: ["H"],
      log: [],
      verdict: "V",
    });
    expect(text.split("\n").filter((l) => l.startsWith("## "))).toEqual([
      "## Versions",
      "## Commands",
      "## Expected",
      "## Seen",
      "## The harness's own share, ruled out",
      "## The Engine's log meanwhile (warn and error lines, grouped)",
      "## Verdict",
    ]);
    expect(text.trimEnd().endsWith("  V")).toBe(true);
  });
});
