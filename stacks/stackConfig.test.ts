import { describe, expect, it } from "vitest";
import { validateStackConfig } from "./stackConfig";

describe("validateStackConfig", () => {
  it("maps keys onto the run config", () => {
    const c = validateStackConfig("local", { preset: "quick", groups: "create,wake", wakeIdleMs: "15000" });
    expect(c).toMatchObject({ stack: "local", preset: "quick", groups: ["create", "wake"], wakeIdleMs: 15000 });
  });
  it("names the config key, the value and what is allowed", () => {
    expect(() => validateStackConfig("local", { preset: "huge" })).toThrow(
      /^config actor-bench:preset: must be one of quick, local, full, got "huge"$/,
    );
    expect(() => validateStackConfig("local", { wakeIdleMs: "soon" })).toThrow(/^config actor-bench:wakeIdleMs: needs a positive whole number/);
    expect(() => validateStackConfig("local", { nope: "1" } as never)).toThrow(/unknown config key actor-bench:nope/);
  });
});
