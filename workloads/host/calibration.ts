import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { createServer, connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Calibration } from "../../analysis/stats/calibration";

/** Rounds of each measure: enough to see a round's noise, few enough to cost the run about two seconds. */
const CALIBRATION_ROUNDS = 9;
const CPU_ITERATIONS = 20_000_000;
const FSYNCS_PER_ROUND = 20;
const ROUND_TRIPS_PER_ROUND = 300;

const msSince = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** One round of the fixed CPU loop: integer arithmetic the optimiser cannot drop (its result is returned). */
function cpuRound(): { ms: number; sink: number } {
  const t0 = process.hrtime.bigint();
  let x = 0x9e3779b9;
  for (let i = 0; i < CPU_ITERATIONS; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  return { ms: msSince(t0), sink: x };
}

/** One round of 4 KB writes, each followed by its fsync, in `dir`: the mean ms of one write and fsync. */
function fsyncRound(dir: string): number {
  const path = join(dir, "calibration.bin");
  const block = Buffer.alloc(4096, 7);
  const fd = openSync(path, "w");
  try {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < FSYNCS_PER_ROUND; i++) {
      writeSync(fd, block, 0, block.length, i * block.length);
      fsyncSync(fd);
    }
    return msSince(t0) / FSYNCS_PER_ROUND;
  } finally {
    closeSync(fd);
  }
}

/** Rounds of 64-byte round trips to an echo server on 127.0.0.1: each round's median ms. */
async function loopbackRounds(rounds: number): Promise<number[]> {
  const server = createServer((s) => s.on("data", (d) => s.write(d)));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  const sock = connect({ port, host: "127.0.0.1", noDelay: true });
  try {
    await new Promise<void>((ok, fail) => sock.once("connect", ok).once("error", fail));
    const payload = Buffer.alloc(64, 1);
    const out: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const times: number[] = [];
      for (let i = 0; i < ROUND_TRIPS_PER_ROUND; i++) {
        const t0 = process.hrtime.bigint();
        let got = 0;
        await new Promise<void>((ok) => {
          const onData = (d: Buffer) => {
            got += d.length;
            if (got >= payload.length) {
              sock.off("data", onData);
              ok();
            }
          };
          sock.on("data", onData);
          sock.write(payload);
        });
        times.push(msSince(t0));
      }
      times.sort((a, b) => a - b);
      out.push(times[Math.ceil(times.length / 2) - 1]);
    }
    return out;
  } finally {
    sock.destroy();
    await new Promise<void>((ok) => server.close(() => ok()));
  }
}

/**
 * The machine's calibration, taken before a run measures anything: the
 * fsync in a temp folder like the one the runtimes keep their data in, the
 * round trips over the loopback the run calls the runtimes on.
 */
export async function calibrate(rounds = CALIBRATION_ROUNDS): Promise<Calibration> {
  const dir = mkdtempSync(join(tmpdir(), "actor-bench-calibration-"));
  try {
    const cpu: number[] = [];
    const fsync: number[] = [];
    for (let r = 0; r < rounds; r++) {
      cpu.push(cpuRound().ms);
      fsync.push(fsyncRound(dir));
    }
    return { rounds: { cpu, fsync, loopback: await loopbackRounds(rounds) } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
