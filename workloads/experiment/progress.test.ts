import { describe, expect, it } from "vitest";
import { createProgress, progressBar, progressLine, waitWithProgress } from "./progress";

/** A non-terminal stream that keeps what it is given, with the time each write came. */
function pipe() {
  const lines: Array<{ at: number; text: string }> = [];
  const out = { isTTY: false, write: (s: string) => lines.push({ at: Date.now(), text: s }) } as unknown as NodeJS.WriteStream;
  return { out, lines };
}

describe("progress lines", () => {
  it("say done / total, the rate and the time left", () => {
    expect(progressLine("rivet wake.ping: preparing", 120, 1200, "actors", 0, 4000)).toBe(
      "rivet wake.ping: preparing: 120/1200 actors, 30.0/s, about 36 s left",
    );
    expect(progressLine("cloudflare burst.c8", 500, 500, "samples", 3, 10_000)).toBe(
      "cloudflare burst.c8: 500/500 samples, 50.0/s (3 errors)",
    );
    expect(progressLine("x", 10, 100_000, "samples", 0, 1000)).toBe("x: 10/100000 samples, 10.0/s, about 2.8 h left");
    expect(progressBar("x", 50, 100, "s idle", 0, 50_000)).toBe("[############............] x: 50/100 s idle, 1.0/s, about 50 s left");
  });

  it("on a pipe, every running step reports on a timer even when nothing completes, and stops when it ends", async () => {
    const { out, lines } = pipe();
    const p = createProgress(out, false, 40);
    const a = p.start("rivet wake.ping: preparing", 10, "actors");
    const b = p.start("cloudflare wake: idle", 5, "s idle");
    a.tick(3);
    await new Promise((r) => setTimeout(r, 150));
    a.finish("rivet wake.ping: 10 of 10 actors prepared");
    const afterA = lines.length;
    await new Promise((r) => setTimeout(r, 100));
    b.end(5, 0, 5000);
    const texts = lines.map((l) => l.text);
    expect(texts[0]).toBe("rivet wake.ping: preparing: 10 actors\n");
    expect(texts.filter((t) => t.startsWith("rivet wake.ping: preparing: 3/10 actors")).length).toBeGreaterThanOrEqual(2);
    expect(texts.filter((t) => t.startsWith("cloudflare wake: idle: 0/5 s idle")).length).toBeGreaterThanOrEqual(4);
    // After its end a step reports no more; the other goes on until its own end.
    expect(texts.slice(afterA).some((t) => t.startsWith("rivet wake.ping: preparing:"))).toBe(false);
    expect(texts.at(-1)).toBe("cloudflare wake: idle: 5 samples, 0 errors, 5.0 s\n");
    const n = lines.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(lines.length).toBe(n);
  });

  it("an idle wait is a step of its own", async () => {
    const { out, lines } = pipe();
    await waitWithProgress(
      createProgress(out, false, 30),
      "rivet wake: 3 actors asleep, idle",
      120,
      (ms) => new Promise((r) => setTimeout(r, ms)),
    );
    expect(lines[0].text).toBe("rivet wake: 3 actors asleep, idle: 1 s idle\n");
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.at(-1)!.text).toMatch(/^rivet wake: 3 actors asleep, idle: 0 s, done\n$/);
  });

  it("quiet prints nothing", async () => {
    const { out, lines } = pipe();
    const p = createProgress(out, true, 10);
    p.start("x", 1).tick(1);
    await new Promise((r) => setTimeout(r, 40));
    p.note("n");
    expect(lines).toEqual([]);
  });
});
