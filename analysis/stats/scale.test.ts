import { describe, expect, it } from "vitest";
import { LEGACY_BOOK } from "../contract/sideProfile";
import { scaleRows } from "./scale";
import { scaleChartData } from "../report/chartData";
import { repSpread } from "./repetitions";

const row = (side: string, metric: string, p50: number) => ({
  side,
  metric,
  n: 10,
  errors: 0,
  notCold: 0,
  restarts: 0,
  p50,
  p90: p50,
  p99: p50 * 2,
  mean: p50,
  repetitions: repSpread([[p50]], 0.000001),
});
const stage = (existing: unknown) => ({ notes: { startState: { atStage: { existing, awake: 0 } } } });

describe("scaleRows", () => {
  it("one row per side, level and op, in side, level and op order, with the existing count from the stage's own record", () => {
    const m = {
      stages: {
        "rivet.scale.wake.e1000": stage(1234),
        "rivet.scale.create.e1000": stage(1244),
        "rivet.scale.wake.e0": stage(20),
        "floor.scale.wake.e0": stage("many"),
      },
    } as never;
    const rows = scaleRows(m, {
      rows: [
        row("floor", "scale.wake.e0", 1),
        row("rivet", "scale.create.e1000", 80),
        row("rivet", "scale.wake.e1000", 40),
        row("rivet", "scale.wake.e0", 30),
        row("rivet", "warm.ping", 5),
      ],
      throughput: [
        { side: "rivet", metric: "scale.burst.e0", concurrency: 32, perSecond: 12, errors: 0, attempts: 10, method: "measured" },
        { side: "cloudflare", metric: "scale.burst.e0", concurrency: 32, perSecond: 999, errors: 0, attempts: 10, method: "littles-law" },
      ],
      sides: LEGACY_BOOK,
    });
    expect(rows.map((r) => `${r.side} ${r.level} ${r.op} ${r.existing}`)).toEqual([
      "rivet 0 wake 20",
      "rivet 1000 wake 1234",
      "rivet 1000 create 1244",
      "floor 0 wake null",
    ]);
    // A record without a number is shown as unknown, and the chart leaves it out.
    expect(scaleChartData(rows, LEGACY_BOOK).map((p) => `${p.series} ${p.percentile} ${p.existing} ${p.ms}`)).toEqual([
      "Rivet wake p50 20 30",
      "Rivet wake p99 20 60",
      "Rivet wake p50 1234 40",
      "Rivet wake p99 1234 80",
      "Rivet create p50 1244 80",
      "Rivet create p99 1244 160",
    ]);
  });
  it("a stage its deadline ended carries the outcome: the end of that side's curve", () => {
    const ended = {
      repetitions: [
        {
          rep: 0,
          notes: {
            startState: { atStage: { existing: 3600, awake: 0 } },
            deadline: { outcome: "deadline: 62 of 200 calls done in 600 s" },
          },
        },
        { rep: 1, notes: {} },
      ],
    };
    const rows = scaleRows({ stages: { "rivet.scale.wake.e1000": ended } } as never, {
      rows: [row("rivet", "scale.wake.e1000", 900)],
      throughput: [],
      sides: LEGACY_BOOK,
    });
    expect(rows[0]).toMatchObject({ existing: 3600, ended: ["deadline: 62 of 200 calls done in 600 s"] });
  });
});
