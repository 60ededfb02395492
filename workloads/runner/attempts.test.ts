import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { finishedPart, readAttempts, recordAttempt, remainingTasks, taskOfStage, type Attempt } from "./attempts";
import { verifyRunDir } from "../../analysis/contract/verify";
import { mergeRunParts } from "../run/mergeRuns";
import { blobDigest } from "../run/groupRun";
import { fixture } from "../../test/fixtures";

const attempt = (runId: string, tasksDone: string[]): Attempt => ({
  runId,
  runDir: `/x/${runId}`,
  sha256: "0".repeat(64),
  blobPrefix: `p/${runId}`,
  status: "failed",
  tasksDone,
});

/** A stopped attempt: it finished the create group and was measuring warm when it stopped. */
function stoppedAttempt(root: string): string {
  const dir = fixture(
    {
      "rivet.create.ping": { samples: [{ ms: 30, cold: true }] },
      "rivet.create.read": { samples: [{ ms: 31, cold: true }] },
      "rivet.warm.ping": { samples: [{ ms: 5 }, { ms: 6 }] },
    },
    { root },
  );
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  writeFileSync(
    join(dir, "manifest.json"),
    JSON.stringify({ ...m, status: "failed", failure: "interrupted by SIGTERM", tasksDone: ["rivet create"] }),
  );
  return dir;
}

describe("a part's attempts", () => {
  it("measures next only what no attempt finished, in the request's order", () => {
    const requested = [
      { side: "rivet", group: "create" },
      { side: "rivet", group: "warm" },
      { side: "rivet", group: "sqlite" },
    ] as const;
    expect(remainingTasks([...requested], [attempt("a", ["rivet create"]), attempt("b", ["rivet sqlite"])])).toEqual([
      { side: "rivet", group: "warm" },
    ]);
    expect(remainingTasks([...requested], [])).toEqual([...requested]);
  });

  it("records attempts once each, in order", () => {
    const dir = mkdtempSync(join(tmpdir(), "part-"));
    recordAttempt(dir, attempt("a", []));
    recordAttempt(dir, attempt("b", ["rivet warm"]));
    recordAttempt(dir, attempt("a", ["rivet create"]));
    expect(readAttempts(dir).map((a) => [a.runId, a.tasksDone])).toEqual([
      ["b", ["rivet warm"]],
      ["a", ["rivet create"]],
    ]);
  });

  it("knows each stage's task, the idle ladder's and open-model stages included", () => {
    expect(taskOfStage({ side: "rivet", metric: "create.ping" })).toBe("rivet create");
    expect(taskOfStage({ side: "cloudflare", metric: "wake.idle.30s" })).toBe("cloudflare idle");
    expect(taskOfStage({ side: "rivet", metric: "not.a.metric" })).toBeUndefined();
  });

  it("keeps of a stopped attempt only its finished groups, so a merge with the next attempt holds each stage once", () => {
    const root = mkdtempSync(join(tmpdir(), "attempts-"));
    const stopped = stoppedAttempt(join(root, "a"));
    const kept = finishedPart(stopped, join(root, "kept"));
    const m = verifyRunDir(kept) as unknown as {
      stages: Record<string, unknown>;
      files: Record<string, unknown>;
      status: string;
      settings: { resumedFrom: unknown };
    };
    expect(Object.keys(m.stages).sort()).toEqual(["rivet.create.ping", "rivet.create.read"]);
    expect(Object.keys(m.files).some((f) => f.includes("warm"))).toBe(false);
    expect(m.status).toBe("complete");
    expect(m.settings.resumedFrom).toEqual({
      runId: "20261202T1305Z",
      status: "failed",
      failure: "interrupted by SIGTERM",
      tasksKept: ["rivet create"],
    });
    // The stopped attempt itself is untouched.
    expect(Object.keys(verifyRunDir(stopped).stages)).toContain("rivet.warm.ping");
    // The next attempt measured warm again: the merge takes create from the first, warm from the second.
    const next = fixture({ "rivet.warm.ping": { samples: [{ ms: 5 }, { ms: 6 }, { ms: 7 }] } }, { root: join(root, "b") });
    const merged = mergeRunParts(
      [
        { runDir: kept, sha256: blobDigest(kept), label: "attempt 1" },
        { runDir: next, sha256: blobDigest(next), label: "attempt 2" },
      ],
      join(root, "merged"),
      "local",
    );
    expect(Object.keys(merged.manifest.stages).sort()).toEqual(["rivet.create.ping", "rivet.create.read", "rivet.warm.ping"]);
    expect(merged.manifest.stages["rivet.warm.ping"].attempts).toBe(3);
    expect(merged.manifest.status).toBe("complete");
    // Without the filter the two attempts would both hold rivet.warm.ping: the merge refuses that.
    expect(() =>
      mergeRunParts(
        [
          { runDir: stopped, sha256: blobDigest(stopped), label: "attempt 1" },
          { runDir: next, sha256: blobDigest(next), label: "attempt 2" },
        ],
        join(root, "m2"),
        "local",
      ),
    ).toThrow(/rivet\.warm\.ping is in two parts/);
  });
});
