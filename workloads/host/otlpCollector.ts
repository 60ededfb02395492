/**
 * A small OpenTelemetry collector on the loopback: it takes OTLP trace exports
 * over gRPC (HTTP/2 without TLS, as a runtime's exporter sends them to a local
 * endpoint) and appends each request's gRPC frames, unread, to one file; the
 * report reads the spans from it (analysis/stats/otlp.ts). Nothing else is
 * served, and nothing listens beyond 127.0.0.1.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { grpcMessages, OtlpError } from "../../analysis/stats/otlp";

const EXPORT_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
/** The most one export may carry: far above the Engine's batches (a few hundred kB). */
const MAX_EXPORT_BYTES = 32 * 1024 * 1024;

export interface OtlpCollector {
  /** The endpoint an exporter is pointed at (http://127.0.0.1:<port>). */
  endpoint: string;
  /** Exports taken and refused so far. */
  counts(): { exports: number; refused: number; bytes: number };
  stop(): Promise<void>;
}

/** Starts a collector that appends every trace export it takes to `file` (created empty). */
export async function startOtlpCollector(file: string): Promise<OtlpCollector> {
  writeFileSync(file, "");
  const c = { exports: 0, refused: 0, bytes: 0 };
  const server: Http2Server = createServer();
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const answer = (status: number, message?: string) => {
      if (stream.destroyed) return;
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () =>
        stream.sendTrailers({ "grpc-status": String(status), ...(message ? { "grpc-message": message } : {}) }),
      );
      // An empty ExportTraceServiceResponse: a gRPC frame of no bytes.
      stream.end(status === 0 ? Buffer.alloc(5) : undefined);
    };
    stream.on("data", (d: Buffer) => {
      size += d.length;
      if (size <= MAX_EXPORT_BYTES) chunks.push(d);
    });
    stream.on("end", () => {
      const body = Buffer.concat(chunks);
      if (headers[":path"] !== EXPORT_PATH) return answer(12, "only trace exports are taken");
      if (size > MAX_EXPORT_BYTES) {
        c.refused++;
        return answer(8, `an export over ${MAX_EXPORT_BYTES} bytes`);
      }
      try {
        grpcMessages(body);
      } catch (err) {
        if (!(err instanceof OtlpError)) throw err;
        c.refused++;
        return answer(3, err.message);
      }
      appendFileSync(file, body);
      c.exports++;
      c.bytes += body.length;
      answer(0);
    });
    stream.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ ...c }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open exporter sessions would hold close() open: they end with the runtime, which is stopped first.
        setTimeout(resolve, 2000).unref();
      }),
  };
}
