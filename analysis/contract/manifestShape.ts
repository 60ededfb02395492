/**
 * The manifest's types, checked before anything reads it: a run directory
 * can come from another machine, and a manifest whose hashes match can still
 * hold a null where a record belongs. Pure: the first field that is not what
 * the contract says, named by its path, or null.
 */

import { profileProblem } from "./sideProfile";

type Check = (x: unknown) => string | null;

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const describe = (x: unknown) =>
  x === null ? "null" : Array.isArray(x) ? "a list" : typeof x === "string" ? JSON.stringify(x.slice(0, 40)) : typeof x;

const str: Check = (x) => (typeof x === "string" ? null : `must be text, got ${describe(x)}`);
const strOrNull: Check = (x) => (x === null || typeof x === "string" ? null : `must be text or null, got ${describe(x)}`);
const count: Check = (x) => (Number.isInteger(x) && (x as number) >= 0 ? null : `must be a whole number from 0, got ${describe(x)}`);
const duration: Check = (x) =>
  typeof x === "number" && Number.isFinite(x) && x >= 0 ? null : `must be a number of ms from 0, got ${describe(x)}`;
const boolOrNull: Check = (x) => (x === null || typeof x === "boolean" ? null : `must be true, false or null, got ${describe(x)}`);
const object: Check = (x) => (isObject(x) ? null : `must be an object, got ${describe(x)}`);
const sha256: Check = (x) =>
  typeof x === "string" && /^[0-9a-f]{64}$/.test(x) ? null : `must be 64 lowercase hex digits, got ${describe(x)}`;

/** An object with these fields (optional ones may be absent), and no check on other fields. */
function fields(spec: Record<string, Check>, optional: Record<string, Check> = {}): (x: unknown, path: string) => string | null {
  return (x, path) => {
    if (!isObject(x)) return `${path} must be an object, got ${describe(x)}`;
    for (const [k, check] of Object.entries(spec)) {
      const p = check(x[k]);
      if (p) return `${path}.${k} ${p}`;
    }
    for (const [k, check] of Object.entries(optional)) {
      if (x[k] === undefined) continue;
      const p = check(x[k]);
      if (p) return `${path}.${k} ${p}`;
    }
    return null;
  };
}

const repStage = fields(
  { rep: count, attempts: count, errors: count, wallMs: duration, startedAt: str },
  { notes: object, status: str, failure: str },
);
const stage = fields(
  { side: str, metric: str, file: str, attempts: count, errors: count, wallMs: duration, concurrency: count, startedAt: str },
  { notes: object, status: str, failure: str },
);
const fileDigest = fields({ sha256, lines: count });
const code = fields({ commit: strOrNull, dirty: boolOrNull, source: str });

/** The first field of a parsed manifest that is not of the contract's type, as "<path> <what is wrong>", or null. */
export function manifestShapeProblem(m: unknown): string | null {
  if (!isObject(m)) return `the manifest must be a JSON object, got ${describe(m)}`;
  const top = fields(
    {
      stack: str,
      runId: str,
      startedAt: str,
      finishedAt: strOrNull,
      preset: str,
      versions: object,
      machine: object,
      config: object,
      stages: object,
      files: object,
    },
    { status: str, failure: str, settings: object, code: object },
  )(m, "manifest");
  if (top) return top;
  if (m.sideProfiles !== undefined) {
    if (!Array.isArray(m.sideProfiles)) return `manifest.sideProfiles must be a list, got ${describe(m.sideProfiles)}`;
    for (const [i, p] of m.sideProfiles.entries()) {
      const q = profileProblem(p, `manifest.sideProfiles[${i}]`);
      if (q) return q;
    }
  }
  for (const [k, v] of Object.entries(m.versions as Record<string, unknown>))
    if (typeof v !== "string") return `manifest.versions.${k} must be text, got ${describe(v)}`;
  const c = m.code === undefined ? null : code(m.code, "manifest.code");
  if (c) return c;
  for (const [k, v] of Object.entries(m.files as Record<string, unknown>)) {
    const p = fileDigest(v, `manifest.files["${k}"]`);
    if (p) return p;
  }
  for (const [k, v] of Object.entries(m.stages as Record<string, unknown>)) {
    const p = stage(v, `manifest.stages["${k}"]`);
    if (p) return p;
    const reps = (v as Record<string, unknown>).repetitions;
    if (reps === undefined) continue;
    if (!Array.isArray(reps)) return `manifest.stages["${k}"].repetitions must be a list, got ${describe(reps)}`;
    for (const [i, r] of reps.entries()) {
      const q = repStage(r, `manifest.stages["${k}"].repetitions[${i}]`);
      if (q) return q;
    }
  }
  return null;
}
