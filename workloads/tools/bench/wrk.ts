import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** wrk's summary of one run, in wrk's own units turned into ms and completions. */
export interface WrkResult {
  requests: number;
  durationMs: number;
  errors: number;
  p50: number;
  p99: number;
}

/** wrk's `done` hook: one JSON line with the figures we compare (latency in µs, duration in µs). */
const WRK_SCRIPT = `
wrk.method = "POST"
wrk.body = '{"args":[]}'
wrk.headers["content-type"] = "application/json"
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_RESULT {"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;

/** wrk's version, or null when it is not installed (`apt-get install wrk`). */
export function wrkVersion(): string | null {
  try {
    const r = spawnSync("wrk", ["--version"], { encoding: "utf8" });
    if (r.error) return null;
    return /wrk\s+(\S+)/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? "unknown";
  } catch {
    return null;
  }
}

/** Parses the line the script prints. */
export function parseWrkOutput(out: string): WrkResult {
  const line = out.split("\n").find((l) => l.startsWith("WRK_RESULT "));
  if (!line) throw new Error(`wrk printed no result line:\n${out.slice(0, 500)}`);
  const j = JSON.parse(line.slice("WRK_RESULT ".length)) as {
    requests: number;
    duration_us: number;
    errors: number;
    p50_us: number;
    p99_us: number;
  };
  return { requests: j.requests, durationMs: j.duration_us / 1000, errors: j.errors, p50: j.p50_us / 1000, p99: j.p99_us / 1000 };
}

/** One wrk run: one thread (the Node driver has one too), `connections` connections, for `seconds`. */
export function runWrk(url: string, connections: number, seconds: number, dir: string): WrkResult {
  const script = join(dir, "wrk-bench.lua");
  writeFileSync(script, WRK_SCRIPT);
  const out = execFileSync("wrk", ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", script, url], {
    encoding: "utf8",
  });
  return parseWrkOutput(out);
}
