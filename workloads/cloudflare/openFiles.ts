/**
 * What local workerd's open-file limit allows. Every live SQLite-backed DO
 * holds its database, WAL and shared-memory files open until it is evicted
 * (about 10 s after its last call), so the limit caps how many DOs may be
 * live at once. Measured here 2026-12-04 (workerd from npm, /proc/<pid>/fd):
 * 1,000 live DOs held 3,016 descriptors, 24 before them and 24 again once
 * they were evicted.
 */
import { execFileSync } from "node:child_process";
import { CATALOG, sampleCount, type SampleCounts } from "../../analysis/catalog";
import type { Group } from "../../analysis/catalog";

export const FILES_PER_LIVE_DO = 3;
/** Descriptors kept for workerd itself and its sockets (the driver opens up to 256 connections to it). */
export const OPEN_FILE_RESERVE = 1024;

/** This process's hard open-file limit: what an unprivileged workerd may raise its own to. */
export function hardOpenFileLimit(): number {
  const n = Number(execFileSync("sh", ["-c", "ulimit -Hn"], { encoding: "utf8" }).trim());
  return Number.isFinite(n) && n > 0 ? n : 1024;
}

/** Pure: how many DOs may be live at once under an open-file limit. */
export function liveDoLimit(openFiles: number): number {
  return Math.max(0, Math.floor((openFiles - OPEN_FILE_RESERVE) / FILES_PER_LIVE_DO));
}

/** Pure: the open-file limit that lets `liveDos` DOs be live at once. */
export function openFilesFor(liveDos: number): number {
  return OPEN_FILE_RESERVE + liveDos * FILES_PER_LIVE_DO;
}

/**
 * Pure: the most DOs one group's measured stages bring to life, an upper bound
 * (as if none were evicted during the group): the sum of its create and wake
 * stages' samples; for the scaling group, the largest level's wake, creates and
 * burst. Preparations are not counted: they are paced (prepareActors).
 */
export function liveDosNeeded(counts: SampleCounts, groups: readonly Group[], scaleLevels: readonly number[]): { group: Group; n: number } | null {
  let most: { group: Group; n: number } | null = null;
  for (const group of groups) {
    const cold = CATALOG.filter((e) => e.group === group && e.kind === "cold" && e.sides.includes("cloudflare"));
    const n =
      group === "scale"
        ? Math.max(0, ...scaleLevels.map((level) => cold.filter((e) => e.scale?.level === level).reduce((s, e) => s + sampleCount(e, counts), 0)))
        : cold.reduce((s, e) => s + sampleCount(e, counts), 0);
    if (n > 0 && (!most || n > most.n)) most = { group, n };
  }
  return most;
}

/** Pure: why local workerd under `openFiles` cannot hold the run's measured DOs, in one line; null when it can. */
export function openFileProblem(counts: SampleCounts, groups: readonly Group[], scaleLevels: readonly number[], openFiles: number): string | null {
  const need = liveDosNeeded(counts, groups, scaleLevels);
  const allowed = liveDoLimit(openFiles);
  if (!need || need.n <= allowed) return null;
  return (
    `local workerd's open-file limit ${openFiles} lets ${allowed} SQLite DOs be live at once (${FILES_PER_LIVE_DO} files each past ${OPEN_FILE_RESERVE} reserved), ` +
    `but the ${need.group} group brings up to ${need.n} to life: raise the hard limit to at least ${openFilesFor(need.n)} (ulimit -Hn, or LimitNOFILE) ` +
    `and pass --workerd-open-files ${openFilesFor(need.n)}, or use fewer samples`
  );
}
