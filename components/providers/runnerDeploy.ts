import { parseResultLine, type ProbeResult } from "../../workloads/remote/runner";
import { bundleTarArgv, installCommand, runnerCommand } from "../../workloads/remote/bundle";
import { sshExec, sshRun, waitForSsh } from "../../workloads/remote/ssh";
import { textTail } from "../../workloads/waitFor";
import { checkSsh, sshTargetOf } from "./remote";
import { replaceDiff, requireString, type CheckFailure, type Props } from "./common";
import { privateParent } from "../../workloads/privateDir";

/** A new build, another runner or gateway: deploy again. The SSH key is a credential, not a reason. */
const INPUT_KEYS = ["stack", "host", "appDir", "nodeBin", "gatewayUrl", "bundleDigest", "readyCommand", "startAppCommand"];

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  requireString(news, "stack", failures);
  requireString(news, "projectDir", failures, /^\//);
  requireString(news, "gatewayUrl", failures, /^http:\/\//);
  requireString(news, "bundleDigest", failures, /^[0-9a-f]{64}$/);
  checkSsh(news, failures);
  return { inputs: { ...news, host: (news.ssh as Props | undefined)?.host }, failures };
}

export async function diff(_id: string, olds: Props, news: Props) {
  return replaceDiff(olds, news, INPUT_KEYS);
}

// The Engine VMs may still be in their first boot when the runner is up.
const PROBE_TIMEOUT_MS = 600_000;

/**
 * Waits for the VM (SSH, then its readiness command), streams the bundle,
 * installs it from the lock file, (re)starts the app and checks one request
 * through the gateway before `up` moves on.
 */
export async function create(inputs: Props) {
  const t = sshTargetOf(inputs);
  privateParent(t.knownHostsFile);
  const appDir = inputs.appDir as string;
  const nodeBin = inputs.nodeBin as string;
  const t0 = Date.now();
  const step = (what: string) => console.error(`actor-bench runner ${t.host}: ${what} (${Math.round((Date.now() - t0) / 1000)} s)`);
  await waitForSsh(t, 600_000);
  step("SSH answers");
  await sshRun(t, "waiting for the VM's first boot", inputs.readyCommand as string);
  step("first boot done");
  await sshRun(t, "installing the bundle", installCommand(appDir, nodeBin), { stdin: { argv: bundleTarArgv(), cwd: inputs.projectDir as string } });
  step("bundle installed");
  await sshRun(t, "starting the RivetKit app", inputs.startAppCommand as string, { timeoutMs: 120_000 });
  step("app started");
  const deadline = Date.now() + PROBE_TIMEOUT_MS;
  let last: ProbeResult | null = null;
  for (;;) {
    const r = await sshExec(t, runnerCommand(appDir, nodeBin, ["probe", inputs.gatewayUrl as string]), { timeoutMs: 60_000 });
    last = parseResultLine<ProbeResult>(r.stdout);
    if (r.code === 0 && last?.ok) break;
    // No result line: the runner's code itself failed (not a request not answered yet); waiting will not help.
    if (!last) throw new Error(`the probe on the runner failed to run (exit ${r.code}):\n${textTail(r.stderr)}`);
    if (Date.now() > deadline) {
      throw new Error(`the probe through ${inputs.gatewayUrl as string} from the runner failed for ${PROBE_TIMEOUT_MS / 1000} s: ${last.error ?? r.stderr.trim().slice(-500)}`);
    }
    await new Promise((res) => setTimeout(res, 3000));
  }
  return { id: `${inputs.stack as string}-runner-${(inputs.bundleDigest as string).slice(0, 12)}`, outs: { ...inputs, probe: last } };
}

export async function read(id: string, props: Props) {
  return { id, props };
}

/** Stops the app; a runner that is already gone (its VM deleted first) is not an error. */
export async function remove(_id: string, props: Props) {
  if (typeof props.stopAppCommand !== "string") return;
  await sshExec(sshTargetOf(props), props.stopAppCommand, { timeoutMs: 30_000 }).catch(() => undefined);
}
