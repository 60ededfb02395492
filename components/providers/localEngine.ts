import { packageVersion } from "../../workloads/host/versions";
import { startDaemon } from "../../workloads/run/daemons";
import { daemonSettings, LOOPBACKS, readDaemon, removeDaemon, replaceDiff, requireString, type CheckFailure, type Props } from "./common";
import { RIVET_DEFAULTS } from "../../workloads/sides/rivet/settings";
import type { DaemonOptions } from "../../workloads/run/daemon";

/** Inputs of a LocalEngine: where its data lives and how the Engine + app are set up. */
const INPUT_KEYS = ["stack", "stateDir", "loopback", "engineVersion", "settings", "actorSleepTimeoutMs", "topology"];

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  requireString(news, "stack", failures);
  requireString(news, "stateDir", failures, /^\//);
  if (!LOOPBACKS.includes(news.loopback as string))
    failures.push({ property: "loopback", reason: `loopback must be quickack or host, got ${JSON.stringify(news.loopback)}` });
  const installed = packageVersion("@rivetkit/engine-cli");
  if (news.engineVersion !== installed) {
    failures.push({
      property: "engineVersion",
      reason: `the local Engine is the one installed from npm, ${installed}; got ${JSON.stringify(news.engineVersion)}`,
    });
  }
  if (!Number.isInteger(news.actorSleepTimeoutMs) || (news.actorSleepTimeoutMs as number) <= 0) {
    failures.push({
      property: "actorSleepTimeoutMs",
      reason: `a positive whole number of ms, got ${JSON.stringify(news.actorSleepTimeoutMs)}`,
    });
  }
  if (news.topology !== "single" && news.topology !== "cluster")
    failures.push({ property: "topology", reason: `topology must be single or cluster, got ${JSON.stringify(news.topology)}` });
  return { inputs: news, failures };
}

export async function diff(_id: string, olds: Props, news: Props) {
  // One state directory per stack: the old Engine must be gone before the new one starts there.
  return replaceDiff(olds, news, INPUT_KEYS, true);
}

export async function create(inputs: Props) {
  const h = await startDaemon({
    kind: "rivet",
    stateDir: inputs.stateDir as string,
    loopback: inputs.loopback as "quickack" | "host",
    options: {
      settings: daemonSettings(
        { ...RIVET_DEFAULTS, engine: inputs.settings, engineTopology: inputs.topology },
        inputs.loopback as "quickack" | "host",
        inputs.actorSleepTimeoutMs as number,
      ),
    } satisfies DaemonOptions,
  });
  const t = h.ready.target as { gatewayUrl: string; engineVersion: string };
  const outs = { ...inputs, daemon: h, gatewayUrl: t.gatewayUrl, runningEngineVersion: t.engineVersion };
  return { id: `${inputs.stack}-engine-${h.pid}`, outs };
}

/** Refresh: gone when the daemon is dead or the gateway does not answer /health. */
export async function read(id: string, props: Props) {
  return readDaemon(id, props, `${props.gatewayUrl as string}/health`);
}

export async function remove(_id: string, props: Props) {
  await removeDaemon(props);
}
