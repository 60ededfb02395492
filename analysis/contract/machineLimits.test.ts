import { describe, expect, it } from "vitest";
import { describeMachineLimit, flagged, machineLimitLines, machineLimitOf } from "./machineLimits";

describe("machine limits", () => {
  it("names the limit a failure's text gives, and nothing else", () => {
    expect(machineLimitOf("connect EMFILE 127.0.0.1:8787 - Local (undefined:undefined)")).toBe("open files");
    expect(
      machineLimitOf(
        "workerd/util/sqlite.c++:612: failed: expected _ec == SQLITE_OK [14 == 0]; unable to open database file: SQLITE_CANTOPEN",
      ),
    ).toBe("open files");
    expect(machineLimitOf('HTTP 502: {"error":"DO call failed: out of memory: SQLITE_NOMEM"}')).toBe("memory");
    expect(machineLimitOf("connect EADDRNOTAVAIL 127.0.0.1:6420")).toBe("ports");
    expect(machineLimitOf('HTTP 502: {"error":"DO call failed: internal error; reference = 4f4mjki7748faul7fipokuc2"}')).toBeNull();
    expect(machineLimitOf("HTTP 504: route_resolve_query_timeout")).toBeNull();
  });

  it("counts a runtime log's lines that name one, skipping stack lines", () => {
    const log = [
      "workerd/jsg/util.c++:405: error: e = workerd/util/sqlite.c++:612: failed: expected _ec == SQLITE_OK [14 == 0]; unable to open database file: SQLITE_CANTOPEN",
      "stack: /x/workerd@2016e9e SQLITE_CANTOPEN",
      "workerd/jsg/util.c++:405: error: e = ...; unable to open database file: SQLITE_CANTOPEN",
      "some other error",
      "kj/exception: out of memory",
    ].join("\n");
    expect(machineLimitLines(log)).toEqual({ "open files": 2, memory: 1 });
    expect(machineLimitLines("")).toEqual({});
  });

  it("flags a stage where more than 1% of attempts failed", () => {
    expect(flagged(1000, 10)).toBe(false);
    expect(flagged(1000, 11)).toBe(true);
    expect(flagged(0, 0)).toBe(false);
  });

  it("describes what it found in one line", () => {
    expect(describeMachineLimit({ samples: { memory: 2 }, runtimeLog: { "open files": 87 } }, "workerd")).toBe(
      "memory (2 failed samples say so), open files (87 workerd log lines)",
    );
  });
});
