import { beforeAll, describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { ensureCli } from "../workloads/tools/pulumiCli";
import { runCheck } from "../workloads/tools/pulumiCheck";

const ROOT = resolve(__dirname, "..");

describe("the real Pulumi CLI runs the local stack", () => {
  let bin = "";
  // Built once per machine into its cache (minutes the first time, then reused): CI runs `npm run pulumi:cli` first.
  beforeAll(() => {
    bin = ensureCli(ROOT, (l) => console.log(l));
  }, 1_200_000);

  it("init, refused keys, preview, up, outputs, a second up, policy, destroy, stack rm, eastus2 as far as plugins go", async () => {
    const lines: string[] = [];
    await runCheck(ROOT, bin, true, (l) => lines.push(l));
    expect(lines.filter((l) => l.startsWith("ok  "))).toHaveLength(5);
    expect(lines.at(-1)).toMatch(/^check:pulumi passed in \d+ s$/);
  }, 600_000);
});
