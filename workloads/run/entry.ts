import { stopAll } from "../host/processes";
import { NETNS_ENV, netnsAvailable, runInNetns } from "../host/netns";
import { failureLine } from "../../analysis/contract/cliError";
import type { RunConfig } from "./runConfig";

/**
 * Where runs that ask for the quickack loopback go: this command again inside
 * a private network namespace (its exit code, once it ends), or null to go on
 * here; where no namespace can be made, every config falls back to the host
 * loopback, said in one line.
 */
export function enterNetns(cfgs: readonly RunConfig[]): Promise<number> | null {
  if (!cfgs.some((c) => c.loopback === "quickack") || process.env[NETNS_ENV] === "1") return null;
  const avail = netnsAvailable();
  if (avail.ok) return runInNetns(process.argv.slice(1));
  console.error(`--loopback quickack: no private network namespace here (${avail.reason}); measuring on the host loopback`);
  for (const c of cfgs) {
    c.loopback = "host";
    c.loopbackFallback = avail.reason;
  }
  return null;
}

/** Runs a command's main, then stops every process it started and exits with its code; a thrown error is one line. */
export function runEntry(command: string, main: () => Promise<number>): void {
  main().then(
    async (code) => {
      await stopAll();
      process.exit(code);
    },
    async (err: unknown) => {
      console.error(`${command} failed: ${failureLine(err)}`);
      await stopAll();
      process.exit(1);
    },
  );
}
