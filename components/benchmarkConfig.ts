/**
 * What the benchmark components are built from: the stack's validated config
 * (stacks/stackConfig.ts reads and checks it), and the checks a component
 * repeats where it would open a port.
 */
import { UsageError, type RunConfig } from "../workloads/runConfig";

export type Target = "local" | "azure";

export interface AzureConfig {
  region: string;
  zones: number[];
  engineVmSize: string;
  runnerVmSize: string;
  /** The one address (or CIDR) SSH is open to. */
  sshSourceAddress: string;
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

/** SSH source: one IPv4 address or a CIDR of /8 or narrower; the whole Internet is refused. */
export function validateSshSource(v: string): string {
  const open = ["*", "0.0.0.0/0", "internet", "any", "::/0", "0.0.0.0"];
  if (open.includes(v.trim().toLowerCase())) {
    failSsh(v, "SSH must not be open to the whole Internet: give your own address, e.g. 203.0.113.7 or 203.0.113.0/24");
  }
  const [addr, prefix, extra] = v.split("/");
  const bits = prefix === undefined ? 32 : Number(prefix);
  if (extra !== undefined || !IPV4.test(addr) || !Number.isInteger(bits) || bits < 8 || bits > 32) {
    failSsh(v, "give one IPv4 address or a CIDR from /8 to /32, e.g. 203.0.113.7 or 203.0.113.0/24");
  }
  return v;
}
