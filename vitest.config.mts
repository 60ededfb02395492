import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that start real processes (the Engine, workerd, the floor server, sshd, Chromium) or time
 * what they do: one at a time, after the rest, so they never share the CPU with each other.
 */
const SEQUENTIAL = [
  "**/*.e2e.test.ts",
  "workloads/host/**/*.test.ts",
  "workloads/driver/**/*.test.ts",
  "workloads/experiment/measure.test.ts",
  "workloads/experiment/stagePlan.test.ts",
  "workloads/run/daemons.test.ts",
  "workloads/run/pinnedNode.test.ts",
  "workloads/sides/plant.test.ts",
  "workloads/tools/**/*.test.ts",
  "cluster/**/*.test.ts",
];
/**
 * Files that start real processes but mostly wait (an eviction, a restart, an install, a Pulumi
 * session) and time nothing: they run beside the pure code, two files at a time, instead of after it.
 */
const WAITING = [
  "test/remoteRun.e2e.test.ts",
  "test/pulumiCli.e2e.test.ts",
  "test/cloudflare.e2e.test.ts",
  "test/badInput.e2e.test.ts",
  "test/site.e2e.test.ts",
  "policy/pack.e2e.test.ts",
  "workloads/sides/rivet/localCluster.e2e.test.ts",
  "workloads/tools/clusterStartCheck.e2e.test.ts",
];
const EXCLUDE = ["node_modules/**", "dist/**", "results/**"];

/** The waiting files first, longest first, so the longest wait starts at once and the pure files fill the CPU around it. */
class WaitingFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = WAITING.findIndex((w) => f.moduleId.endsWith(w));
      return i < 0 ? WAITING.length : i;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // Up to three pure files and three waiting ones at once (a group's projects share one worker count): the waiting files mostly sleep, so they overlap the rest.
    maxWorkers: 5,
    sequence: { sequencer: WaitingFirst },
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      // Pure code first, on every core, and beside it the files that mostly wait.
      {
        extends: true,
        test: { name: "unit", maxWorkers: 3, include: ["**/*.test.ts"], exclude: [...EXCLUDE, ...SEQUENTIAL], sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: "waiting", maxWorkers: 3, include: WAITING, exclude: EXCLUDE, sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: { name: "e2e", include: SEQUENTIAL, exclude: [...EXCLUDE, ...WAITING], fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
