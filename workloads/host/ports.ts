import { createServer } from "node:net";

/** Resolves when `port` on `host` can be bound, rejects with a clear message when it is taken. */
export function assertPortFree(port: number, host = "127.0.0.1", what = "port"): Promise<void> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", (err: NodeJS.ErrnoException) => {
      reject(
        new Error(
          err.code === "EADDRINUSE"
            ? `${what} ${host}:${port} is already in use: stop what listens there or choose another port`
            : `${what} ${host}:${port} cannot be bound: ${err.message}`,
        ),
      );
    });
    srv.listen(port, host, () => srv.close(() => resolve()));
  });
}

/** A port the kernel reports free on `host` right now. */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** `count` distinct free ports. */
export async function freePorts(count: number, host = "127.0.0.1"): Promise<number[]> {
  const out = new Set<number>();
  while (out.size < count) out.add(await freePort(host));
  return [...out];
}
