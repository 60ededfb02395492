/**
 * A service's restart policy, written once: the VMs' systemd units render it
 * (cloudInit.ts) and the local twin starts its Engines under it
 * (workloads/host/startWithRestarts.ts), so a race between Engines starting
 * together shows locally as it would on the VMs.
 */

export interface RestartPolicy {
  /** systemd's Restart=on-failure: an exit other than 0, or a signal, restarts. */
  restartSec: number;
  /** Exit codes that mean "do not try again" (RestartPreventExitStatus=). */
  preventExitStatus: number[];
}

/** The [Unit] and [Service] lines a unit gets for `policy`; no start limit, so a slow race never ends a node for good. */
export function restartLines(policy: RestartPolicy): { unit: string[]; service: string[] } {
  return {
    unit: ["StartLimitIntervalSec=0"],
    service: [
      "Restart=on-failure",
      `RestartSec=${policy.restartSec}`,
      ...(policy.preventExitStatus.length ? [`RestartPreventExitStatus=${policy.preventExitStatus.join(" ")}`] : []),
    ],
  };
}
