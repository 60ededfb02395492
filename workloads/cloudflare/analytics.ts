/**
 * Cloudflare's GraphQL analytics for the Durable Object side: per-minute
 * groups of DO invocations of one script (requests, errors, wall time and its
 * quantiles, colo). Field names and units cannot be verified from here, so the
 * schema is asked first (introspection) and a missing field or an unstated
 * unit stops with an error naming it. Every response is written to `outDir`
 * as it arrives.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const GRAPHQL_ENDPOINT = "https://api.cloudflare.com/client/v4/graphql";
export const DATASET = "durableObjectsInvocationsAdaptiveGroups";
/** What the report needs, by part of a group. Wall times must be stated in microseconds. */
export const NEEDED = {
  sum: ["requests", "errors", "wallTime"],
  quantiles: ["wallTimeP50", "wallTimeP90", "wallTimeP99"],
  dimensions: ["datetimeMinute", "scriptName", "colo"],
} as const;
const MICROSECOND_FIELDS = ["wallTime", "wallTimeP50", "wallTimeP90", "wallTimeP99"];

export class AnalyticsError extends Error {}

export interface AnalyticsQuery {
  endpoint?: string;
  apiToken: string;
  accountId: string;
  scriptName: string;
  /** ISO 8601, the run's window. */
  start: string;
  end: string;
  outDir: string;
  pageSize?: number;
}

