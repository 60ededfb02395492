import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "./scheduleCli";
import { fixture } from "../test/fixtures";

/** A project folder with one stack file and, optionally, a results/ tree. */
function project(stackYaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "ab-schedule-"));
  writeFileSync(join(dir, "Pulumi.cloud.yaml"), stackYaml);
  return dir;
}
const CLOUD = `config:\n  actor-bench:target: azure\n  actor-bench:region: eastus2\n  actor-bench:preset: full\n  actor-bench:groups: create,wake\n  actor-bench:cfWakeIdleMs: "600000"\n`;

describe("npm run schedule", () => {
  it("prints a stack's planned pass from its file, each stage's cost from the newest run that verifies and measured it", async () => {
    const dir = project(CLOUD);
    const older = fixture(
      { "rivet.create.ping": { samples: Array(10).fill({ ms: 50, cold: true }), wallMs: 600 } },
      { root: join(dir, "results"), at: new Date(Date.UTC(2026, 11, 1)) },
    );
    const newer = fixture(
      { "rivet.create.ping": { samples: Array(10).fill({ ms: 50, cold: true }), wallMs: 900 } },
      { root: join(dir, "results"), at: new Date(Date.UTC(2026, 11, 2)) },
    );
    // A newer run of other stages only adds them; create.ping still comes from the newest run that has it.
    const other = fixture(
      { "rivet.warm.ping": { samples: Array(10).fill({ ms: 5 }), wallMs: 50 } },
      { root: join(dir, "results"), at: new Date(Date.UTC(2026, 11, 3)) },
    );
    const text = await main(["cloud"], dir);
    expect(text).toContain(
      `per-request wall times of each stage in the newest of results/local/${other.split("/").pop()}, results/local/${newer.split("/").pop()} that measured it`,
    );
    // 1,500 full-preset creates at 90 ms (the newer run's 900 ms over 10), and 1,200 reads and 1,200 writes, unmeasured, at that cost too (said so).
    expect(text).toMatch(/\n +rivet create +0:00:00 +0:05:51\n/);
    expect(text).toContain("No measured cost for cloudflare wake.ping");
    expect(text).toMatch(/\n1 +cloudflare wake +0:00:00 .* rivet create, rivet wake\n/);
    // A tampered newest run is passed over for the older one, which still verifies.
    appendFileSync(join(newer, "raw/rivet.create.ping.jsonl"), "{}\n");
    expect(await main(["cloud"], dir)).toContain(
      `in the newest of results/local/${other.split("/").pop()}, results/local/${older.split("/").pop()} that measured it`,
    );
    // --from names the run; one that does not verify is refused, naming the file.
    await expect(main(["cloud", "--from", newer], dir)).rejects.toThrow(/does not match the manifest/);
  });
  it("with no verified run, counts the idle waits alone and says so", async () => {
    const text = await main(["cloud"], project(CLOUD));
    expect(text).toContain("no verified run under results/, so only the idle waits are counted");
    // The DO wake's 10 minutes are the run; create groups cost nothing known.
    expect(text).toMatch(/\nTotal 0:10:00; with every group in a run of its own, one after another, 0:10:10 /);
  });
  it("refuses a local stack, a missing stack, a bad key, and bad arguments, each in one line", async () => {
    const dir = project(CLOUD);
    writeFileSync(join(dir, "Pulumi.home.yaml"), "config:\n  actor-bench:target: local\n");
    writeFileSync(join(dir, "Pulumi.typo.yaml"), "config:\n  actor-bench:target: azure\n  actor-bench:presets: full\n");
    await expect(main(["home"], dir)).rejects.toThrow(/^stack home: its target is local, whose pass runs each group alone on this machine/);
    await expect(main(["nope"], dir)).rejects.toThrow(/Pulumi\.nope\.yaml: no such stack file/);
    await expect(main(["typo"], dir)).rejects.toThrow(/unknown config key actor-bench:presets; known keys: /);
    // overlapIdle is read by the stack's own rule: not true or false is refused, not taken as false.
    writeFileSync(join(dir, "Pulumi.yes.yaml"), `${CLOUD}  actor-bench:overlapIdle: "yes"\n`);
    await expect(main(["yes"], dir)).rejects.toThrow(/^config actor-bench:overlapIdle: "yes" is not allowed; true \(Rivet groups/);
    await expect(main([], dir)).rejects.toThrow(/^missing <stack> \(see --help\); usage: npm run schedule -- <stack>/);
    await expect(main(["cloud", "--form", "x"], dir)).rejects.toThrow(/^unknown flag --form; it takes --from <runDir>/);
    await expect(main(["cloud", "x"], dir)).rejects.toThrow(/^usage/);
  });
});
