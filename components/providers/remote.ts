import type { SshTarget } from "../../workloads/remote/ssh";
import type { CheckFailure, Props } from "./common";

/** The SSH half of a runner resource's inputs (the key arrives as a secret). */
export function sshTargetOf(inputs: Props): SshTarget {
  const s = inputs.ssh as { host: string; port: number; user: string; privateKey: string };
  return { host: s.host, port: s.port, user: s.user, privateKey: s.privateKey, knownHostsFile: inputs.knownHostsFile as string };
}

export function checkSsh(news: Props, failures: CheckFailure[]): void {
  const s = news.ssh as Props | undefined;
  if (!s || typeof s.host !== "string" || !s.host || !Number.isInteger(s.port) || typeof s.user !== "string" || typeof s.privateKey !== "string" || !s.privateKey.includes("PRIVATE KEY")) {
    failures.push({ property: "ssh", reason: "ssh must be {host, port, user, privateKey} with an OpenSSH private key" });
  }
  for (const key of ["knownHostsFile", "appDir", "nodeBin"]) {
    if (typeof news[key] !== "string" || !(news[key] as string).startsWith("/")) failures.push({ property: key, reason: `${key} must be an absolute path, got ${JSON.stringify(news[key])}` });
  }
}
