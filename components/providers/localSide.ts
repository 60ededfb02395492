import { randomBytes } from "node:crypto";
import { startDaemon, type DaemonHandle } from "../../workloads/run/daemons";
import { daemonSettings, readDaemon, removeDaemon, replaceDiff, requireString, type CheckFailure, type Props } from "./common";
import { LOOPBACKS, type Loopback } from "../../workloads/host/netns";
import { SIDE_REGISTRY, type SideRegistry } from "../../workloads/sides/registry";
import type { AnySide } from "../../workloads/sides/side";
import type { DaemonOptions } from "../../workloads/run/daemon";

/** Inputs of a LocalSide: which side, where its data lives and how it is set up. Any change replaces it. */
const INPUT_KEYS = ["stack", "side", "stateDir", "loopback", "own", "actorSleepTimeoutMs"];

/** The registry's sides a stack can run: runtimes whose package gives a daemon target. */
const stackSides = (registry: SideRegistry = SIDE_REGISTRY) => registry.filter((d) => d.profile.role === "runtime" && d.daemonTarget);

/** The run settings the side's daemon launches with: its own settings over its package's defaults. */
const launchSettings = (side: AnySide, p: Props) =>
  daemonSettings({ ...side.defaults, ...(p.own as object) }, p.loopback as Loopback, p.actorSleepTimeoutMs as number);

export async function check(_olds: Props, news: Props, registry: SideRegistry = SIDE_REGISTRY) {
  const failures: CheckFailure[] = [];
  requireString(news, "stack", failures);
  requireString(news, "stateDir", failures, /^\//);
  if (!(LOOPBACKS as readonly string[]).includes(news.loopback as string))
    failures.push({ property: "loopback", reason: `loopback must be ${LOOPBACKS.join(" or ")}, got ${JSON.stringify(news.loopback)}` });
  const ms = news.actorSleepTimeoutMs;
  if (!Number.isInteger(ms) || (ms as number) <= 0)
    failures.push({ property: "actorSleepTimeoutMs", reason: `a positive whole number of ms, got ${JSON.stringify(ms)}` });
  const side = stackSides(registry).find((d) => d.profile.id === news.side);
  if (!side) {
    const ids = stackSides(registry).map((d) => d.profile.id);
    failures.push({
      property: "side",
      reason: `side must be a runtime a stack can run (${ids.join(", ")}), got ${JSON.stringify(news.side)}`,
    });
  } else if (typeof news.own !== "object" || news.own === null) {
    failures.push({ property: "own", reason: `own must be the side's settings (an object), got ${JSON.stringify(news.own)}` });
  } else if (failures.length === 0) {
    const problem = side.check?.(launchSettings(side, news));
    if (problem) failures.push({ property: "own", reason: problem });
  }
  return { inputs: news, failures };
}

export async function diff(_id: string, olds: Props, news: Props) {
  // One state directory per side and stack: the old runtime must be gone before the new one starts there.
  return replaceDiff(olds, news, INPUT_KEYS, true);
}

/** Starts the side's daemon with fresh random secrets where its package asks for them; the secrets are an output the program marks secret. */
export async function create(inputs: Props) {
  const side = stackSides().find((d) => d.profile.id === inputs.side)!;
  const secrets = Object.fromEntries((side.stackSecrets ?? []).map((name) => [name, randomBytes(24).toString("hex")]));
  const loopback = inputs.loopback as Loopback;
  const options: DaemonOptions = { settings: launchSettings(side, inputs), secrets };
  const h: DaemonHandle = await startDaemon({ kind: side.profile.id, stateDir: inputs.stateDir as string, loopback, options });
  const r = h.ready as { target: Record<string, unknown>; endpoint: string };
  const outs = { ...inputs, daemon: h, endpoint: r.endpoint, target: r.target, secrets };
  return { id: `${inputs.stack}-${side.profile.id}-${h.pid}`, outs };
}

/** Refresh: gone when the daemon is dead or its runtime does not answer the URL its package named. */
export async function read(id: string, props: Props) {
  const h = props.daemon as DaemonHandle | undefined;
  return readDaemon(id, props, String((h?.ready as { health?: string } | undefined)?.health));
}

export async function remove(_id: string, props: Props) {
  await removeDaemon(props);
}
