/**
 * What the runner VM runs, over SSH (workloads/runner/commands.ts renders the calls):
 *   node runner.js probe <gatewayUrl>   one getOrCreate + ping through the gateway
 *   node runner.js run <partDir>        a part's run (partDir/request.json), each attempt uploaded to the result container
 *   node runner.js salvage <partDir>    an attempt that was stopped (time limit, reboot) to the result container
 * Progress goes to stderr; `run` writes the part's one result line to partDir/result.json (commands.ts prints it).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GatewayClient } from "../sides/rivet/gateway";
import { requestTasks, runGroupRequest, blobDigest, type GroupRunRequest } from "../run/groupRun";
import { parseRunArgs } from "../run/runConfig";
import { mergeRunParts } from "../run/mergeRuns";
import { taskLabel } from "../experiment/passPlan";
import { verifyRunDir } from "../../analysis/contract/verify";
import { writeAtomic, type Manifest } from "../experiment/runDir";
import { uploadRunDir, type BlobContainer } from "./blobStore";
import { handleInterrupts } from "../host/processes";
import { CREDENTIALS_FILE } from "./commands";
import { finishedPart, PART_FILES, readAttempts, recordAttempt, remainingTasks, type Attempt } from "./attempts";

/** What a run is sent on stdin: no credential (a changed SAS must not re-run a group); those come from CREDENTIALS_FILE. */
export interface RemoteRunRequest {
  request: GroupRunRequest;
  /** The result container's URL, without a SAS. */
  containerUrl: string;
  /** Blob name prefix: <stack>/<side>.<group>; the run goes under <prefix>/<runId>/. */
  prefix: string;
  /** What re-runs the part (the stack's runId, the runner's code): part of the request only so a change names a new part. */
  triggers?: unknown[];
}

/** What the credentials command writes (0600, in the app directory): the runner's SAS (create and write only) and the side's token. */
export interface RunnerCredentials {
  uploadSas: string;
  /** The Engine cluster's admin token: Rivet runs confirm sleep through the Engine's API with it. */
  adminToken?: string;
  /** The Worker's bench token: Cloudflare runs send it on every request. */
  workerToken?: string;
}

/** The request a group run is made with: the stdin request with the credentials put in. */
function withCredentials(req: RemoteRunRequest, creds: RunnerCredentials): { request: GroupRunRequest; container: BlobContainer } {
  if (typeof creds.uploadSas !== "string" || !creds.uploadSas)
    throw new Error(`${CREDENTIALS_FILE} has no uploadSas: the stack's credentials step did not run`);
  const request = structuredClone(req.request);
  const targets = (request.targets ??= {}) as { rivet?: { adminToken?: string }; cloudflare?: { token?: string } };
  if (targets.rivet && creds.adminToken) targets.rivet.adminToken = creds.adminToken;
  if (targets.cloudflare) {
    if (!creds.workerToken) throw new Error(`${CREDENTIALS_FILE} has no workerToken, which a Cloudflare run needs`);
    targets.cloudflare.token = creds.workerToken;
  }
  return { request, container: { url: req.containerUrl, sas: creds.uploadSas } };
}

/** The run's one stdout line: which run, where its blobs are, and its manifest's sha256. The rest is read from the verified download. */
export interface RemoteRunResult {
  runId: string;
  /** Blob name prefix of the uploaded run directory: <prefix>/<runId>. */
  blobPrefix: string;
  sha256: string;
}

export interface ProbeResult {
  ok: boolean;
  ms: number;
  actorId?: string;
  error?: string;
}

/** The probe's one line, from the runner: untrusted, so only a well-formed success passes. */
export function parseProbe(stdout: string | undefined): ProbeResult {
  let r: unknown;
  try {
    r = JSON.parse((stdout ?? "").trim());
  } catch {
    throw new Error(`the runner's probe printed ${JSON.stringify((stdout ?? "").slice(0, 200))}, not its JSON line`);
  }
  const p = r as ProbeResult;
  if (p?.ok !== true || typeof p.ms !== "number" || typeof p.actorId !== "string")
    throw new Error(`the runner's probe did not succeed: ${JSON.stringify(r).slice(0, 300)}`);
  return { ok: true, ms: p.ms, actorId: p.actorId };
}

async function probe(gatewayUrl: string): Promise<ProbeResult> {
  const client = new GatewayClient(gatewayUrl, 30_000, 1);
  try {
    const r = await client.call({ kind: "key", actor: "plain", key: `probe-${Date.now()}` }, "ping");
    return r.ok ? { ok: true, ms: r.ms, actorId: r.actorId } : { ok: false, ms: r.ms, error: r.error };
  } finally {
    await client.close();
  }
}

/** The part's request with the credentials put in, and its tasks. */
function partRequest(partDir: string) {
  const req = JSON.parse(readFileSync(join(partDir, PART_FILES.request), "utf8")) as RemoteRunRequest;
  const { request, container } = withCredentials(req, JSON.parse(readFileSync(CREDENTIALS_FILE, "utf8")) as RunnerCredentials);
  return { req, request, container, requested: requestTasks(request, parseRunArgs(request.runArgs).groups) };
}

