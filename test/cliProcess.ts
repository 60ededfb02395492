/** `npm start` as a user runs it, in its own process, for the end-to-end tests. */
import { spawn } from "node:child_process";
import { resolve } from "node:path";

export const CLI = resolve(__dirname, "../dist/workloads/run/cli.js");

/** The compiled CLI with `args`: its process, its end, and everything it printed so far. */
export function startCli(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
    child.on("exit", (code, signal) => r({ code, signal })),
  );
  return { child, exited, output: () => output };
}

/** Polls `pred` every 50 ms; throws, naming `what`, if it is not met within `ms`. */
export async function waitFor(pred: () => boolean, ms: number, what = "condition"): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`${what}: not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
