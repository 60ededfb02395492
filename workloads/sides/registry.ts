/**
 * Every side a run can measure, in the order every table and chart lists
 * them. A side is its folder (workloads/sides/<side>/: profile, settings,
 * adapter, launcher, runtime) and one line here; nothing above this folder
 * names a side (docs/adding-a-side.md).
 */
import type { AnySide } from "./side";
import { rivetSide } from "./rivet/side";
import { cloudflareSide } from "./cloudflare/side";
import { floorSide } from "./floor/side";

export type SideRegistry = readonly AnySide[];

export const SIDE_REGISTRY: SideRegistry = [rivetSide, cloudflareSide, floorSide];

/** A side's descriptor; throws naming the sides there are. */
export function sideOf(registry: SideRegistry, id: string): AnySide {
  const d = registry.find((x) => x.profile.id === id);
  if (!d) throw new Error(`"${id}" is not a side (${registry.map((x) => x.profile.id).join(", ")})`);
  return d;
}

/** The ids of the runtimes (not floors): what `--side both` and a stack measure. */
export const runtimeIds = (registry: SideRegistry): string[] =>
  registry.filter((d) => d.profile.role === "runtime").map((d) => d.profile.id);
