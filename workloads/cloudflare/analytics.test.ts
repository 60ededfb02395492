import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATASET, fetchInvocations, type AnalyticsQuery } from "./analytics";

// A local HTTP server that answers with responses OF THE DOCUMENTED SHAPE
// (Cloudflare's GraphQL analytics and standard GraphQL introspection). It is
// not Cloudflare: it tests our query, paging, units and error paths.
type Field = { name: string; description?: string; type?: string };
interface Schema { [typeName: string]: Field[] }

const scalar = (name: string, description?: string): Field => ({ name, description });
const documentedSchema = (): Schema => ({
  account: [{ name: DATASET, type: "AccountDurableObjectsInvocationsAdaptiveGroups" }, scalar("workersInvocationsAdaptive")],
  AccountDurableObjectsInvocationsAdaptiveGroups: [
    { name: "sum", type: "DOSum" },
    { name: "quantiles", type: "DOQuantiles" },
    { name: "dimensions", type: "DODimensions" },
  ],
  DOSum: [scalar("requests"), scalar("errors"), scalar("wallTime", "Sum of wall time, in microseconds")],
  DOQuantiles: ["P50", "P90", "P99"].map((p) => scalar(`wallTime${p}`, `Wall time ${p}, in microseconds`)),
  DODimensions: [scalar("datetimeMinute"), scalar("scriptName"), scalar("colo")],
});

interface Row { minute: string; colo: string; requests: number; wallTime: number }
let server: Server | undefined;
let seen: Array<{ variables: Record<string, unknown> }> = [];

async function serve(schema: Schema, rows: Row[], reply?: (body: { query: string }) => { status: number; body: unknown } | undefined): Promise<string> {
  seen = [];
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
        const fields = schema[body.variables.name as string];
        return send(200, { data: { __type: fields ? { name: body.variables.name, fields: fields.map((f) => ({ name: f.name, description: f.description ?? null, type: f.type ? { kind: "OBJECT", name: f.type, ofType: null } : { kind: "SCALAR", name: "Float", ofType: null } })) } : null } });
      }
      const v = body.variables as { from: string; to: string; limit: number };
      const page = rows.filter((r) => r.minute >= v.from && r.minute <= v.to).slice(0, v.limit);
      const groups = page.map((r) => ({
        sum: { requests: r.requests, errors: 0, wallTime: r.wallTime },
        quantiles: { wallTimeP50: r.wallTime / r.requests, wallTimeP90: r.wallTime / r.requests, wallTimeP99: r.wallTime / r.requests },
        dimensions: { datetimeMinute: r.minute, scriptName: "actor-bench-eastus2", colo: r.colo },
      }));
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

const query = (endpoint: string, extra: Partial<AnalyticsQuery> = {}): AnalyticsQuery => ({
  endpoint, apiToken: "test-token", accountId: "0123456789abcdef0123456789abcdef", scriptName: "actor-bench-eastus2",
  start: "2026-12-03T10:00:00Z", end: "2026-12-03T10:59:00Z", outDir: mkdtempSync(join(tmpdir(), "cf-analytics-")), ...extra,
});

const rows: Row[] = [
  { minute: "2026-12-03T10:00:00Z", colo: "IAD", requests: 10, wallTime: 25_000 },
  { minute: "2026-12-03T10:01:00Z", colo: "IAD", requests: 4, wallTime: 8_000 },
  { minute: "2026-12-03T10:01:00Z", colo: "EWR", requests: 2, wallTime: 9_000 },
  { minute: "2026-12-03T10:02:00Z", colo: "IAD", requests: 5, wallTime: 5_000 },
  { minute: "2026-12-03T10:03:00Z", colo: "IAD", requests: 1, wallTime: 1_500 },
];

describe("the DO analytics module (against a local server of the documented shape)", () => {
  it("checks the schema, pages by minute without losing or repeating a group, converts µs to ms and keeps every raw response", async () => {
    const q = query(await serve(documentedSchema(), rows), { pageSize: 3 });
    const groups = await fetchInvocations(q);
    expect(groups.map((g) => `${g.minute} ${g.colo}`)).toEqual(rows.map((r) => `${r.minute} ${r.colo}`));
    expect(groups[0]).toMatchObject({ requests: 10, wallTimeMs: 25, p50Ms: 2.5 });
    expect(groups.reduce((s, g) => s + g.requests, 0)).toBe(22);
    const pages = seen.filter((s) => !("name" in s.variables));
    expect(pages.map((p) => p.variables.from)).toEqual(["2026-12-03T10:00:00Z", "2026-12-03T10:01:00Z", "2026-12-03T10:02:00Z"]);
    expect(pages.every((p) => p.variables.script === "actor-bench-eastus2" && p.variables.to === q.end)).toBe(true);
    const files = readdirSync(q.outDir).sort();
    expect(files).toEqual(expect.arrayContaining(["schema-account.json", "schema-dataset.json", "schema-quantiles.json", "invocations-001.json", "invocations-003.json"]));
  });

  it("stops naming every field the schema lacks, before asking for data", async () => {
    const schema = documentedSchema();
    schema.DOQuantiles = schema.DOQuantiles.filter((f) => f.name !== "wallTimeP90");
    schema.DODimensions = schema.DODimensions.filter((f) => f.name !== "colo");
    const q = query(await serve(schema, rows));
    await expect(fetchInvocations(q)).rejects.toThrow(`${DATASET} lacks the fields the report needs: quantiles.wallTimeP90, dimensions.colo`);
    expect(existsSync(join(q.outDir, "invocations-001.json"))).toBe(false);
  });

  it("stops when a wall-time field does not state its unit", async () => {
    const schema = documentedSchema();
    schema.DOSum = [scalar("requests"), scalar("errors"), scalar("wallTime", "Sum of wall time")];
    await expect(fetchInvocations(query(await serve(schema, rows)))).rejects.toThrow(/the unit of sum\.wallTime \("Sum of wall time"\) is not stated as microseconds/);
  });

  it("a token without analytics permission gets one message naming the permission", async () => {
    const gqlDenied = await serve(documentedSchema(), rows, () => ({ status: 200, body: { data: null, errors: [{ message: "not authorized for that account" }] } }));
    await expect(fetchInvocations(query(gqlDenied))).rejects.toThrow(/cannot read analytics \(not authorized for that account\): give it the Account Analytics: Read permission/);
    await new Promise((r) => server!.close(r));
    const httpDenied = await serve(documentedSchema(), rows, () => ({ status: 403, body: { success: false } }));
    await expect(fetchInvocations(query(httpDenied))).rejects.toThrow(/cannot read analytics \(HTTP 403\)/);
  });

  it("an empty window is an error that says why it may be empty", async () => {
    const q = query(await serve(documentedSchema(), rows), { start: "2026-12-03T12:00:00Z", end: "2026-12-03T12:30:00Z" });
    await expect(fetchInvocations(q)).rejects.toThrow(/no Durable Object invocations of actor-bench-eastus2 between 2026-12-03T12:00:00Z and 2026-12-03T12:30:00Z: analytics arrive minutes after/);
  });
});
