import { describe, expect, it } from "vitest";
import { packageVersion } from "./versions";

describe("packageVersion", () => {
  it("reads versions of packages that do not export package.json", () => {
    expect(packageVersion("rivetkit")).toBe("2.3.19");
    expect(packageVersion("@rivetkit/engine-cli")).toBe("2.3.19");
    expect(packageVersion("no-such-package-xyz")).toBe("not installed");
  });
});
