import { describe, expect, it } from "vitest";
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { RESERVE_FILE, RunDir } from "./runDir";
import { endInterrupted, unfinishedRuns } from "./interrupted";
import { verifyRunDir } from "../../analysis/contract/verify";

/** A run whose writer was killed mid-sample: two whole samples and half of a third on disk, the manifest "running". */
function killedRun(root: string): RunDir {
  const run = new RunDir(root, "local", "quick", {});
  const f = run.rawFile("rivet", "warm.ping");
  f.write({ seq: 0, at: 1, ok: true, ms: 1.5, cold: null });
  f.write({ seq: 1, at: 2, ok: true, ms: 1.7, cold: null });
  appendFileSync(f.path, '{"seq":2,"at":3,"ok":tr');
  run.closeRawFiles();
  return run;
}

describe("a run an interrupted up left behind", () => {
  it("is found by its running manifest, with its whole samples counted; a finished run is not", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-interrupted-"));
    const done = new RunDir(root, "local", "quick", {}, new Date(Date.UTC(2026, 0, 1)));
    done.finish("complete");
    const killed = killedRun(root);
    expect(unfinishedRuns(join(root, "local"))).toEqual([
      { dir: killed.dir, runId: killed.manifest.runId, startedAt: killed.manifest.startedAt, samples: 2 },
    ]);
    expect(unfinishedRuns(join(root, "nothing-here"))).toEqual([]);
  });

  it("is ended as failed and interrupted: torn line dropped, reserve freed, every whole sample under its hash", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-interrupted-"));
    const killed = killedRun(root);
    const [found] = unfinishedRuns(join(root, "local"));
    endInterrupted(found, "stopped for the test");
    expect(unfinishedRuns(join(root, "local"))).toEqual([]);
    expect(existsSync(join(killed.dir, RESERVE_FILE))).toBe(false);
    const m = verifyRunDir(killed.dir) as { status: string; failure: string; files: Record<string, { lines: number }> };
    expect(m.status).toBe("failed");
    expect(m.failure).toBe("interrupted: stopped for the test; 2 samples kept, 1 sample line cut off mid-write dropped");
    expect(m.files["raw/rivet.warm.ping.jsonl"].lines).toBe(2);
    const lines = gunzipSync(readFileSync(join(killed.dir, "raw/rivet.warm.ping.jsonl.gz")))
      .toString()
      .trim()
      .split("\n");
    expect(lines.map((l) => JSON.parse(l).seq)).toEqual([0, 1]);
  });
});
