/** The collector over real HTTP/2 on the loopback, as an exporter speaks to it. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startOtlpCollector } from "./otlpCollector";

const dir = mkdtempSync(join(tmpdir(), "otlp-collector-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One gRPC call: the trailers' status, as an exporter reads it. */
function call(endpoint: string, path: string, body: Buffer): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const session = connect(endpoint);
    session.on("error", reject);
    const req = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" });
    req.on("trailers", (t) => {
      resolve(t["grpc-status"] as string | undefined);
      session.close();
    });
    req.on("error", reject);
    req.resume();
    req.end(body);
  });
}

const EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
const frame = (msg: Buffer, flag = 0) => {
  const h = Buffer.alloc(5);
  h[0] = flag;
  h.writeUInt32BE(msg.length, 1);
  return Buffer.concat([h, msg]);
};

describe("the OTLP collector", () => {
  it("keeps each trace export's frames as sent, refuses a compressed one and any other call, on 127.0.0.1 only", async () => {
    const file = join(dir, "spans.grpc");
    const c = await startOtlpCollector(file);
    expect(c.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const a = frame(Buffer.from([0x0a, 0x00]));
    expect(await call(c.endpoint, EXPORT, a)).toBe("0");
    expect(await call(c.endpoint, EXPORT, frame(Buffer.from([1, 2, 3]), 1))).toBe("3");
    expect(await call(c.endpoint, "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", a)).toBe("12");
    const b = frame(Buffer.from([0x0a, 0x02, 0x0a, 0x00]));
    expect(await call(c.endpoint, EXPORT, b)).toBe("0");
    await c.stop();
    expect(readFileSync(file)).toEqual(Buffer.concat([a, b]));
    expect(c.counts()).toEqual({ exports: 2, refused: 1, bytes: a.length + b.length });
  });
});
