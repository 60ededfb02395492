import { describe, expect, it } from "vitest";
import { actionPath, toCallResult } from "./gateway";

// A reply's head as the driver's client gives it: the status line, then the header lines.
const head = (pairs: Record<string, string>) => ["HTTP/1.1 200 OK", ...Object.entries(pairs).map(([k, v]) => `${k}: ${v}`)].join("\r\n");

describe("toCallResult", () => {
  it("takes the actor's reply and its id from a 200, the id's header found whatever its case", () => {
    const r = toCallResult({
      ok: true,
      ms: 4.2,
      status: 200,
      body: JSON.stringify({ output: { cold: true, actorMs: 0.3, sqlMs: null, value: 7 } }),
      head: head({ "Content-Type": "application/json", "X-Rivet-Actor": "act-9", "x-rivet-actor-generation": "3" }),
    });
    expect(r).toEqual({ ok: true, ms: 4.2, actorId: "act-9", reply: { cold: true, actorMs: 0.3, sqlMs: null, value: 7 } });
  });
  it("a reply without the actor's id header has an empty id", () => {
    const r = toCallResult({
      ok: true,
      ms: 1,
      status: 200,
      body: '{"output":{"cold":false,"actorMs":0,"sqlMs":null,"value":null}}',
      head: head({ "content-type": "application/json" }),
    });
    expect(r.ok && r.actorId).toBe("");
  });
  it("any other status, a body that is not JSON, or a reply without the cold flag is a failure that quotes the body", () => {
    expect(toCallResult({ ok: true, ms: 15000, status: 504, body: '{"code":"route_resolve_query_timeout"}', head: "" })).toEqual({
      ok: false,
      ms: 15000,
      error: 'HTTP 504: {"code":"route_resolve_query_timeout"}',
    });
    expect(toCallResult({ ok: true, ms: 2, status: 200, body: "<html>", head: "" })).toEqual({
      ok: false,
      ms: 2,
      error: "unexpected reply: <html>",
    });
    expect(toCallResult({ ok: true, ms: 2, status: 200, body: '{"output":{"value":1}}', head: "" })).toEqual({
      ok: false,
      ms: 2,
      error: 'unexpected reply: {"output":{"value":1}}',
    });
  });
  it("a request that failed stays the same failure", () => {
    expect(toCallResult({ ok: false, ms: 30000, error: "timeout after 30000 ms: no complete reply within 30000 ms" })).toEqual({
      ok: false,
      ms: 30000,
      error: "timeout after 30000 ms: no complete reply within 30000 ms",
    });
  });
});

describe("actionPath", () => {
  it("encodes an id, actor or key as encodeURIComponent does, and leaves one that needs nothing as it is", () => {
    for (const id of ["noop", "a1B2-c_3.d~", "a b/c?d&e", "é", "x'y(z)*!", "%41", ""]) {
      expect(actionPath({ kind: "id", actorId: id }, "ping")).toBe(`/gateway/${encodeURIComponent(id)}/action/ping`);
    }
    expect(actionPath({ kind: "key", actor: "st ore", key: "k/1" }, "write")).toBe(
      "/gateway/st%20ore/action/write?rvt-namespace=default&rvt-method=getOrCreate&rvt-runner=default&rvt-key=k%2F1",
    );
  });
});
