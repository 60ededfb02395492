/**
 * The driver benchmark's server when nginx is installed (Debian's
 * `nginx-light`): one nginx process on 127.0.0.1 answering every request with
 * the no-op server's actor-shaped reply. A benchmark of load generators needs a
 * server faster than all of them, or it measures the server: against Node's
 * http server wrk ran no faster than the Node clients at c128 on a 2-core
 * machine, against nginx it ran four times faster.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnManaged, type Managed } from "../../host/processes";
import { waitUntil } from "../../host/waitFor";
import { NOOP_ACTOR, NOOP_REPLY } from "./noopServer";

/** Where nginx is looked for: the PATH, then Debian's place for it (not on a non-root user's PATH). */
const NGINX_BINARIES = ["nginx", "/usr/sbin/nginx"];

/** The nginx binary and its version, or null when it is not installed. */
export function findNginx(): { binary: string; version: string } | null {
  for (const binary of NGINX_BINARIES) {
    const r = spawnSync(binary, ["-v"], { encoding: "utf8" });
    if (!r.error) return { binary, version: /nginx\/(\S+)/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? "unknown" };
  }
  return null;
}

/**
 * Pure: the configuration of one foreground nginx process rooted at `dir`,
 * listening on 127.0.0.1:`port` only. Connections are never closed by request
 * count (nginx's default closes one after 1,000 requests, which would make
 * every client reconnect mid-stage) and stay open 120 s idle; no access log.
 */
export function nginxConfig(port: number, dir: string, reply = NOOP_REPLY): string {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`nginx port must be 1 to 65535, not ${port}`);
  if (/['\\$\r\n]/.test(reply))
    throw new Error("the nginx reply must not contain a quote, backslash, $ or line break (nginx would read them)");
  if (/[\s;'"{}]/.test(dir)) throw new Error(`nginx directory ${JSON.stringify(dir)} has a character nginx's configuration would read`);
  return `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000000;
  keepalive_timeout 120s;
  server {
    listen 127.0.0.1:${port};
    location / {
      default_type application/json;
      add_header x-rivet-actor ${NOOP_ACTOR};
      return 200 '${reply}';
    }
  }
}
`;
}

/** Starts `binary` (from findNginx) with that configuration under `dir` and resolves once it answers with the reply. */
export async function startNginx(binary: string, port: number, dir: string): Promise<Managed> {
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, "nginx.conf");
  writeFileSync(conf, nginxConfig(port, dir));
  const log = join(dir, "nginx.out");
  // -e: the error log from the start, before the configuration is read (else nginx opens /var/log/nginx first).
  const proc = spawnManaged({
    name: "noop-nginx",
    command: binary,
    args: ["-p", dir, "-c", conf, "-e", join(dir, "error.log")],
    env: process.env,
    logFile: log,
  });
  await waitUntil("answering", proc, join(dir, "error.log"), 10_000, async () => {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" });
      return r.status === 200 && (await r.text()) === NOOP_REPLY;
    } catch {
      return false;
    }
  });
  return proc;
}
