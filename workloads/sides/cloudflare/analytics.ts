/**
 * Cloudflare's GraphQL analytics for the Durable Object side: for each block
 * of calls (one measured stage of a run) the DO invocations of the script in
 * that stage's window, per colo: requests, errors, wall time and its
 * quantiles. Field names and units cannot be verified from here, so the
 * schema is asked first (introspection) and a missing field or an unstated
 * unit stops with an error naming it. Every response is handed to `record`
 * as it arrives, before it is parsed.
 */
import { stageKey } from "../../../analysis/contract/runDirContract";
import type { ManifestLike } from "../../../analysis/contract/verify";
import { blockGroups, type AnalyticsLine, type PlatformBlock } from "../../../analysis/stats/platformTimes";

/** The GraphQL dataset of Durable Object invocations the analytics are asked for. */
const DATASET = "durableObjectsInvocationsAdaptiveGroups";

export { DATASET };
const GRAPHQL_ENDPOINT = "https://api.cloudflare.com/client/v4/graphql";
/** What the report needs, by part of a group. Wall times must be stated in microseconds. */
const NEEDED = {
  sum: ["requests", "errors", "wallTime"],
  quantiles: ["wallTimeP50", "wallTimeP90", "wallTimeP99"],
  dimensions: ["colo"],
} as const;
/** The filter fields the data query uses. */
const NEEDED_FILTER = ["scriptName", "datetime_geq", "datetime_leq"] as const;
const MICROSECOND_FIELDS = ["wallTime", "wallTimeP50", "wallTimeP90", "wallTimeP99"];
/** Colos a block can have; a full page means the answer may be cut. */
const GROUP_LIMIT = 1000;

class AnalyticsError extends Error {}

export interface AnalyticsSource {
  endpoint?: string;
  apiToken: string;
  accountId: string;
  scriptName: string;
  /** Receives every response as it arrives (the run directory's raw file). */
  record: (line: Omit<AnalyticsLine, "seq">) => void;
}

/** One block of calls: a measured stage, its window widened to whole seconds. */
export interface Block {
  key: string;
  from: string;
  to: string;
  /** Successful calls the Worker timed: each made one DO invocation. */
  calls: number;
}

const floorSecond = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
const ceilSecond = (ms: number) => new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

/** The Cloudflare stages of a run as analytics blocks (pure). */
export function blocksOf(m: ManifestLike): Block[] {
  return Object.values(m.stages)
    .filter((s) => s.side === "cloudflare" && s.metric !== "baseline.noop")
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt))
    .map((s) => {
      const start = Date.parse(s.startedAt);
      return { key: stageKey(s.side, s.metric), from: floorSecond(start), to: ceilSecond(start + s.wallMs), calls: s.attempts - s.errors };
    });
}

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface FieldInfo {
  name: string;
  description: string | null;
  type: TypeRef;
  args?: Array<{ name: string; type: TypeRef }>;
}

const namedType = (t: TypeRef): string | null => t.name ?? (t.ofType ? namedType(t.ofType) : null);

