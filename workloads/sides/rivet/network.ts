import { execFileSync } from "node:child_process";

/** Whether the loopback route in `ip route show table local` output has delayed ACKs disabled. */
export function loopbackQuickack(routeTable: string): boolean {
  return routeTable.split("\n").some((l) => /^local 127\.0\.0\.1 /.test(l.trim()) && /\bquickack 1\b/.test(l));
}

/** Network facts that change local latency, for the manifest. */
export function loopbackSettings(): { quickack: boolean | null; routeLine: string | null } {
  try {
    const out = execFileSync("ip", ["route", "show", "table", "local"], { encoding: "utf8", timeout: 5000 });
    const line = out.split("\n").find((l) => l.startsWith("local 127.0.0.1 ")) ?? null;
    return { quickack: loopbackQuickack(out), routeLine: line };
  } catch {
    return { quickack: null, routeLine: null };
  }
}
