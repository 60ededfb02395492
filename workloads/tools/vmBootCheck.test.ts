import { describe, expect, it } from "vitest";
import { bootStatus, renderChecks } from "./vmBootCheck";

describe("the VM boot check's verdicts", () => {
  it("a boot is good only when status --wait exits 0, says done, and lists no error, recoverable or not", () => {
    expect(bootStatus("status: done\nerrors: []\nrecoverable_errors: {}\n", 0).ok).toBe(true);
    // cloud-init 22.4 (Debian 12) prints neither list.
    expect(bootStatus("status: done\nboot_status_code: enabled-by-generator\n", 0).ok).toBe(true);
    expect(bootStatus("status: done\nerrors: []\nrecoverable_errors:\n  WARNING:\n  - deprecated key\n", 2).ok).toBe(false);
    expect(bootStatus("status: error\nerrors: ['scripts-user']\n", 1)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^exit 1, status: error/),
    });
    expect(bootStatus("status: done\nerrors: ['x']\n", 0).ok).toBe(false);
  });

  it("says per VM how many checks failed, then one line each", () => {
    const text = renderChecks(
      "runner",
      [
        { name: "a", ok: true, detail: "" },
        { name: "b", ok: false, detail: "why" },
      ],
      20.4,
    );
    expect(text).toBe("runner: 1 of 2 checks FAILED in 20 s\n  ok   a\n  FAIL b: why");
  });
});
