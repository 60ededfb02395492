/**
 * What a side says about itself: its words, its clocks, how its rates are
 * read, which optional metrics it measures. Each side's package declares
 * its profile (workloads/sides/<side>/profile.ts) and the run records it in
 * the manifest (`sideProfiles`), so a run directory describes its own sides:
 * the report, the charts and the site read the profiles from there and name
 * no side themselves.
 */
import { LEGACY_PROFILES } from "./legacySides";
import type { SideProfile } from "./sideProfileShape";

export type { Pricing, SideProfile } from "./sideProfileShape";

/** A run's sides, in the registry's order, with their profiles. */
export interface SideBook {
  readonly order: readonly string[];
  get(side: string): SideProfile;
}

/** The words of a side no profile describes (a run directory from elsewhere): its id, the driver's clock. */
function unknownProfile(id: string): SideProfile {
  return {
    id,
    name: id,
    short: id,
    clock: "client round trip (driver hrtime)",
    clockShort: "client round trip",
    clientColumn: `${id} (client)`,
    ownColumn: `${id} (client)`,
    route: `to ${id}`,
    runtimeProcess: id,
    sleep: `${id}'s own sleep`,
    about: id,
    colour: "#888888",
    role: "runtime",
    sleepsByIdleOnly: false,
    msIsClientClock: true,
    msTick: 0.000001,
    throughputMethod: "measured",
    openRates: [],
    optionalMetrics: [],
  };
}

function bookOf(profiles: readonly SideProfile[]): SideBook {
  const byId = new Map(profiles.map((p) => [p.id, p]));
  return {
    order: profiles.map((p) => p.id),
    get: (side) => byId.get(side) ?? LEGACY_PROFILES.find((p) => p.id === side) ?? unknownProfile(side),
  };
}

/** The sides of runs made before manifests recorded their profiles. */
export const LEGACY_BOOK: SideBook = bookOf(LEGACY_PROFILES);

/** A run's sides from its manifest (every side of the registry it was made with): the recorded profiles, or, for a run made before they were recorded, those of its time. */
export function sideBookOf(m: { sideProfiles?: unknown }): SideBook {
  const recorded = Array.isArray(m.sideProfiles) ? (m.sideProfiles as SideProfile[]) : null;
  return recorded ? bookOf(recorded) : LEGACY_BOOK;
}

/** The runtimes of a book (always columns), then its floors. */
export const runtimesOf = (book: SideBook): string[] => book.order.filter((s) => book.get(s).role === "runtime");
export const controlsOf = (book: SideBook): string[] => book.order.filter((s) => book.get(s).role === "control");

/** The first field of a recorded profile that is not of its type, or null. */
export function profileProblem(p: unknown, path: string): string | null {
  if (typeof p !== "object" || p === null || Array.isArray(p)) return `${path} must be an object`;
  const o = p as Record<string, unknown>;
  for (const k of [
    "id",
    "name",
    "short",
    "clock",
    "clockShort",
    "clientColumn",
    "ownColumn",
    "route",
    "runtimeProcess",
    "sleep",
    "about",
    "colour",
  ]) {
    if (typeof o[k] !== "string") return `${path}.${k} must be text`;
  }
  if (!/^[a-z]+$/.test(o.id as string)) return `${path}.id must be lower-case letters, got ${JSON.stringify(o.id)}`;
  if (o.role !== "runtime" && o.role !== "control") return `${path}.role must be "runtime" or "control"`;
  if (typeof o.sleepsByIdleOnly !== "boolean") return `${path}.sleepsByIdleOnly must be true or false`;
  if (typeof o.msIsClientClock !== "boolean") return `${path}.msIsClientClock must be true or false`;
  if (typeof o.msTick !== "number" || !(o.msTick > 0)) return `${path}.msTick must be a number above 0`;
  if (o.throughputMethod !== "measured" && o.throughputMethod !== "littles-law")
    return `${path}.throughputMethod must be "measured" or "littles-law"`;
  if (!Array.isArray(o.openRates) || !o.openRates.every((r) => Number.isInteger(r) && r > 0))
    return `${path}.openRates must be a list of whole rates per second`;
  if (!Array.isArray(o.optionalMetrics) || !o.optionalMetrics.every((x) => typeof x === "string"))
    return `${path}.optionalMetrics must be a list of metric ids`;
  for (const k of ["controlAbout", "ownClockNote"] as const)
    if (o[k] !== undefined && typeof o[k] !== "string") return `${path}.${k} must be text`;
  const iv = o.intervals as Record<string, unknown> | undefined;
  if (
    iv !== undefined &&
    (typeof iv !== "object" ||
      iv === null ||
      Object.entries(iv).some(([k, v]) => !["actorMs", "sqlMs"].includes(k) || typeof v !== "string"))
  )
    return `${path}.intervals must name actorMs and sqlMs in words`;
  if (
    o.pricing !== undefined &&
    !(Array.isArray(o.pricing) && o.pricing.every((x) => typeof x?.name === "string" && ["usage", "cpu", "units"].includes(x?.kind)))
  )
    return `${path}.pricing must list ways each with a name and a kind (usage, cpu or units)`;
  const w = o.platform as Record<string, unknown> | undefined;
  if (
    w !== undefined &&
    (typeof w !== "object" || w === null || ["name", "actor", "actors", "front"].some((k) => typeof w[k] !== "string"))
  )
    return `${path}.platform must have name, actor, actors and front in words`;
  const b = o.baseline as Record<string, unknown> | undefined;
  if (b !== undefined && (typeof b !== "object" || b === null || ["what", "missing", "column"].some((k) => typeof b[k] !== "string")))
    return `${path}.baseline must have what, missing and column in words`;
  return null;
}
