import { createServer, type Server } from "node:http";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { blocksOf, collectAnalytics, DATASET, type AnalyticsSource, type Block } from "./analytics";
import { runAnalytics } from "./analyticsRun";
import { fixture, rawText } from "../../../test/fixtures";
import { verifyRunDir } from "../../../analysis/contract/verify";
import { generateReport } from "../../../analysis/report/report";
import { blobDigest } from "../../run/groupRun";
import { mergeRunParts } from "../../run/mergeRuns";
import { readAnalyticsLines, type AnalyticsLine } from "../../../analysis/stats/platformTimes";
import * as doAnalytics from "../../../components/providers/doAnalytics";

// A local HTTP server that answers with responses OF THE DOCUMENTED SHAPE
// (Cloudflare's GraphQL analytics and standard GraphQL introspection). It is
// not Cloudflare: it tests our queries, windows, waiting, units and error paths.
type Field = { name: string; description?: string; type?: string; filter?: string };
interface Schema {
  [typeName: string]: Field[];
}

const scalar = (name: string, description?: string): Field => ({ name, description });
const FILTER_TYPE = "AccountDurableObjectsInvocationsAdaptiveGroupsFilter_InputObject";
const documentedSchema = (): Schema => ({
  account: [
    { name: DATASET, type: "AccountDurableObjectsInvocationsAdaptiveGroups", filter: FILTER_TYPE },
    scalar("workersInvocationsAdaptive"),
  ],
  [FILTER_TYPE]: ["scriptName", "datetime_geq", "datetime_leq", "datetime_gt", "colo"].map((n) => scalar(n)),
  AccountDurableObjectsInvocationsAdaptiveGroups: [
    { name: "sum", type: "DOSum" },
    { name: "quantiles", type: "DOQuantiles" },
    { name: "dimensions", type: "DODimensions" },
  ],
  DOSum: [scalar("requests"), scalar("errors"), scalar("wallTime", "Sum of wall time, in microseconds")],
  DOQuantiles: ["P50", "P90", "P99"].map((p) => scalar(`wallTime${p}`, `Wall time ${p}, in microseconds`)),
  DODimensions: [scalar("datetimeMinute"), scalar("scriptName"), scalar("colo")],
});

/** One DO invocation as the server "has" it: when (whole second), where, and its wall time in µs. */
interface Invocation {
  at: string;
  colo: string;
  us: number;
  error?: boolean;
}
let server: Server | undefined;
let seen: Array<{ query: string; variables: Record<string, unknown> }> = [];

const rank = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)];

