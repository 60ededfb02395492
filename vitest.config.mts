import { defineConfig } from "vitest/config";

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
  "workloads/tools/**/*.test.ts",
  "cluster/**/*.test.ts",
];
/**
 * Files that start real processes but mostly wait (an eviction, a restart, an install, a Pulumi
 * session) and time nothing: they run beside the pure code, two files at a time, instead of after it.
 */
const WAITING = [
  "test/cloudflare.e2e.test.ts",
  "test/remoteRun.e2e.test.ts",
  "test/pulumiCli.e2e.test.ts",
  "workloads/sides/rivet/localCluster.e2e.test.ts",
];
const EXCLUDE = ["node_modules/**", "dist/**", "results/**"];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      // Pure code first, on every core, and beside it the files that mostly wait.
      {
        extends: true,
        test: { name: "unit", maxWorkers: 2, include: ["**/*.test.ts"], exclude: [...EXCLUDE, ...SEQUENTIAL], sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: "waiting", maxWorkers: 2, include: WAITING, exclude: EXCLUDE, sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: { name: "e2e", include: SEQUENTIAL, exclude: [...EXCLUDE, ...WAITING], fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
