import type { Side } from "../../analysis/contract/catalog";
import type { SideDescriptor } from "./side";
import { rivetSide, type RivetTarget } from "./rivet/side";
import { cloudflareSide, type CloudflareTarget } from "./cloudflare/side";
import { floorSide, type FloorTarget } from "./floor/side";

export type { RivetTarget, CloudflareTarget, FloorTarget };

/** The running runtimes a run measures, whoever started them. */
export interface SideTargets {
  rivet?: RivetTarget;
  cloudflare?: CloudflareTarget;
  floor?: FloorTarget;
}

/** Every side's descriptor: the one way a run opens or starts a side. */
export const SIDE_DESCRIPTORS: { [S in Side]: SideDescriptor<NonNullable<SideTargets[S]>> } = {
  rivet: rivetSide,
  cloudflare: cloudflareSide,
  floor: floorSide,
};
