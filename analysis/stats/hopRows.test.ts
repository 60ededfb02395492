import { describe, expect, it } from "vitest";
import type { ManifestLike } from "../contract/runDirContract";
import type { SideProfile } from "../contract/sideProfile";
import { hopRows } from "./hopRows";

const profile = {
  id: "floor",
  msIsClientClock: true,
  hops: { request: "POST /actor/", front: "server", own: { field: "actorMs", name: "operation" } },
} as unknown as SideProfile;

/** A run with one captured stage of two repetitions, whose notes say what the test gives them. */
function run(notes: Array<Record<string, unknown>>, files: string[]): ManifestLike {
  return {
    stages: {
      "floor.warm.ping": {
        side: "floor",
        metric: "warm.ping",
        file: "raw/floor.warm.ping.jsonl",
        repetitions: notes.map((n, rep) => ({ rep, attempts: 1, errors: 0, wallMs: 1, startedAt: "", notes: { capture: n } })),
      },
    },
    files: Object.fromEntries(files.map((f) => [f, { sha256: "0", lines: 0 }])),
    sideProfiles: [profile],
  } as unknown as ManifestLike;
}

describe("a run's waterfall rows", () => {
  it("read no capture the manifest does not list with a hash, nor one whose packets the kernel dropped, and say why", () => {
    const read = (f: string): Buffer => {
      throw new Error(`read ${f}`);
    };
    const m = run(
      [
        { file: "raw/floor.warm.ping.rep0.pcap", port: 80, droppedByKernel: 0 },
        { file: "raw/floor.warm.ping.rep1.pcap", port: 80, droppedByKernel: 3 },
      ],
      ["raw/floor.warm.ping.rep1.pcap"],
    );
    const [row] = hopRows(m, () => [], read);
    expect(row).toMatchObject({ side: "floor", metric: "warm.ping", reps: 2, waterfall: null, dropped: 3 });
    expect(row.refused).toEqual([
      "repetition 1: raw/floor.warm.ping.rep0.pcap is not listed with a hash in the manifest",
      "repetition 2: the kernel dropped 3 packets",
    ]);
  });
});
