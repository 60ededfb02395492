/**
 * What the runner VM runs, over SSH (workloads/runner/commands.ts renders the calls):
 *   node runner.js probe <gatewayUrl>   one getOrCreate + ping through the gateway
 *   node runner.js run                  a group run (request JSON on stdin), uploaded to the result container
 * Progress goes to stderr; stdout carries exactly one JSON line, the result.
 */
import { readFileSync } from "node:fs";
import { GatewayClient } from "../sides/rivet/gateway";
import { runGroupRequest, type GroupRunRequest, type GroupRunResult } from "../run/groupRun";
import { uploadRunDir, type BlobContainer } from "./blobStore";
import { CREDENTIALS_FILE } from "./commands";

/** What a run is sent on stdin: no credential (a changed SAS must not re-run a group); those come from CREDENTIALS_FILE. */
export interface RemoteRunRequest {
  request: GroupRunRequest;
  /** The result container's URL, without a SAS. */
  containerUrl: string;
  /** Blob name prefix: <stack>/<side>.<group>; the run goes under <prefix>/<runId>/. */
  prefix: string;
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
export function withCredentials(req: RemoteRunRequest, creds: RunnerCredentials): { request: GroupRunRequest; container: BlobContainer } {
  if (typeof creds.uploadSas !== "string" || !creds.uploadSas) throw new Error(`${CREDENTIALS_FILE} has no uploadSas: the stack's credentials step did not run`);
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
  if (!p || p.ok !== true || typeof p.ms !== "number" || typeof p.actorId !== "string") throw new Error(`the runner's probe did not succeed: ${JSON.stringify(r).slice(0, 300)}`);
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

async function run(req: RemoteRunRequest): Promise<RemoteRunResult> {
  const { request, container } = withCredentials(req, JSON.parse(readFileSync(CREDENTIALS_FILE, "utf8")) as RunnerCredentials);
  const result: GroupRunResult = await runGroupRequest(request);
  const blobPrefix = `${req.prefix}/${result.runId}`;
  const names = await uploadRunDir(container, result.runDir, blobPrefix);
  console.error(`actor-bench runner: ${result.status} run ${result.runId}, ${names.length} files uploaded under ${blobPrefix}`);
  return { runId: result.runId, blobPrefix, sha256: result.sha256 };
}

async function main(argv: string[]): Promise<number> {
  const [cmd, arg] = argv;
  if (cmd === "probe" && arg) {
    const r = await probe(arg);
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return r.ok ? 0 : 1;
  }
  if (cmd === "run") {
    // stdout carries the result line alone: anything a library logs goes to stderr with the progress.
    console.log = console.error;
    const r = await run(JSON.parse(readFileSync(0, "utf8")) as RemoteRunRequest);
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return 0;
  }
  process.stderr.write("usage: runner.js probe <gatewayUrl> | runner.js run (RemoteRunRequest JSON on stdin)\n");
  return 2;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.stack ?? err.message : err);
      process.exit(1);
    },
  );
}
