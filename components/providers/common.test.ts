import { describe, expect, it } from "vitest";
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import { UNKNOWN_INPUT } from "./common";
import { check } from "./benchmarkRun";

describe("a preview's unknown inputs", () => {
  it("are the SDK's own sentinel", () => {
    expect(UNKNOWN_INPUT).toBe(unknownValue);
  });
  it("pass a run's check where the daemon is not known yet, and a known daemon of another side does not", async () => {
    const news = { stack: "t", side: "rivet", group: "warm", runArgs: [], trigger: null, blobRoot: "/x" };
    expect((await check({}, { ...news, daemon: UNKNOWN_INPUT })).failures).toEqual([]);
    const other = { kind: "cloudflare", pid: 1, startTime: "0", netns: false, stateDir: "/s", log: "/s/l", ready: {} };
    expect((await check({}, { ...news, daemon: other })).failures.map((f) => f.property)).toEqual(["daemon"]);
  });
});