/** Uploads a finished (or stopped) run directory under <prefix>/<runId>/, the manifest last; returns where, and its checked manifest. */
async function store(container: BlobContainer, prefix: string, runDir: string): Promise<{ result: RemoteRunResult; manifest: Manifest }> {
  const m = verifyRunDir(runDir) as Manifest;
  const blobPrefix = `${prefix}/${m.runId}`;
  const names = await uploadRunDir(container, runDir, blobPrefix);
  console.error(`actor-bench runner: ${m.status} run ${m.runId}, ${names.length} files uploaded under ${blobPrefix}`);
  return { result: { runId: m.runId, blobPrefix, sha256: blobDigest(runDir) }, manifest: m };
}

/** Stores an attempt and records it in the part: what it finished is not measured again. */
async function storeAttempt(partDir: string, container: BlobContainer, prefix: string, runDir: string): Promise<Attempt> {
  const { result: r, manifest: m } = await store(container, prefix, runDir);
  const a: Attempt = {
    ...r,
    runDir,
    status: m.status === "complete" ? "complete" : "failed",
    ...(m.failure ? { failure: m.failure } : {}),
    tasksDone: m.tasksDone ?? [],
  };
  recordAttempt(partDir, a);
  return a;
}

/**
 * The attempt the runner was measuring when it stopped (its time limit, a
 * reboot), if not stored yet: to the store as it is, every stage it
 * finished under its hash (a manifest still "running" says the runner
 * stopped under it). Returns it, or undefined when there is none.
 */
async function salvage(partDir: string): Promise<Attempt | undefined> {
  const currentFile = join(partDir, PART_FILES.current);
  if (!existsSync(currentFile)) return undefined;
  const runDir = readFileSync(currentFile, "utf8").trim();
  if (readAttempts(partDir).some((a) => a.runDir === runDir) || !existsSync(join(runDir, "manifest.json"))) return undefined;
  const { req, container } = partRequest(partDir);
  const a = await storeAttempt(partDir, container, req.prefix, runDir);
  console.error(
    `actor-bench runner: stored the stopped attempt ${a.runId} (${a.tasksDone.length ? `finished: ${a.tasksDone.join(", ")}` : "no group finished"})`,
  );
  return a;
}

/**
 * A part's run: a stopped attempt first goes to the store, then only the
 * tasks no attempt finished are measured. Its result is that attempt, or,
 * after earlier attempts, the merge of what each finished, itself stored.
 */
async function runPart(partDir: string): Promise<RemoteRunResult> {
  await salvage(partDir);
  const { req, request, container, requested } = partRequest(partDir);
  const remaining = remainingTasks(requested, readAttempts(partDir));
  if (remaining.length < requested.length) {
    console.error(
      `actor-bench runner: resuming; finished by earlier attempts: ${requested
        .filter((t) => !remaining.includes(t))
        .map(taskLabel)
        .join(", ")}; measuring: ${remaining.map(taskLabel).join(", ") || "nothing"}`,
    );
  }
  if (remaining.length > 0) {
    const result = await runGroupRequest({ ...request, tasks: remaining }, process.stderr, (dir) =>
      writeFileSync(join(partDir, PART_FILES.current), dir),
    );
    await storeAttempt(partDir, container, req.prefix, result.runDir);
  }
  const attempts = readAttempts(partDir);
  const last = attempts.at(-1)!;
  if (attempts.length === 1) return { runId: last.runId, blobPrefix: last.blobPrefix, sha256: last.sha256 };
  // Each earlier attempt contributes what it finished; the last one ran to its end and counts whole.
  const scratch = mkdtempSync(join(partDir, ".merge-"));
  try {
    const parts = attempts.map((a, i) => {
      const runDir = i === attempts.length - 1 ? a.runDir : finishedPart(a.runDir, join(scratch, a.runId));
      return { runDir, sha256: blobDigest(runDir), label: `attempt ${i + 1} (${a.runId})` };
    });
    const merged = mergeRunParts(parts, request.blobRoot, request.stack);
    return (await store(container, req.prefix, merged.dir)).result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Writes the part's result line, whole or not at all. */
function writeResult(partDir: string, r: RemoteRunResult): void {
  writeAtomic(join(partDir, PART_FILES.result), `${JSON.stringify(r)}\n`);
}

async function main(argv: string[]): Promise<number> {
  const [cmd, arg] = argv;
  if (cmd === "probe" && arg) {
    const r = await probe(arg);
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return r.ok ? 0 : 1;
  }
  if ((cmd === "run" || cmd === "salvage") && arg) {
    // Anything a library logs goes to the log with the progress.
    console.log = console.error;
    if (cmd === "salvage") {
      await salvage(arg);
      return 0;
    }
    // timeout(1)'s SIGTERM finishes the attempt's manifest (failed, interrupted) before the driver exits, so salvage stores it whole.
    handleInterrupts();
    writeResult(arg, await runPart(arg));
    return 0;
  }
  process.stderr.write("usage: runner.js probe <gatewayUrl> | runner.js run <partDir> | runner.js salvage <partDir>\n");
  return 2;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? (err.stack ?? err.message) : err);
      process.exit(1);
    },
  );
}
