import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { requestTasks, runGroupRequest, type GroupRunRequest } from "./groupRun";

const base: GroupRunRequest = { side: "rivet", runArgs: ["--preset", "quick"], stack: "t", blobRoot: "/nonexistent", targets: {} };

describe("a group run's tasks", () => {
  it("without tasks: the side's selected groups in suite order", () => {
    expect(requestTasks(base, ["create", "wake"])).toEqual([
      { side: "rivet", group: "create" },
      { side: "rivet", group: "wake" },
    ]);
    expect(() => requestTasks({ ...base, side: "floor" }, ["create"])).toThrow(
      /^floor: a group run measures a runtime \(rivet, cloudflare\); a control side runs with `npm start` only$/,
    );
  });
  it("with tasks: their order, each a runtime and a group, none twice", () => {
    const tasks = [
      { side: "cloudflare", group: "wake" },
      { side: "rivet", group: "create" },
    ] as const;
    expect(requestTasks({ ...base, tasks: [...tasks] }, [])).toEqual(tasks);
    expect(() => requestTasks({ ...base, tasks: [] }, [])).toThrow(/^request\.tasks: a list of \{ side, group \}, or leave it out$/);
    expect(() => requestTasks({ ...base, tasks: [{ side: "floor", group: "wake" }] }, [])).toThrow(
      /^request\.tasks: floor wake is not a runtime \(rivet, cloudflare\) and a group/,
    );
    expect(() => requestTasks({ ...base, tasks: [{ side: "rivet", group: "nap" as "wake" }] }, [])).toThrow(/rivet nap is not a runtime/);
    expect(() => requestTasks({ ...base, tasks: [tasks[1], tasks[1]] }, [])).toThrow(/^request\.tasks: rivet create is listed twice$/);
  });
  it("a task whose side has no target is refused before any run directory is made", async () => {
    const blobRoot = mkdtempSync(join(tmpdir(), "ab-grouprun-"));
    const req: GroupRunRequest = {
      ...base,
      blobRoot,
      tasks: [
        { side: "cloudflare", group: "wake" },
        { side: "rivet", group: "create" },
      ],
      targets: { rivet: { gatewayUrl: "http://127.0.0.1:9", engineVersion: "x", engineConfig: {}, startedBy: "test" } },
    };
    await expect(runGroupRequest(req)).rejects.toThrow(
      /^cloudflare: a cloudflare group run needs request\.targets\.cloudflare, its running target$/,
    );
    expect(readdirSync(blobRoot)).toEqual([]);
  });
});
