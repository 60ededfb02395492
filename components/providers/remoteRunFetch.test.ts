import { describe, expect, it } from "vitest";
import { checkRunnerResult, PART, parseRunnerResult, partPattern } from "./remoteRunFetch";

const sha = "a".repeat(64);
const ok = { runId: "20261203T1530Z", blobPrefix: "eastus2/rivet.create/20261203T1530Z", sha256: sha };

describe("what the runner reports is checked before it names a folder", () => {
  it("accepts the run id, prefix and digest this stack asked for", () => {
    expect(() => checkRunnerResult(ok, "eastus2/rivet.create", "runner")).not.toThrow();
    expect(() =>
      checkRunnerResult(
        { ...ok, runId: "20261203T1530Z-2", blobPrefix: "eastus2/rivet.create/20261203T1530Z-2" },
        "eastus2/rivet.create",
        "runner",
      ),
    ).not.toThrow();
  });
  for (const runId of ["../../etc", "20261203T1530Z/../x", "/tmp/x", "", "20261203T1530Z-2/.."]) {
    it(`refuses the run id ${JSON.stringify(runId)}`, () => {
      expect(() =>
        checkRunnerResult({ ...ok, runId, blobPrefix: `eastus2/rivet.create/${runId}` }, "eastus2/rivet.create", "the rivet create run"),
      ).toThrow(`the rivet create run reported run id ${JSON.stringify(runId)}, which is not one`);
    });
  }
  it("refuses a blob prefix the stack did not choose, and a digest that is not one", () => {
    expect(() => checkRunnerResult({ ...ok, blobPrefix: "eastus2/cloudflare.create/20261203T1530Z" }, "eastus2/rivet.create", "r")).toThrow(
      /reported blob prefix "eastus2\/cloudflare\.create\/20261203T1530Z"; this stack asked for eastus2\/rivet\.create\/20261203T1530Z/,
    );
    expect(() => checkRunnerResult({ ...ok, sha256: "xyz" }, "eastus2/rivet.create", "r")).toThrow(
      /reported sha256 "xyz", which is not one/,
    );
  });
});

describe("the run's stdout is one JSON line, or it is refused with what came", () => {
  it("takes the line and keeps only the three fields", () => {
    expect(parseRunnerResult(`${JSON.stringify({ ...ok, extra: "x" })}\n`, "eastus2/rivet.create", "r")).toEqual(ok);
  });
  it("refuses two lines, a non-JSON line, an array and an empty stdout", () => {
    expect(() => parseRunnerResult(`log line\n${JSON.stringify(ok)}`, "eastus2/rivet.create", "the run")).toThrow(
      /^the run printed "log line\\n.*", not the one JSON line of a run/,
    );
    expect(() => parseRunnerResult("done", "eastus2/rivet.create", "r")).toThrow(/printed "done", not the one JSON line/);
    expect(() => parseRunnerResult("[1]", "eastus2/rivet.create", "r")).toThrow(/printed "\[1\]", not a JSON object/);
    expect(() => parseRunnerResult("", "eastus2/rivet.create", "r")).toThrow(/printed "", not the one JSON line/);
  });
});

describe("a run's part name", () => {
  it("names tasks of the registry's runtimes only", () => {
    for (const ok of ["rivet.create", "cloudflare.wake+rivet.create+rivet.wake"]) expect(PART.test(ok), ok).toBe(true);
    for (const bad of ["floor.create", "rivet.create+", "rivet", "rivet.create+floor.warm", "../rivet.create", "rivet.Create"])
      expect(PART.test(bad), bad).toBe(false);
    expect(partPattern(["rivet", "echo"]).test("echo.warm+rivet.create")).toBe(true);
  });
});