/** `visible(n)`: the invocations the n-th data query can see (analytics arrive late). */
async function serve(
  schema: Schema,
  visible: (n: number) => Invocation[],
  reply?: (body: { query: string }) => { status: number; body: unknown } | undefined,
): Promise<string> {
  seen = [];
  let dataQueries = 0;
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const body = JSON.parse(text) as { query: string; variables: Record<string, unknown> };
      seen.push(body);
      const send = (status: number, b: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(b));
      const custom = reply?.(body);
      if (custom) return send(custom.status, custom.body);
      if (body.query.includes("__type")) {
        const name = body.variables.name as string;
        const fields = schema[name];
        if (!fields) return send(200, { data: { __type: null } });
        if (name === FILTER_TYPE)
          return send(200, { data: { __type: { name, fields: null, inputFields: fields.map((f) => ({ name: f.name })) } } });
        const ref = (f: Field) =>
          f.type
            ? { kind: "OBJECT", name: null, ofType: { kind: "LIST", name: null, ofType: { kind: "OBJECT", name: f.type, ofType: null } } }
            : { kind: "SCALAR", name: "Float", ofType: null };
        return send(200, {
          data: {
            __type: {
              name,
              inputFields: null,
              fields: fields.map((f) => ({
                name: f.name,
                description: f.description ?? null,
                type: ref(f),
                args: f.filter
                  ? [
                      { name: "limit", type: { kind: "SCALAR", name: "Int", ofType: null } },
                      { name: "filter", type: { kind: "INPUT_OBJECT", name: f.filter, ofType: null } },
                    ]
                  : [],
              })),
            },
          },
        });
      }
      const v = body.variables as { from: string; to: string; script: string };
      const inWindow = visible(++dataQueries).filter((x) => x.at >= v.from && x.at <= v.to);
      const groups = [...new Set(inWindow.map((x) => x.colo))].map((colo) => {
        const xs = inWindow.filter((x) => x.colo === colo);
        const us = xs.map((x) => x.us);
        return {
          sum: { requests: xs.length, errors: xs.filter((x) => x.error).length, wallTime: us.reduce((a, b) => a + b, 0) },
          quantiles: { wallTimeP50: rank(us, 50), wallTimeP90: rank(us, 90), wallTimeP99: rank(us, 99) },
          dimensions: { colo },
        };
      });
      send(200, { data: { viewer: { accounts: [{ [DATASET]: groups }] } }, errors: null });
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server!.address() as { port: number }).port}/client/v4/graphql`;
}
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

const lines: AnalyticsLine[] = [];
const source = (endpoint: string): AnalyticsSource => {
  lines.length = 0;
  return {
    endpoint,
    apiToken: "test-token",
    accountId: "0123456789abcdef0123456789abcdef",
    scriptName: "actor-bench-eastus2",
    record: (l) => lines.push({ seq: lines.length, ...l }),
  };
};
const noWait = { waitMs: 0, pollMs: 1 };

const blocks: Block[] = [
  { key: "cloudflare.create.ping", from: "2026-12-03T10:00:00Z", to: "2026-12-03T10:00:03Z", calls: 3 },
  { key: "cloudflare.warm.ping", from: "2026-12-03T10:00:04Z", to: "2026-12-03T10:00:05Z", calls: 2 },
];
const invocations: Invocation[] = [
  { at: "2026-12-03T10:00:00Z", colo: "IAD", us: 12_000 },
  { at: "2026-12-03T10:00:01Z", colo: "IAD", us: 14_000 },
  { at: "2026-12-03T10:00:03Z", colo: "EWR", us: 30_000 },
  { at: "2026-12-03T10:00:04Z", colo: "IAD", us: 900 },
  { at: "2026-12-03T10:00:05Z", colo: "IAD", us: 1_100, error: true },
  { at: "2026-12-03T10:00:09Z", colo: "IAD", us: 5_000 },
];

describe("the DO analytics module (against a local server of the documented shape)", () => {
  it("checks the schema and filter, asks each block's window, groups by colo and converts µs to ms", async () => {
    const got = await collectAnalytics(source(await serve(documentedSchema(), () => invocations)), blocks, noWait);
    expect(got.map((b) => b.block)).toEqual(["cloudflare.create.ping", "cloudflare.warm.ping"]);
    expect(got[0].groups).toEqual([
      { colo: "IAD", requests: 2, errors: 0, meanMs: 13, p50Ms: 12, p90Ms: 14, p99Ms: 14 },
      { colo: "EWR", requests: 1, errors: 0, meanMs: 30, p50Ms: 30, p90Ms: 30, p99Ms: 30 },
    ]);
    expect(got[1].groups).toEqual([{ colo: "IAD", requests: 2, errors: 1, meanMs: 1, p50Ms: 0.9, p90Ms: 1.1, p99Ms: 1.1 }]);
    const data = seen.filter((s) => !s.query.includes("__type"));
    expect(data.map((d) => [d.variables.from, d.variables.to, d.variables.script])).toEqual([
      ["2026-12-03T10:00:00Z", "2026-12-03T10:00:03Z", "actor-bench-eastus2"],
      ["2026-12-03T10:00:04Z", "2026-12-03T10:00:05Z", "actor-bench-eastus2"],
    ]);
    expect(data[0].query).toContain("datetime_geq: $from, datetime_leq: $to");
    // Every response was recorded before it was parsed, exactly as it came.
    expect(lines.map((l) => l.label)).toEqual([
      "schema-account",
      "schema-filter",
      "schema-dataset",
      "schema-sum",
      "schema-quantiles",
      "schema-dimensions",
      "block",
      "block",
    ]);
    expect(JSON.parse(lines[6].body).data.viewer.accounts[0][DATASET]).toHaveLength(2);
    expect(lines[6]).toMatchObject({ block: "cloudflare.create.ping", calls: 3, status: 200 });
  });

  it("asks again for a block whose invocations have not all arrived, and only for it", async () => {
    const late = (n: number) => (n <= 2 ? invocations.slice(0, 1).concat(invocations.slice(3, 5)) : invocations);
    const slept: number[] = [];
    const got = await collectAnalytics(source(await serve(documentedSchema(), late)), blocks, {
      waitMs: 60_000,
      pollMs: 5_000,
      sleep: async (ms) => void slept.push(ms),
    });
    expect(slept).toEqual([5_000]);
    expect(lines.filter((l) => l.label === "block").map((l) => l.block)).toEqual([
      "cloudflare.create.ping",
      "cloudflare.warm.ping",
      "cloudflare.create.ping",
    ]);
    expect(got[0].groups.reduce((s, g) => s + g.requests, 0)).toBe(3);
  });

  it("stops naming every field the schema lacks (the filter's too), before asking for data", async () => {
    const schema = documentedSchema();
    schema.DOQuantiles = schema.DOQuantiles.filter((f) => f.name !== "wallTimeP90");
    schema.DODimensions = schema.DODimensions.filter((f) => f.name !== "colo");
    schema[FILTER_TYPE] = schema[FILTER_TYPE].filter((f) => f.name !== "datetime_leq");
    await expect(collectAnalytics(source(await serve(schema, () => invocations)), blocks, noWait)).rejects.toThrow(
      `${DATASET} lacks the fields the report needs: filter.datetime_leq, quantiles.wallTimeP90, dimensions.colo`,
    );
    expect(lines.some((l) => l.label === "block")).toBe(false);
  });

  it("stops when a wall-time field does not state its unit", async () => {
    const schema = documentedSchema();
    schema.DOSum = [scalar("requests"), scalar("errors"), scalar("wallTime", "Sum of wall time")];
    await expect(collectAnalytics(source(await serve(schema, () => invocations)), blocks, noWait)).rejects.toThrow(
      /the unit of sum\.wallTime \("Sum of wall time"\) is not stated as microseconds/,
    );
  });

  it("a token without analytics permission gets one message naming the permission", async () => {
    const gqlDenied = await serve(
      documentedSchema(),
      () => invocations,
      () => ({ status: 200, body: { data: null, errors: [{ message: "not authorized for that account" }] } }),
    );
    await expect(collectAnalytics(source(gqlDenied), blocks, noWait)).rejects.toThrow(
      /cannot read analytics \(not authorized for that account\): give it the Account Analytics: Read permission/,
    );
    await new Promise((r) => server!.close(r));
    const httpDenied = await serve(
      documentedSchema(),
      () => invocations,
      () => ({ status: 403, body: { success: false } }),
    );
    await expect(collectAnalytics(source(httpDenied), blocks, noWait)).rejects.toThrow(/cannot read analytics \(HTTP 403\)/);
  });

  it("a block still empty when the wait is over is an error that says why it may be empty", async () => {
    const src = source(await serve(documentedSchema(), () => invocations.slice(0, 3)));
    await expect(collectAnalytics(src, blocks, noWait)).rejects.toThrow(
      /no Durable Object invocations of actor-bench-eastus2 in the window of cloudflare\.warm\.ping \(2026-12-03T10:00:04Z to 2026-12-03T10:00:05Z\) after 0 s: analytics arrive minutes after the calls/,
    );
  });
});

describe("analytics as a part of the pass", () => {
  const cfRun = () =>
    fixture(
      {
        "cloudflare.warm.ping": {
          samples: [
            { ms: 1, clientMs: 20 },
            { ms: 1, clientMs: 21 },
          ],
          wallMs: 900,
        },
        "cloudflare.baseline.noop": { samples: [{ ms: 18 }, { ms: 19 }] },
      },
      { config: { groups: ["warm"] } },
    );

  it("blocks are the DO stages, their windows in whole seconds, calls the successful samples", () => {
    const dir = cfRun();
    const [b, ...rest] = blocksOf(verifyRunDir(dir));
    expect(rest).toEqual([]); // /noop makes no DO call
    expect(b).toEqual({ key: "cloudflare.warm.ping", from: "2026-12-02T13:05:00Z", to: "2026-12-02T13:05:01Z", calls: 2 });
  });

  it("stores every response in a verified run directory that merges with the run and feeds the report's in-DO table", async () => {
    const dir = cfRun();
    const endpoint = await serve(documentedSchema(), () => [
      { at: "2026-12-02T13:05:00Z", colo: "IAD", us: 800 },
      { at: "2026-12-02T13:05:01Z", colo: "IAD", us: 1_200 },
    ]);
    const sha = blobDigest(dir);
    const { apiToken, accountId, scriptName } = source(endpoint);
    const res = await runAnalytics({
      runDir: dir,
      sha256: sha,
      blobRoot: join(dir, "..", "..", "analytics"),
      stack: "eastus2",
      source: { endpoint, apiToken, accountId, scriptName },
      collect: noWait,
    });
    const am = verifyRunDir(res.runDir);
    expect(Object.keys(am.files)).toEqual(["raw/cloudflare.analytics.warm.jsonl"]);
    const stored = readAnalyticsLines(rawText(res.runDir, "raw/cloudflare.analytics.warm.jsonl"), "f");
    expect(stored.map((l) => l.label)).toEqual([
      "schema-account",
      "schema-filter",
      "schema-dataset",
      "schema-sum",
      "schema-quantiles",
      "schema-dimensions",
      "block",
    ]);
    expect(rawText(res.runDir, "raw/cloudflare.analytics.warm.jsonl")).not.toContain("test-token");

    const merged = mergeRunParts(
      [
        { runDir: dir, sha256: sha, label: "cloudflare warm" },
        { runDir: res.runDir, sha256: res.sha256, label: "cloudflare warm analytics" },
      ],
      join(dir, "..", "..", "merged"),
      "eastus2",
    );
    const report = await generateReport(merged.dir);
    expect(report.markdown).toContain("### In the DO: Cloudflare's wall time per block of calls (GraphQL analytics)");
    expect(report.markdown).toContain("the Durable Objects in IAD (2 invocations, per Cloudflare's analytics)");
    expect(report.markdown).toMatch(/\| warm\.ping \| 13:05:00-13:05:01 \| 2 \| 2 \| 0 \| IAD \| 1\.0+ \| 0\.80+ \| 1\.20* \| 1\.20* \|/);
    expect(report.markdown).toMatch(
      /Baseline: the client's round trip to the Worker with no DO call \(\/noop\), p50 \/ p90 \/ p99 18\.00 \/ [\d.]+ \/ [\d.]+ ms over 2 calls/,
    );
    // The same clock: the driver's round trip to the Worker (20 ms), and that minus the /noop p50.
    expect(report.markdown).toMatch(/\| Warm request \(no storage\) \| - \| - \| 20\.00 \/ [\d.]+ \/ [\d.]+ \| 2 \| 2\.00 \|/);

    appendFileSync(join(merged.dir, "raw/cloudflare.analytics.warm.jsonl"), "{}\n");
    await expect(generateReport(merged.dir)).rejects.toThrow(/raw\/cloudflare\.analytics\.warm\.jsonl: sha256 .* does not match/);
  });

  it("the DoAnalytics provider checks its inputs, makes the part, and a new API token asks nothing again", async () => {
    const dir = cfRun();
    const endpoint = await serve(documentedSchema(), () => [
      { at: "2026-12-02T13:05:00Z", colo: "IAD", us: 700 },
      { at: "2026-12-02T13:05:01Z", colo: "IAD", us: 900 },
    ]);
    const inputs = {
      stack: "eastus2",
      forRunDir: dir,
      forSha256: blobDigest(dir),
      blobRoot: join(dir, "..", "..", "provider-analytics"),
      accountId: "0123456789abcdef0123456789abcdef",
      scriptName: "actor-bench-eastus2-0011aabb",
      apiToken: "test-token",
      waitMs: 0,
      pollMs: 1,
      endpoint,
    };
    expect((await doAnalytics.check({}, inputs)).failures).toEqual([]);
    const bad = await doAnalytics.check({}, { ...inputs, accountId: "acct", waitMs: -1, apiToken: undefined });
    expect(bad.failures.map((f) => f.property)).toEqual(["accountId", "apiToken", "waitMs"]);
    const { outs } = await doAnalytics.create(inputs);
    expect(outs).toMatchObject({ blocks: 1, invocations: 2 });
    expect(blobDigest(outs.blob as string)).toBe(outs.sha256);
    expect((await doAnalytics.diff("x", outs, { ...inputs, apiToken: "another-token" })).changes).toBe(false);
    expect((await doAnalytics.diff("x", outs, { ...inputs, forSha256: "f".repeat(64) })).replaces).toEqual(["forSha256"]);
  });

  it("refuses a run whose manifest changed since the stack recorded it", async () => {
    const dir = cfRun();
    await expect(
      runAnalytics({
        runDir: dir,
        sha256: "0".repeat(64),
        blobRoot: dir,
        stack: "eastus2",
        source: { apiToken: "t", accountId: "a", scriptName: "s" },
        collect: noWait,
      }),
    ).rejects.toThrow(/the stack recorded 0{64}; the Cloudflare run was changed after it was measured/);
  });
});
