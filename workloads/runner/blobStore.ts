/**
 * A run directory to and from an Azure Blob container, over the Blob REST API
 * with a container SAS (no SDK). The manifest is the index: the files it
 * lists, plus itself, are what a run directory is.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { request } from "undici";
import { RunDirError, verifyRunDir, type ManifestLike } from "../../analysis/contract/verify";
import { checkBenchmarkFiles, readListed } from "../../analysis/contract/runDirContract";

export interface BlobContainer {
  /** https://<account>.blob.core.windows.net/<container> (or an emulator's). */
  url: string;
  /** The SAS query string, without the leading "?". */
  sas: string;
}

/** The Blob REST API version every request here names. */
export const API_VERSION = "2023-11-03";

export function blobUrl(c: BlobContainer, name: string): string {
  const path = name.split("/").map(encodeURIComponent).join("/");
  return `${c.url.replace(/\/$/, "")}/${path}?${c.sas.replace(/^\?/, "")}`;
}

/** Where a URL with a SAS may be shown: without its query. */
export function withoutSas(url: string): string {
  return url.split("?")[0];
}

export async function putBlob(c: BlobContainer, name: string, body: Buffer): Promise<void> {
  const res = await request(blobUrl(c, name), {
    method: "PUT",
    headers: {
      "x-ms-blob-type": "BlockBlob",
      "x-ms-version": API_VERSION,
      "content-length": String(body.length),
      "content-type": "application/octet-stream",
    },
    body,
  });
  const text = await res.body.text();
  if (res.statusCode !== 201) throw new Error(`PUT ${withoutSas(blobUrl(c, name))}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
}

export async function getBlob(c: BlobContainer, name: string): Promise<Buffer> {
  const res = await request(blobUrl(c, name), { method: "GET", headers: { "x-ms-version": API_VERSION } });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) {
    throw new Error(`GET ${withoutSas(blobUrl(c, name))}: HTTP ${res.statusCode} ${body.toString("utf8").slice(0, 300)}`);
  }
  return body;
}

/** The raw files a manifest lists. */
function listedFiles(manifest: string): string[] {
  return Object.keys((JSON.parse(manifest) as { files: Record<string, unknown> }).files);
}

/** Uploads the run directory under `prefix/`; the manifest goes last, so a listed manifest means a whole run. */
export async function uploadRunDir(c: BlobContainer, runDir: string, prefix: string): Promise<string[]> {
  const names: string[] = [];
  for (const file of [...listedFiles(readFileSync(join(runDir, "manifest.json"), "utf8")), "manifest.json"]) {
    await putBlob(c, `${prefix}/${file}`, readListed(runDir, file));
    names.push(`${prefix}/${file}`);
  }
  return names;
}

/**
 * Downloads the run under `prefix/` into `dest` and checks it: the manifest's
 * sha256 must be `manifestSha256` (what the runner reported), every name it
 * lists must be a benchmark run's file (checked before anything is written),
 * and every file must match the manifest. The files go to a temporary
 * directory beside `dest`, which becomes `dest` only once verified; on any
 * failure it is removed and `dest` is untouched. Throws naming what does not
 * match.
 */
/** Downloads a stored run into `dest` and returns its manifest, checked against every hash before `dest` exists. */
export async function downloadRunDir(c: BlobContainer, prefix: string, dest: string, manifestSha256: string): Promise<ManifestLike> {
  const manifest = await getBlob(c, `${prefix}/manifest.json`);
  const actual = createHash("sha256").update(manifest).digest("hex");
  if (actual !== manifestSha256) {
    throw new Error(
      `${withoutSas(blobUrl(c, `${prefix}/manifest.json`))}: sha256 ${actual}, but the runner reported ${manifestSha256}; the stored run is not the one measured`,
    );
  }
  let parsed: ManifestLike;
  try {
    parsed = JSON.parse(manifest.toString("utf8")) as ManifestLike;
  } catch {
    throw new RunDirError(`${prefix}/manifest.json: not valid JSON; nothing was written`);
  }
  const files = parsed?.files;
  if (!files || typeof files !== "object") throw new RunDirError(`${prefix}/manifest.json: has no "files"; nothing was written`);
  checkBenchmarkFiles(parsed, `${prefix}/manifest.json`);
  const tmp = join(dirname(dest), `.${basename(dest)}.partial-${randomBytes(4).toString("hex")}`);
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(join(tmp, "manifest.json"), manifest);
    for (const file of Object.keys(files)) {
      const body = await getBlob(c, `${prefix}/${file}`);
      mkdirSync(dirname(join(tmp, file)), { recursive: true });
      writeFileSync(join(tmp, file), body);
    }
    const checked = verifyRunDir(tmp);
    if (existsSync(dest)) rmSync(dest, { recursive: true, force: true });
    renameSync(tmp, dest);
    return checked;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
