import { randomBytes } from "node:crypto";
import { startDaemon } from "../../workloads/run/daemons";
import { daemonSettings, LOOPBACKS, readDaemon, removeDaemon, replaceDiff, requireString, type CheckFailure, type Props } from "./common";
import { CLOUDFLARE_DEFAULTS } from "../../workloads/sides/cloudflare/settings";
import type { DaemonOptions } from "../../workloads/run/daemon";

const INPUT_KEYS = ["stack", "stateDir", "loopback"];

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  requireString(news, "stack", failures);
  requireString(news, "stateDir", failures, /^\//);
  if (!LOOPBACKS.includes(news.loopback as string))
    failures.push({ property: "loopback", reason: `loopback must be quickack or host, got ${JSON.stringify(news.loopback)}` });
  return { inputs: news, failures };
}

export async function diff(_id: string, olds: Props, news: Props) {
  return replaceDiff(olds, news, INPUT_KEYS, true);
}

/** Starts workerd with a fresh random bench token; the token is an output the program marks secret. */
export async function create(inputs: Props) {
  const token = randomBytes(24).toString("hex");
  const loopback = inputs.loopback as "quickack" | "host";
  const options: DaemonOptions = { settings: daemonSettings(CLOUDFLARE_DEFAULTS, loopback), secrets: { token } };
  const h = await startDaemon({ kind: "cloudflare", stateDir: inputs.stateDir as string, loopback, options });
  const r = h.ready.target as { url: string; versions: Record<string, string> };
  return {
    id: `${inputs.stack}-worker-${h.pid}`,
    outs: {
      ...inputs,
      daemon: h,
      url: r.url,
      versions: r.versions,
      token,
    },
  };
}

/** Refresh: gone when the daemon is dead or the Worker does not answer. */
export async function read(id: string, props: Props) {
  return readDaemon(id, props, `${props.url as string}/noop`);
}

export async function remove(_id: string, props: Props) {
  await removeDaemon(props);
}
