/** The packet capture for real: tcpdump on the loopback while the driver's own client calls a real server. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readPcap } from "../../analysis/stats/pcap";
import { exchangesOf } from "../../analysis/stats/wire";
import { Http1Client } from "../driver/http1/client";
import { timedRequest } from "../driver/timedRequest";
import { loopbackPort } from "../run/stageCapture";
import { captureAvailable, captureCounts, startCapture, tcpdumpArgv } from "./capture";

const dir = mkdtempSync(join(tmpdir(), "capture-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a capture of the loopback", () => {
  it("holds every one of the driver's calls, request and whole response, in order, with the server's own bytes", async () => {
    // CI installs tcpdump and runs as root (.ci/run): a machine where it cannot capture fails here, saying why.
    expect(captureAvailable()).toEqual({ ok: true });
    let n = 0;
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end(JSON.stringify({ call: ++n })));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const file = join(dir, "calls.pcap");
    const capture = await startCapture(file, port);
    const client = new Http1Client(`http://127.0.0.1:${port}`, 4);
    const ms: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await timedRequest(client, { method: "POST", path: "/actor/ping", headers: {}, body: "{}" }, 5000);
      if (!r.ok) throw new Error(r.error);
      ms.push(r.ms);
    }
    const counts = await capture.stop();
    await client.close();
    server.close();
    expect(counts.droppedByKernel).toBe(0);
    const xs = exchangesOf(readPcap(readFileSync(file)), port, "POST /actor/");
    expect(xs.map((x) => [x.status, x.complete, x.body.toString()])).toEqual(
      [1, 2, 3, 4, 5].map((call) => [200, true, JSON.stringify({ call })]),
    );
    for (let i = 0; i < xs.length; i++) {
      const span = xs[i].respLast! - xs[i].reqStart;
      expect(span).toBeGreaterThan(0);
      // The wire's span of a call is inside the driver's round trip (two clocks, read microseconds apart).
      expect(span).toBeLessThanOrEqual(ms[i] + 0.05);
      if (i > 0) expect(xs[i].reqStart).toBeGreaterThan(xs[i - 1].respLast!);
    }
  });

  it("reads tcpdump's closing counts, and finds the driver's port only on the loopback", () => {
    expect(
      captureCounts("tcpdump: listening on lo\n12 packets captured\n30 packets received by filter\n3 packets dropped by kernel\n"),
    ).toEqual({
      captured: 12,
      droppedByKernel: 3,
    });
    expect(captureCounts("")).toEqual({ captured: null, droppedByKernel: null });
    expect(loopbackPort("http://127.0.0.1:6420")).toBe(6420);
    expect(loopbackPort("http://localhost")).toBe(80);
    expect(loopbackPort("https://bench.example.workers.dev")).toBeNull();
    expect(loopbackPort(undefined)).toBeNull();
    expect(tcpdumpArgv("/x.pcap", 6420, 0)).toEqual(expect.arrayContaining(["--immediate-mode", "-Z", "root", "-w", "/x.pcap"]));
    expect(tcpdumpArgv("/x.pcap", 6420, 0).slice(-3)).toEqual(["tcp", "port", "6420"]);
    expect(tcpdumpArgv("/x.pcap", 6420, 1000)).not.toContain("-Z");
  });
});
