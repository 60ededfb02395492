import { describe, expect, it } from "vitest";
import { startOnce, summarize, type StartTry } from "./clusterStartCheck";

// The three Engines of the local cluster start at once, as the VMs boot, and race on the Postgres
// schema; the unit's restart policy must bring every one up every time (`npm run check:cluster-start`
// runs 10; CI runs 3 here to keep its budget).
describe("three Engines started at once", () => {
  it("come up and serve every time", async () => {
    const tries: StartTry[] = [];
    for (let i = 0; i < 3; i++) tries.push(await startOnce());
    for (const t of tries) {
      expect(t.error).toBeUndefined();
      expect(t.ok).toBe(true);
      expect(t.restarts).toHaveLength(3);
    }
    expect(summarize(tries).passed).toBe(true);
    console.log(summarize(tries).line);
  }, 300_000);

  it("a summary fails when one try failed", () => {
    expect(
      summarize([
        { ok: true, seconds: 2, restarts: [0, 1, 0] },
        { ok: false, seconds: 90, restarts: [], error: "x" },
      ]),
    ).toEqual({
      passed: false,
      line: "1 of 2 started together came up and served; 1 had an Engine restarted by its unit's policy first; slowest 90.0 s",
    });
    expect(summarize([]).passed).toBe(false);
  });
});
