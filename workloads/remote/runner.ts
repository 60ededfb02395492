/**
 * What the runner VM runs, over SSH:
 *   node runner.js probe <gatewayUrl>   one getOrCreate + ping through the gateway
 *   node runner.js run                  a group run (request JSON on stdin), uploaded to the result container
 * Progress goes to stderr; the one result line goes to stdout after RESULT_MARK.
 */
import { readFileSync } from "node:fs";
import { GatewayClient } from "../rivet/gateway";
import { runGroupRequest, type GroupRunRequest, type GroupRunResult } from "../local/groupRun";
import { uploadRunDir, type BlobContainer } from "./blobStore";

export const RESULT_MARK = "ACTOR_BENCH_RESULT ";

export interface RemoteRunRequest {
  request: GroupRunRequest;
  container: BlobContainer;
  /** Blob name prefix: <stack>/<side>.<group>; the run goes under <prefix>/<runId>/. */
  prefix: string;
}

export interface RemoteRunResult extends GroupRunResult {
  /** Blob name prefix of the uploaded run directory. */
  blobPrefix: string;
  uploaded: number;
}

export interface ProbeResult {
  ok: boolean;
  ms: number;
  actorId?: string;
  error?: string;
}

export function parseResultLine<T>(stdout: string): T | null {
  const line = stdout.split("\n").find((l) => l.startsWith(RESULT_MARK));
  return line ? (JSON.parse(line.slice(RESULT_MARK.length)) as T) : null;
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
  const result = await runGroupRequest(req.request);
  const blobPrefix = `${req.prefix}/${result.runId}`;
  const names = await uploadRunDir(req.container, result.runDir, blobPrefix);
  return { ...result, blobPrefix, uploaded: names.length };
}

async function main(argv: string[]): Promise<number> {
  const [cmd, arg] = argv;
  if (cmd === "probe" && arg) {
    const r = await probe(arg);
    process.stdout.write(`${RESULT_MARK}${JSON.stringify(r)}\n`);
    return r.ok ? 0 : 1;
  }
  if (cmd === "run") {
    const r = await run(JSON.parse(readFileSync(0, "utf8")) as RemoteRunRequest);
    process.stdout.write(`${RESULT_MARK}${JSON.stringify(r)}\n`);
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
