import { spawn, spawnSync } from "node:child_process";

/** Set inside the namespace, so the re-executed CLI knows where it runs. */
export const NETNS_ENV = "ACTOR_BENCH_NETNS";

/** quickack: a private network namespace whose loopback has delayed ACKs off; host: the machine's own loopback. */
export const LOOPBACKS = ["quickack", "host"] as const;
export type Loopback = (typeof LOOPBACKS)[number];

/**
 * Shell run inside the run's namespace (unshareFlags): bring the namespace's own loopback up,
 * disable delayed ACKs on its 127.0.0.1 route (the fix measured in
 * docs/engine-latency.md), then exec the command under a parent-death
 * signal so that killing the outer CLI kills the inner one too.
 */
export function netnsScript(opts: { pdeathsig?: boolean } = {}): string {
  return [
    "set -e",
    "ip link set lo up",
    "ip route change local 127.0.0.1 dev lo proto kernel scope host src 127.0.0.1 table local quickack 1",
    opts.pdeathsig === false ? 'exec "$@"' : 'exec setpriv --pdeathsig KILL -- "$@"',
  ].join("; ");
}

/**
 * The unshare flags of the run's namespace: real root makes a network namespace
 * alone (its processes stay real root, so a packet capture there can run);
 * anyone else a user namespace with it, mapped to root inside (`-r`).
 */
export const unshareFlags = (euid: number | undefined = process.geteuid?.()): string[] => (euid === 0 ? ["-n"] : ["-rn"]);

/**
 * argv that runs a command inside the network namespace of process `pid` (one
 * made with unshareFlags(): its user namespace too where it has one). The caller owns both.
 */
export function nsenterArgv(pid: number, argv: readonly string[], euid: number | undefined = process.geteuid?.()): string[] {
  return ["nsenter", "-t", String(pid), ...(euid === 0 ? [] : ["-U"]), "-n", "--preserve-credentials", "--", ...argv];
}

/** Whether this machine lets an unprivileged user namespace with its own network run the script's tools. */
export function netnsAvailable(): { ok: boolean; reason?: string } {
  if (process.platform !== "linux") return { ok: false, reason: `not Linux (${process.platform})` };
  const r = spawnSync("unshare", [...unshareFlags(), "sh", "-c", netnsScript(), "sh", "true"], { encoding: "utf8", timeout: 10_000 });
  if (r.error) return { ok: false, reason: `unshare: ${r.error.message}` };
  if (r.status !== 0)
    return { ok: false, reason: `unshare ${unshareFlags().join(" ")} failed: ${(r.stderr || "").trim() || `exit ${r.status}`}` };
  return { ok: true };
}

/** Runs this same CLI inside the namespace, forwarding signals; resolves with its exit code. */
export function runInNetns(argv: readonly string[]): Promise<number> {
  const child = spawn("unshare", [...unshareFlags(), "sh", "-c", netnsScript(), "sh", process.execPath, ...argv], {
    stdio: "inherit",
    env: { ...process.env, [NETNS_ENV]: "1" },
  });
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(sig, () => child.kill(sig));
  }
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? (signal === "SIGINT" ? 130 : 143)));
    child.on("error", () => resolve(1));
  });
}