export interface InvocationGroup {
  minute: string;
  colo: string;
  requests: number;
  errors: number;
  /** Sum of wall time over the group's invocations, ms. */
  wallTimeMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

interface TypeRef { kind: string; name: string | null; ofType: TypeRef | null }
interface FieldInfo { name: string; description: string | null; type: TypeRef }

const namedType = (t: TypeRef): string | null => (t.name ?? (t.ofType ? namedType(t.ofType) : null));

async function post(q: AnalyticsQuery, label: string, query: string, variables: Record<string, unknown>): Promise<any> {
  const res = await fetch(q.endpoint ?? GRAPHQL_ENDPOINT, {
    method: "POST",
    headers: { authorization: `Bearer ${q.apiToken}`, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  mkdirSync(q.outDir, { recursive: true });
  writeFileSync(join(q.outDir, `${label}.json`), text);
  if (res.status === 401 || res.status === 403) throw new AnalyticsError(permissionMessage(`HTTP ${res.status}`));
  if (!res.ok) throw new AnalyticsError(`Cloudflare GraphQL answered HTTP ${res.status} to the ${label} query: ${text.slice(0, 300)}`);
  let body: { data?: unknown; errors?: Array<{ message: string }> | null };
  try {
    body = JSON.parse(text);
  } catch {
    throw new AnalyticsError(`Cloudflare GraphQL answered the ${label} query with something that is not JSON: ${text.slice(0, 200)}`);
  }
  const errors = body.errors ?? [];
  if (errors.length > 0) {
    const messages = errors.map((e) => e.message).join("; ");
    if (/auth|permission|access/i.test(messages)) throw new AnalyticsError(permissionMessage(messages));
    throw new AnalyticsError(`Cloudflare GraphQL refused the ${label} query: ${messages}`);
  }
  return body.data;
}

function permissionMessage(detail: string): string {
  return `the Cloudflare API token cannot read analytics (${detail}): give it the Account Analytics: Read permission for this account`;
}

async function fieldsOf(q: AnalyticsQuery, typeName: string, label: string): Promise<FieldInfo[]> {
  const data = await post(q, label, "query($name: String!) { __type(name: $name) { name fields { name description type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }", { name: typeName });
  const t = data?.__type as { fields: FieldInfo[] | null } | null;
  if (!t?.fields) throw new AnalyticsError(`the analytics schema has no type ${typeName}`);
  return t.fields;
}

/**
 * Walks the schema from the account type to the dataset and its sum,
 * quantiles and dimensions types; throws naming every needed field that is
 * missing, or a wall-time field whose description does not state microseconds.
 */
export async function checkSchema(q: AnalyticsQuery): Promise<void> {
  const account = await fieldsOf(q, "account", "schema-account");
  const dataset = account.find((f) => f.name === DATASET);
  if (!dataset) throw new AnalyticsError(`the analytics schema has no ${DATASET} on an account: the dataset may have been renamed`);
  const groupFields = await fieldsOf(q, namedType(dataset.type)!, "schema-dataset");
  const missing: string[] = [];
  const wrongUnit: string[] = [];
  for (const [part, needed] of Object.entries(NEEDED)) {
    const partField = groupFields.find((f) => f.name === part);
    if (!partField) {
      missing.push(...needed.map((n) => `${part}.${n}`));
      continue;
    }
    const fields = await fieldsOf(q, namedType(partField.type)!, `schema-${part}`);
    for (const n of needed) {
      const f = fields.find((x) => x.name === n);
      if (!f) missing.push(`${part}.${n}`);
      else if (MICROSECOND_FIELDS.includes(n) && !/microsecond/i.test(f.description ?? "")) wrongUnit.push(`${part}.${n} (${JSON.stringify(f.description)})`);
    }
  }
  if (missing.length) throw new AnalyticsError(`${DATASET} lacks the fields the report needs: ${missing.join(", ")}`);
  if (wrongUnit.length) throw new AnalyticsError(`${DATASET}: the unit of ${wrongUnit.join(", ")} is not stated as microseconds, so the wall times cannot be converted`);
}

const DATA_QUERY = `query($account: String!, $script: String!, $from: Time!, $to: Time!, $limit: Int!) {
  viewer { accounts(filter: { accountTag: $account }) {
    ${DATASET}(limit: $limit, orderBy: [datetimeMinute_ASC], filter: { scriptName: $script, datetimeMinute_geq: $from, datetimeMinute_leq: $to }) {
      sum { ${NEEDED.sum.join(" ")} } quantiles { ${NEEDED.quantiles.join(" ")} } dimensions { ${NEEDED.dimensions.join(" ")} }
    } } } }`;

const us = (v: unknown) => Number(v) / 1000;

/**
 * The run window's invocation groups, oldest first. Pages by minute: a full
 * page is re-asked from its last minute, whose groups are dropped from the
 * page before (they come again whole).
 */
export async function fetchInvocations(q: AnalyticsQuery): Promise<InvocationGroup[]> {
  await checkSchema(q);
  const limit = q.pageSize ?? 10_000;
  const out: InvocationGroup[] = [];
  let from = q.start;
  for (let page = 1; ; page++) {
    const data = await post(q, `invocations-${String(page).padStart(3, "0")}`, DATA_QUERY, { account: q.accountId, script: q.scriptName, from, to: q.end, limit });
    const accounts = data?.viewer?.accounts as Array<Record<string, unknown[]>> | undefined;
    if (!accounts?.length) throw new AnalyticsError(`no account ${q.accountId} is visible to this API token`);
    const rows = (accounts[0][DATASET] ?? []) as Array<{ sum: Record<string, number>; quantiles: Record<string, number>; dimensions: Record<string, string> }>;
    const groups = rows.map((r) => ({
      minute: r.dimensions.datetimeMinute,
      colo: r.dimensions.colo,
      requests: r.sum.requests,
      errors: r.sum.errors,
      wallTimeMs: us(r.sum.wallTime),
      p50Ms: us(r.quantiles.wallTimeP50),
      p90Ms: us(r.quantiles.wallTimeP90),
      p99Ms: us(r.quantiles.wallTimeP99),
    }));
    if (groups.length < limit) {
      out.push(...groups);
      break;
    }
    const last = groups[groups.length - 1].minute;
    const before = groups.filter((g) => g.minute !== last);
    if (before.length === 0) throw new AnalyticsError(`minute ${last} alone has ${limit} or more groups: raise pageSize`);
    out.push(...before);
    from = last;
  }
  if (out.length === 0) {
    throw new AnalyticsError(`no Durable Object invocations of ${q.scriptName} between ${q.start} and ${q.end}: analytics arrive minutes after the calls; if the run was just now, ask again later`);
  }
  return out;
}
