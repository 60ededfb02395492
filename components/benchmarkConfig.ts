/**
 * What the benchmark components are built from: the stack's validated config
 * (stacks/stackConfig.ts reads and checks it), and the checks a component
 * repeats where it would open a port.
 */
import { isIPv6 } from "node:net";
import { UsageError, type RunConfig } from "../workloads/run/runConfig";

export type Target = "local" | "azure";

export const GATEWAY_PATHS = ["zone", "balanced"] as const;
export type GatewayPath = (typeof GATEWAY_PATHS)[number];

export interface AzureConfig {
  region: string;
  zones: number[];
  engineVmSize: string;
  runnerVmSize: string;
  /** The one address (or CIDR) SSH is open to. */
  sshSourceAddress: string;
  /** Whether a source wider than /24 (IPv4) or /56 (IPv6) is meant (config actor-bench:sshSourceWide). */
  sshSourceWide: boolean;
  /**
   * How the runner's app and driver reach the Engines: zone, the Engine in the runner's own zone (the
   * reference's request path); balanced, the internal load balancer across the three zones.
   */
  gatewayPath: GatewayPath;
  /** The Node release the runner installs (config actor-bench:runnerNodeVersion; its registry hash is pinned in cluster/nodeRelease.ts). */
  runnerNodeVersion: string;
  /** How long one group's run may take on the runner before timeout(1) stops it (config actor-bench:runTimeLimitMinutes). */
  runTimeLimitMinutes: number;
  /** Whether Rivet groups measure during the Cloudflare groups' idle waits, in one run with each (config actor-bench:overlapIdle). */
  overlapIdle: boolean;
  /** An existing resource group to build in; null: the stack makes (and destroy removes) its own. */
  resourceGroup: string | null;
}

export interface StackConfig {
  stack: string;
  target: Target;
  /** The effective run config, as `npm start` would have it. */
  run: RunConfig;
  /** The flags that give `run` (without --side and --groups, which each BenchmarkRun adds). */
  runArgs: string[];
  engineVersion: string;
  /** A free-form trigger: changing it re-runs every BenchmarkRun; null when unset. */
  runTrigger: string | null;
  azure: AzureConfig | null;
  /** The Cloudflare account the Worker deploys to, and its workers.dev subdomain (<subdomain>.workers.dev). */
  cloudflare: { accountId: string; workersSubdomain: string } | null;
}

const failSsh = (value: string, allowed: string): never => {
  throw new UsageError(`config actor-bench:sshSourceAddress: ${JSON.stringify(value)} is not allowed; ${allowed}`);
};

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** The address as a bigint and its bit count, for a syntactically valid IPv4 or IPv6 address. */
function addressBits(addr: string): { value: bigint; bits: 32 | 128 } | null {
  if (IPV4.test(addr)) return { value: addr.split(".").reduce((a, o) => (a << 8n) | BigInt(o), 0n), bits: 32 };
  if (!isIPv6(addr) || addr.includes(".")) return null;
  const [head, tail = ""] = addr.split("::");
  const h = head ? head.split(":") : [];
  const t = addr.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = addr.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  return { value: groups.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n), bits: 128 };
}

/** The narrowest prefix (widest network) allowed without sshSourceWide. */
const SSH_WIDEST_PREFIX = { 32: 24, 128: 56 } as const;
/** Wider than this is refused even with sshSourceWide: a /1 or /7 is no operator's network. */
const SSH_WIDE_FLOOR = { 32: 16, 128: 32 } as const;

/**
 * SSH source: one address or a network in canonical form (an integer prefix,
 * no host bits set), never loopback, unspecified or the whole Internet, and
 * no wider than /24 (IPv4) or /56 (IPv6) unless `allowWide` (config
 * actor-bench:sshSourceWide) says the operator means it.
 */
export function validateSshSource(v: string, allowWide = false): string {
  const open = ["*", "0.0.0.0/0", "internet", "any", "::/0", "0.0.0.0", "::"];
  if (open.includes(v.trim().toLowerCase())) {
    failSsh(v, "SSH must not be open to the whole Internet: give your own address, e.g. 203.0.113.7 or 203.0.113.0/24");
  }
  const slash = v.indexOf("/");
  const addr = slash < 0 ? v : v.slice(0, slash);
  const prefixText = slash < 0 ? null : v.slice(slash + 1);
  const a = addressBits(addr);
  if (!a || addr !== addr.toLowerCase())
    failSsh(v, "give one IPv4 or IPv6 address, or a network such as 203.0.113.0/24, in canonical form");
  const { value, bits } = a!;
  if (prefixText !== null && !/^(0|[1-9]\d{0,2})$/.test(prefixText))
    failSsh(v, `the prefix after "/" must be a whole number from 0 to ${bits}, e.g. 203.0.113.0/24`);
  const prefix = prefixText === null ? bits : Number(prefixText);
  if (prefix > bits) failSsh(v, `an IPv${bits === 32 ? 4 : 6} prefix is at most /${bits}`);
  const hostBits = BigInt(bits - prefix);
  if (value & ((1n << hostBits) - 1n))
    failSsh(
      v,
      `a network has no host bits set: did you mean ${bits === 32 ? "the address alone, or its network" : "its network"} (e.g. ${addr}/${bits} or the /${prefix} it lies in)?`,
    );
  const loopback = bits === 32 ? value >> 24n === 127n : value === 1n;
  if (loopback || value === 0n)
    failSsh(v, "a loopback or unspecified address reaches nobody from outside: give the public address you connect from");
  if (prefix < SSH_WIDE_FLOOR[bits]) {
    failSsh(
      v,
      `wider than /${SSH_WIDE_FLOOR[bits]}, a large part of the Internet: sshSourceWide opens SSH to a network you mean, not to that; give your own network`,
    );
  }
  if (!allowWide && prefix < SSH_WIDEST_PREFIX[bits]) {
    failSsh(
      v,
      `wider than /${SSH_WIDEST_PREFIX[bits]}; give a narrower network, or set actor-bench:sshSourceWide to true if you mean to open SSH to all of it`,
    );
  }
  return v;
}
