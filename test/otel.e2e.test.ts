/**
 * The Engine's own spans beside the wire, for real: a collector on the
 * loopback, the npm Engine exporting to it (--otel's settings), a capture of
 * the driver's port while calls run, then each call found in both: its hops
 * on the wire and its trace by the ray id its response carried.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_ENGINE_SETTINGS } from "../cluster/engineConfig";
import { spanIndex, spansOfCalls } from "../analysis/stats/engineSpans";
import { cutStage } from "../analysis/stats/hops";
import { exportSpans, grpcMessages } from "../analysis/stats/otlp";
import { pcapBaseSec, readPcap } from "../analysis/stats/pcap";
import { startCapture } from "../workloads/host/capture";
import { startOtlpCollector } from "../workloads/host/otlpCollector";
import { loopbackPort } from "../workloads/run/stageCapture";
import { GatewayClient } from "../workloads/sides/rivet/gateway";
import { startLocalRivet } from "../workloads/sides/rivet/localRivet";
import { RIVET_PROFILE } from "../workloads/sides/rivet/profile";

const dir = mkdtempSync(join(tmpdir(), "otel-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the Engine's trace spans beside the wire's segments", () => {
  it("every warm call's trace is found by its ray id, its Engine spans inside the call's time on the wire", async () => {
    const collector = await startOtlpCollector(join(dir, "engine.grpc"));
    const rivet = await startLocalRivet({
      workDir: join(dir, "engine"),
      settings: { ...DEFAULT_ENGINE_SETTINGS, otelGrpcEndpoint: collector.endpoint },
    });
    const client = new GatewayClient(rivet.gatewayUrl, 10_000, 1);
    const port = loopbackPort(rivet.gatewayUrl)!;
    let samples: Array<{ ok: boolean; ms: number; actorMs: number | null }> = [];
    try {
      const first = await client.call({ kind: "key", actor: "plain", key: "otel" }, "ping");
      if (!first.ok) throw new Error(first.error);
      const capture = await startCapture(join(dir, "calls.pcap"), port);
      for (let i = 0; i < 8; i++) {
        const r = await client.call({ kind: "id", actorId: first.actorId }, "ping");
        samples.push(r.ok ? { ok: true, ms: r.ms, actorMs: r.reply.actorMs } : { ok: false, ms: r.ms, actorMs: null });
      }
      await capture.stop();
      // The Engine's batch exporter sends every few seconds; wait for the calls' spans, at most 20 s.
      const deadline = Date.now() + 20_000;
      while (collector.counts().exports < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    } finally {
      await client.close();
      await rivet.stop();
      await collector.stop();
    }
    expect(collector.counts().refused).toBe(0);
    const pcap = readFileSync(join(dir, "calls.pcap"));
    const cut = cutStage(readPcap(pcap), port, samples, RIVET_PROFILE.hops!, true);
    if (!cut.ok) throw new Error(cut.why);
    expect(cut.calls).toHaveLength(8);
    const base = BigInt(pcapBaseSec(pcap)!) * 1_000_000_000n;
    const ns = (t: number) => base + BigInt(Math.round(t * 1e6));
    const index = spanIndex(grpcMessages(readFileSync(join(dir, "engine.grpc"))).flatMap(exportSpans));
    const spans = spansOfCalls(
      [{ index, calls: cut.calls.map((c) => ({ id: c.ray!, fromNs: ns(c.wire!.from), toNs: ns(c.wire!.to) })) }],
      50,
    );
    expect(spans.traced).toBe(8);
    const names = spans.rows.map((r) => r.name);
    expect(names).toContain("guard_request");
    // The request's own span lies within the call on the wire: it cannot hold more of it than the wire's span.
    const span = Math.max(...cut.calls.map((c) => c.wire!.to - c.wire!.from));
    expect(spans.rows.find((r) => r.name === "guard_request")!.msPerCall).toBeGreaterThan(0);
    expect(spans.rows.find((r) => r.name === "guard_request")!.msPerCall).toBeLessThanOrEqual(span);
    samples = [];
  });
});
