/**
 * How many SQLite-backed DOs local workerd can keep live at once. Each holds
 * its database, WAL and shared-memory files open until it is evicted (about
 * 10 s after its last call), so the open-file limit caps them; and past a
 * number of its own, whatever that limit, workerd fails new ones with
 * SQLITE_NOMEM. Both measured on this machine: docs/faults.md.
 */
import { execFileSync } from "node:child_process";
import { sampleCount, sideEntries, type Group, type SampleCounts } from "../../../analysis/contract/catalog";
import { CLOUDFLARE_PROFILE } from "./profile";

const FILES_PER_LIVE_DO = 3;
/** Descriptors kept for workerd itself and its sockets (the driver opens up to 256 connections to it). */
const OPEN_FILE_RESERVE = 1024;
/** Live DOs kept under the number at which local workerd answers SQLITE_NOMEM (docs/faults.md), with a margin. */
export const LIVE_DO_CEILING = 3000;

/** This process's hard open-file limit: what an unprivileged workerd may raise its own to. */
export function hardOpenFileLimit(): number {
  const n = Number(execFileSync("sh", ["-c", "ulimit -Hn"], { encoding: "utf8" }).trim());
  return Number.isFinite(n) && n > 0 ? n : 1024;
}

/** Pure: how many DOs may be live at once under an open-file limit (never more than LIVE_DO_CEILING). */
export function liveDoLimit(openFiles: number): number {
  return Math.min(LIVE_DO_CEILING, Math.max(0, Math.floor((openFiles - OPEN_FILE_RESERVE) / FILES_PER_LIVE_DO)));
}

/** Pure: the open-file limit that lets `liveDos` DOs be live at once. */
export function openFilesFor(liveDos: number): number {
  return OPEN_FILE_RESERVE + liveDos * FILES_PER_LIVE_DO;
}

/**
 * Pure: the measured stage that brings the most DOs to life (its creates,
 * wakes or open-model arrivals), among the run's groups and scale levels.
 * Preparations are not counted: they are paced (prepareActors).
 */
export function liveDosNeeded(
  counts: SampleCounts,
  groups: readonly Group[],
  scaleLevels: readonly number[],
): { metric: string; n: number } | null {
  let most: { metric: string; n: number } | null = null;
  for (const e of sideEntries(CLOUDFLARE_PROFILE)) {
    if (!groups.includes(e.group) || e.kind !== "cold") continue;
    if (e.scale && !scaleLevels.includes(e.scale.level)) continue;
    const n = sampleCount(e, counts);
    if (n > 0 && (!most || n > most.n)) most = { metric: e.id, n };
  }
  return most;
}

/** Pure: why local workerd under `openFiles` cannot hold the run's measured DOs, in one line; null when it can. */
export function openFileProblem(
  counts: SampleCounts,
  groups: readonly Group[],
  scaleLevels: readonly number[],
  openFiles: number,
): string | null {
  const need = liveDosNeeded(counts, groups, scaleLevels);
  const allowed = liveDoLimit(openFiles);
  if (!need || need.n <= allowed) return null;
  const room = `local workerd's open-file limit ${openFiles} lets ${allowed} SQLite DOs be live at once (${FILES_PER_LIVE_DO} files each past ${OPEN_FILE_RESERVE} reserved, at most ${LIVE_DO_CEILING}), but ${need.metric} brings ${need.n} to life`;
  if (need.n > LIVE_DO_CEILING) return `${room}: more than local workerd keeps live at any limit; use fewer samples (--samples)`;
  return `${room}: raise the hard limit to at least ${openFilesFor(need.n)} (ulimit -Hn, or LimitNOFILE) and pass --workerd-open-files ${openFilesFor(need.n)}, or use fewer samples`;
}
