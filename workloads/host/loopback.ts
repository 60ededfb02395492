import { execFileSync } from "node:child_process";
import { NETNS_ENV } from "./netns";

/** Whether the loopback route in `ip route show table local` output has delayed ACKs disabled. */
export function loopbackQuickack(routeTable: string): boolean {
  return routeTable.split("\n").some((l) => /^local 127\.0\.0\.1 /.test(l.trim()) && /\bquickack 1\b/.test(l));
}

/** Network facts that change local latency, for the manifest. */
function loopbackSettings(): { quickack: boolean | null; routeLine: string | null } {
  try {
    const out = execFileSync("ip", ["route", "show", "table", "local"], { encoding: "utf8", timeout: 5000 });
    const line = out.split("\n").find((l) => l.startsWith("local 127.0.0.1 ")) ?? null;
    return { quickack: loopbackQuickack(out), routeLine: line };
  } catch {
    return { quickack: null, routeLine: null };
  }
}

/** The loopback a side is measured over, for its manifest settings: the route's delayed-ACK setting and whether the run is in a private namespace. */
export function loopbackNote(): { quickack: boolean | null; routeLine: string | null; privateNetns: boolean } {
  return { ...loopbackSettings(), privateNetns: process.env[NETNS_ENV] === "1" };
}