async function post(
  src: AnalyticsSource,
  label: string,
  query: string,
  variables: Record<string, unknown>,
  extra: Partial<AnalyticsLine> = {},
): Promise<unknown> {
  const res = await fetch(src.endpoint ?? GRAPHQL_ENDPOINT, {
    method: "POST",
    headers: { authorization: `Bearer ${src.apiToken}`, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  src.record({ at: new Date().toISOString(), label, ...extra, status: res.status, body: text });
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

const TYPE_REF = "kind name ofType { kind name ofType { kind name ofType { kind name } } }";
const TYPE_QUERY = `query($name: String!) { __type(name: $name) { name fields { name description args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } inputFields { name } } }`;

async function typeOf(
  src: AnalyticsSource,
  typeName: string,
  label: string,
): Promise<{ fields: FieldInfo[] | null; inputFields: Array<{ name: string }> | null }> {
  const data = await post(src, label, TYPE_QUERY, { name: typeName });
  const t = (data as { __type?: unknown } | null)?.__type as {
    fields: FieldInfo[] | null;
    inputFields: Array<{ name: string }> | null;
  } | null;
  if (!t) throw new AnalyticsError(`the analytics schema has no type ${typeName}`);
  return t;
}

/**
 * Walks the schema from the account type to the dataset, its filter and its
 * sum, quantiles and dimensions types; throws naming every needed field that
 * is missing, or a wall-time field whose description does not state microseconds.
 */
async function checkSchema(src: AnalyticsSource): Promise<void> {
  const account = (await typeOf(src, "account", "schema-account")).fields ?? [];
  const dataset = account.find((f) => f.name === DATASET);
  if (!dataset) throw new AnalyticsError(`the analytics schema has no ${DATASET} on an account: the dataset may have been renamed`);
  const missing: string[] = [];
  const wrongUnit: string[] = [];
  const filterArg = dataset.args?.find((a) => a.name === "filter");
  if (!filterArg) missing.push(...NEEDED_FILTER.map((n) => `filter.${n}`));
  else {
    const inputs = (await typeOf(src, namedType(filterArg.type)!, "schema-filter")).inputFields ?? [];
    for (const n of NEEDED_FILTER) if (!inputs.some((f) => f.name === n)) missing.push(`filter.${n}`);
  }
  const groupFields = (await typeOf(src, namedType(dataset.type)!, "schema-dataset")).fields ?? [];
  for (const [part, needed] of Object.entries(NEEDED)) {
    const partField = groupFields.find((f) => f.name === part);
    if (!partField) {
      missing.push(...needed.map((n) => `${part}.${n}`));
      continue;
    }
    const fields = (await typeOf(src, namedType(partField.type)!, `schema-${part}`)).fields ?? [];
    for (const n of needed) {
      const f = fields.find((x) => x.name === n);
      if (!f) missing.push(`${part}.${n}`);
      else if (MICROSECOND_FIELDS.includes(n) && !/microsecond/i.test(f.description ?? ""))
        wrongUnit.push(`${part}.${n} (${JSON.stringify(f.description)})`);
    }
  }
  if (missing.length) throw new AnalyticsError(`${DATASET} lacks the fields the report needs: ${missing.join(", ")}`);
  if (wrongUnit.length)
    throw new AnalyticsError(
      `${DATASET}: the unit of ${wrongUnit.join(", ")} is not stated as microseconds, so the wall times cannot be converted`,
    );
}

const DATA_QUERY = `query($account: String!, $script: String!, $from: Time!, $to: Time!, $limit: Int!) {
  viewer { accounts(filter: { accountTag: $account }) {
    ${DATASET}(limit: $limit, filter: { scriptName: $script, datetime_geq: $from, datetime_leq: $to }) {
      sum { ${NEEDED.sum.join(" ")} } quantiles { ${NEEDED.quantiles.join(" ")} } dimensions { ${NEEDED.dimensions.join(" ")} }
    } } } }`;

/** One block's invocations, one group per colo, aggregated by Cloudflare over the block's window. */
async function queryBlock(src: AnalyticsSource, block: Block): Promise<PlatformBlock> {
  const data = await post(
    src,
    "block",
    DATA_QUERY,
    { account: src.accountId, script: src.scriptName, from: block.from, to: block.to, limit: GROUP_LIMIT },
    {
      block: block.key,
      window: { from: block.from, to: block.to },
      calls: block.calls,
    },
  );
  if (!(data as { viewer?: { accounts?: unknown[] } } | null)?.viewer?.accounts?.length)
    throw new AnalyticsError(`no account ${src.accountId} is visible to this API token`);
  const groups = blockGroups(data as Parameters<typeof blockGroups>[0]);
  if (groups.length >= GROUP_LIMIT)
    throw new AnalyticsError(`${block.key}: ${groups.length} colo groups, the query's limit: the answer may be cut`);
  return { block: block.key, window: { from: block.from, to: block.to }, calls: block.calls, groups };
}

export interface CollectOpts {
  /** How long to keep asking for blocks whose invocations have not all arrived. */
  waitMs: number;
  pollMs: number;
  sleep?: (ms: number) => Promise<void>;
}

const arrived = (b: PlatformBlock) => b.groups.reduce((s, g) => s + g.requests, 0) >= b.calls;

/**
 * Checks the schema, then asks for every block, again every pollMs for the
 * blocks whose analytics count fewer invocations than the Worker made calls,
 * until waitMs has passed (analytics arrive minutes after the calls). A
 * block still empty at the end is an error; one partly counted is returned
 * as it is, and the report shows both counts.
 */
export async function collectAnalytics(src: AnalyticsSource, blocks: readonly Block[], o: CollectOpts): Promise<PlatformBlock[]> {
  if (blocks.length === 0) throw new AnalyticsError("the run has no Durable Object stages to ask analytics for");
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  await checkSchema(src);
  const deadline = Date.now() + o.waitMs;
  const got = new Map<string, PlatformBlock>();
  for (;;) {
    for (const b of blocks) {
      const have = got.get(b.key);
      if (!have || !arrived(have)) got.set(b.key, await queryBlock(src, b));
    }
    if ([...got.values()].every(arrived) || Date.now() + o.pollMs > deadline) break;
    await sleep(o.pollMs);
  }
  const empty = blocks.filter((b) => got.get(b.key)!.groups.length === 0);
  if (empty.length) {
    throw new AnalyticsError(
      `no Durable Object invocations of ${src.scriptName} in the window of ${empty.map((b) => `${b.key} (${b.from} to ${b.to})`).join(", ")} after ${Math.round(o.waitMs / 1000)} s: ` +
        "analytics arrive minutes after the calls; run `pulumi up` again to ask once more",
    );
  }
  return blocks.map((b) => got.get(b.key)!);
}
