import { describe, expect, it } from "vitest";
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixture, HOSTILE, makeHostile, rawText, tree } from "../../test/fixtures";
import { RunDirError, verifyRunDir } from "../../analysis/contract/verify";
import { blobDigest } from "./groupRun";
import { mergeRunParts } from "./mergeRuns";

const part = (dir: string, label: string) => ({ runDir: dir, sha256: blobDigest(dir), label });
const rivet = () => fixture({ "rivet.warm.ping": { samples: [{ ms: 5 }, { ms: 6 }] } });
const cloudflare = () =>
  fixture({ "cloudflare.warm.ping": { samples: [{ ms: 1 }] }, "cloudflare.baseline.noop": { samples: [{ ms: 0.5 }] } });

describe("mergeRunParts", () => {
  it("copies every part's raw files and stages into one verified run directory that names its parts", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-merge-"));
    const a = rivet();
    const b = cloudflare();
    const run = mergeRunParts([part(a, "rivet warm"), part(b, "cloudflare warm")], root, "local", new Date(Date.UTC(2026, 11, 2, 19, 0)));
    expect(run.dir).toBe(join(root, "local", "20261202T1900Z"));
    const m = verifyRunDir(run.dir);
    expect(Object.keys(m.stages).sort()).toEqual(["cloudflare.baseline.noop", "cloudflare.warm.ping", "rivet.warm.ping"]);
    expect(rawText(run.dir, "raw/rivet.warm.ping.jsonl")).toBe(readFileSync(join(a, "raw/rivet.warm.ping.jsonl"), "utf8"));
    expect(m.config.sides).toEqual(["rivet", "cloudflare"]);
    expect(m.status).toBe("complete");
    expect((m.settings as { parts: Array<{ label: string; sha256: string }> }).parts.map((p) => p.label)).toEqual([
      "rivet warm",
      "cloudflare warm",
    ]);
  });

  it("refuses a part whose digest differs from the recorded one, before writing anything", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-merge-"));
    const a = rivet();
    expect(() => mergeRunParts([{ ...part(a, "rivet warm"), sha256: "f".repeat(64) }], root, "local")).toThrow(
      /rivet warm: .*manifest.json has sha256 [0-9a-f]{64}, the stack recorded f{64}; the result was changed after the run/,
    );
    expect(() => verifyRunDir(join(root, "local"))).toThrow();
  });

  it("refuses a part whose raw file was changed after its manifest", () => {
    const a = rivet();
    const p = part(a, "rivet warm");
    appendFileSync(join(a, "raw/rivet.warm.ping.jsonl"), '{"seq":9,"ok":true,"ms":1}\n');
    expect(() => mergeRunParts([p], mkdtempSync(join(tmpdir(), "ab-merge-")), "local")).toThrow(
      /raw\/rivet.warm.ping.jsonl: sha256 .* does not match/,
    );
  });

  it("refuses parts of different presets, the same stage twice, a missing part and an empty pass", () => {
    const root = mkdtempSync(join(tmpdir(), "ab-merge-"));
    const full = fixture({ "cloudflare.warm.ping": { samples: [{ ms: 1 }] } }, { preset: "full" });
    expect(() => mergeRunParts([part(rivet(), "a"), part(full, "b")], root, "local")).toThrow(/different presets \(quick, full\)/);
    expect(() => mergeRunParts([part(rivet(), "a"), part(rivet(), "b")], root, "local")).toThrow(
      /stage rivet.warm.ping is in two parts \(a and b\)/,
    );
    expect(() => mergeRunParts([{ runDir: join(root, "gone"), sha256: "0", label: "rivet wake" }], root, "local")).toThrow(
      /rivet wake: its result .* is gone; run `pulumi up --refresh`/,
    );
    expect(() => mergeRunParts([], root, "local")).toThrow(/nothing to merge/);
  });
});

describe("hostile parts", () => {
  for (const kind of HOSTILE) {
    it(`refuses a part whose manifest lists a ${kind} entry, naming it, and writes nothing anywhere`, () => {
      const outer = mkdtempSync(join(tmpdir(), "ab-hostile-"));
      const parts = join(outer, "parts");
      const a = fixture({ "cloudflare.warm.ping": { samples: [{ ms: 1 }] } }, { root: parts });
      const name = makeHostile(a, kind);
      const root = join(outer, "merged");
      const before = tree(outer);
      const err = (() => {
        try {
          mergeRunParts([part(a, "cloudflare warm")], root, "local");
        } catch (e) {
          return e as Error;
        }
      })();
      expect(err, kind).toBeInstanceOf(RunDirError);
      expect(err!.message).toContain(JSON.stringify(name).slice(1, -1));
      expect(tree(outer)).toEqual(before);
    });
  }
});
