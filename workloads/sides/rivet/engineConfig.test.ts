import { describe, expect, it } from "vitest";
import {
  DEDICATED_ENGINE_SETTINGS,
  DEFAULT_ENGINE_SETTINGS,
  ENGINE_CAPS,
  engineEnv,
  NO_LOAD_SHEDDING_CURVE,
  renderEngineConfig,
} from "../../../cluster/engineConfig";
import { loopbackQuickack } from "../../host/loopback";
import { actionPath } from "./gateway";

describe("renderEngineConfig", () => {
  it("binds every port to loopback, keeps its own data dir, telemetry off, guard nodelay, the per-client caps raised", () => {
    const c = renderEngineConfig("/tmp/x/data", { gateway: 1, apiPeer: 2, metrics: 3 }, DEFAULT_ENGINE_SETTINGS);
    expect(c).toEqual({
      file_system: { path: "/tmp/x/data" },
      telemetry: { enabled: false },
      guard: { host: "127.0.0.1", port: 1, tcp_nodelay: true, rate_limit: { requests: 1e9, period_ms: 60_000 }, max_in_flight: 1e6 },
      pegboard: { actor_create_rate_limit_requests: 1e9, actor_create_rate_limit_drip_rate_ms: 1 },
      // One machine shared with the driver, the app and workerd: the Engine's load shedding off.
      runtime: {
        worker_load_shedding_curve: [
          [1000, 1000],
          [1001, 999],
        ],
      },
      api_peer: { host: "127.0.0.1", port: 2 },
      metrics: { host: "127.0.0.1", port: 3 },
    });
  });
});

describe("load shedding", () => {
  it("is off for a local Engine and the Engine's own default on a VM of its own", () => {
    const ports = { gateway: 1, apiPeer: 2, metrics: 3 };
    expect(renderEngineConfig("/d", ports, DEFAULT_ENGINE_SETTINGS)).toHaveProperty("runtime.worker_load_shedding_curve");
    expect(renderEngineConfig("/d", ports, DEDICATED_ENGINE_SETTINGS)).not.toHaveProperty("runtime");
    // The curve pulls every workflow at any CPU use: 1000 permille from 0 to 100% (and 99.9% past it).
    const [[ax, ay], [bx, by]] = NO_LOAD_SHEDDING_CURVE;
    expect([ax, ay, bx > ax, by < ay]).toEqual([1000, 1000, true, true]);
  });
});

describe("ENGINE_CAPS", () => {
  it("are far above anything a preset sends: the full preset's largest burst is 500 at c128, its longest stage 5,000 requests", () => {
    expect(ENGINE_CAPS.guard.max_in_flight).toBeGreaterThanOrEqual(100 * 128);
    expect((ENGINE_CAPS.guard.rate_limit.requests * 60_000) / ENGINE_CAPS.guard.rate_limit.period_ms).toBeGreaterThanOrEqual(1e8);
    expect(ENGINE_CAPS.pegboard.actor_create_rate_limit_drip_rate_ms).toBe(1);
  });
});

describe("engineEnv", () => {
  it("removes RUST_BACKTRACE and RUST_LOG unless asked to keep them", () => {
    const env = engineEnv({ RUST_BACKTRACE: "1", RUST_LOG: "debug", PATH: "/bin" }, DEFAULT_ENGINE_SETTINGS);
    expect(env).toEqual({ PATH: "/bin", RUST_LIB_BACKTRACE: "0" });
    const kept = engineEnv({ RUST_BACKTRACE: "1" }, { tcpNodelay: true, keepRustBacktrace: true, rustLog: "warn", loadShedding: false });
    expect(kept).toEqual({ RUST_BACKTRACE: "1", RUST_LOG: "warn" });
  });
});

describe("loopbackQuickack", () => {
  it("finds quickack on the 127.0.0.1 local route only", () => {
    expect(loopbackQuickack("local 127.0.0.1 dev lo proto kernel scope host src 127.0.0.1 quickack 1 \n")).toBe(true);
    expect(loopbackQuickack("local 127.0.0.1 dev lo proto kernel scope host src 127.0.0.1 \nlocal 10.0.0.1 dev eth0 quickack 1")).toBe(
      false,
    );
  });
});

describe("actionPath", () => {
  it("getOrCreate by key and call by id", () => {
    expect(actionPath({ kind: "key", actor: "plain", key: "a b" }, "ping")).toBe(
      "/gateway/plain/action/ping?rvt-namespace=default&rvt-method=getOrCreate&rvt-runner=default&rvt-key=a%20b",
    );
    expect(actionPath({ kind: "id", actorId: "abc" }, "read")).toBe("/gateway/abc/action/read");
  });
});

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseProcStatCpuMs } from "../../host/cpuTime";
describe("parseProcStatCpuMs", () => {
  it("reads utime + stime after a command name with spaces", () => {
    const line = "123 (rivet engine) S 1 123 123 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 1000 0 0";
    expect(parseProcStatCpuMs(line)).toBe(3000);
  });
  it("reads cutime + cstime, the CPU of children waited for, when asked", () => {
    const line = "123 (rivet engine) S 1 123 123 0 -1 4194560 100 0 0 0 250 50 70 30 20 0 8 0 1000 0 0";
    expect(parseProcStatCpuMs(line, 100, "children")).toBe(1000);
    expect(parseProcStatCpuMs(line, 100, "self")).toBe(3000);
  });
  it("counts a finished child's CPU in this process's children fields", () => {
    const read = () => parseProcStatCpuMs(readFileSync("/proc/self/stat", "utf8"), 100, "children");
    const before = read();
    // The child spins until it has used 400 ms of CPU (not of wall time, which a busy machine would not fill with its CPU).
    spawnSync(process.execPath, [
      "-e",
      "const u = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; }; while (u() < 400);",
    ]);
    expect(read() - before).toBeGreaterThanOrEqual(300);
  });
});

import { engineBinaryPath } from "./localRivet";
describe("engineBinaryPath", () => {
  it("finds the binary shipped in the npm package", () => {
    expect(engineBinaryPath()).toMatch(/rivet-engine(\.exe)?$/);
  });
  it("names the problem and the fix when the binary is missing", () => {
    const before = process.env.RIVET_ENGINE_BINARY;
    process.env.RIVET_ENGINE_BINARY = "/nonexistent/rivet-engine";
    try {
      expect(() => engineBinaryPath()).toThrow(/No Rivet Engine binary for .*does not exist[\s\S]*npm ci --include=optional/);
    } finally {
      if (before === undefined) delete process.env.RIVET_ENGINE_BINARY;
      else process.env.RIVET_ENGINE_BINARY = before;
    }
  });
});
