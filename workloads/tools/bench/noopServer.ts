/**
 * The no-op HTTP server the driver benchmark loads when nginx is not installed
 * (or with --node-server): Node's http server, one process, 127.0.0.1 only.
 * Every request gets the same small reply in the shape of an actor's (so the
 * driver's own parsing runs as in a real stage); nginx sends the same.
 *   node dist/workloads/tools/bench/noopServer.js <port>
 */
import { createServer } from "node:http";

export const NOOP_REPLY = JSON.stringify({ output: { cold: false, actorMs: 0, sqlMs: null, value: null } });
/** The actor id every reply names. */
export const NOOP_ACTOR = "noop";
const HEADERS = { "content-type": "application/json", "content-length": Buffer.byteLength(NOOP_REPLY), "x-rivet-actor": NOOP_ACTOR };

if (require.main === module) {
  const port = Number(process.argv[2]);
  if (!Number.isInteger(port) || port <= 0) throw new Error("usage: noopServer.js <port>");
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, HEADERS);
      res.end(NOOP_REPLY);
    });
  });
  server.keepAliveTimeout = 120_000;
  server.listen(port, "127.0.0.1", () => console.log(`noop server listening on 127.0.0.1:${port}`));
}
