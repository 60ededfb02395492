import { setTimeout as sleep } from "node:timers/promises";
import {
  DELEGATION_KEY_MAX_HOURS,
  NotYetAuthorized,
  ROLE_PROPAGATION,
  expiryFrom,
  needsRenewal,
  readAccessLive,
  requestDelegationKey,
  serviceUrlOf,
  signContainerSas,
} from "../../workloads/runner/resultAccess";
import { requireString, type CheckFailure, type Props } from "./common";

type Grants = Record<string, string>;

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  requireString(news, "containerUrl", failures, /^https:\/\//);
  requireString(news, "accountName", failures);
  requireString(news, "token", failures);
  const g = news.grants as Grants | undefined;
  if (!g || typeof g !== "object" || Object.keys(g).length === 0 || Object.values(g).some((p) => !/^[racwdl]+$/.test(String(p)))) {
    failures.push({ property: "grants", reason: "grants must map each holder to Blob SAS permission letters (r, a, c, w, d, l)" });
  }
  for (const k of ["lifetimeHours", "renewBelowHours", "waitMinutes"]) {
    if (typeof news[k] !== "number" || !((news[k] as number) > 0)) failures.push({ property: k, reason: `${k} must be a positive number` });
  }
  if ((news.lifetimeHours as number) > DELEGATION_KEY_MAX_HOURS)
    failures.push({
      property: "lifetimeHours",
      reason: `lifetimeHours must be at most ${DELEGATION_KEY_MAX_HOURS}: Azure issues user delegation keys for 7 days at most`,
    });
  if ((news.renewBelowHours as number) >= (news.lifetimeHours as number))
    failures.push({ property: "renewBelowHours", reason: "renewBelowHours must be shorter than lifetimeHours" });
  return { inputs: news, failures };
}

/**
 * Another container is a new resource. New grants or lifetimes, or signed SAS
 * with less than renewBelowHours left, are an update in place (freshly signed);
 * otherwise nothing changes, so a preview within the life is clean. The token
 * is a credential fetched anew on every run, not a change.
 */
export async function diff(_id: string, olds: Props, news: Props, now = new Date()) {
  const replaces = ["containerUrl", "accountName"].filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
  const changed = ["grants", "lifetimeHours", "renewBelowHours"].some((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
  const changes = replaces.length > 0 || changed || needsRenewal(olds.expiresOn, now, news.renewBelowHours as number);
  return { changes, replaces, deleteBeforeReplace: true };
}

/** Waits, within `waitMinutes`, for the signer's roles to reach the Blob service; any other failure ends it at once. */
async function untilAuthorized<T>(what: () => Promise<T | undefined>, waitMinutes: number, describe: string): Promise<T> {
  const deadline = Date.now() + waitMinutes * 60_000;
  let last = "";
  for (;;) {
    try {
      const v = await what();
      if (v !== undefined) return v;
      last = `${describe} is still refused (HTTP 403)`;
    } catch (e) {
      if (!(e instanceof NotYetAuthorized)) throw e;
      last = e.message;
    }
    if (Date.now() >= deadline)
      throw new Error(
        `${last} after ${waitMinutes} min: check the role assignments of the identity \`pulumi up\` runs as, then run \`pulumi up\` again`,
      );
    await sleep(Math.min(ROLE_PROPAGATION.pollSeconds * 1000, Math.max(0, deadline - Date.now())));
  }
}

async function sign(props: Props, now = new Date()) {
  const containerUrl = props.containerUrl as string;
  const { serviceUrl, container } = serviceUrlOf(containerUrl);
  const waitMinutes = props.waitMinutes as number;
  const expiresOn = expiryFrom(now, props.lifetimeHours as number);
  // A start a few minutes back, so a clock behind Azure's does not make a fresh SAS "not yet valid".
  const startsOn = new Date(now.getTime() - 5 * 60_000);
  const key = await untilAuthorized(
    () => requestDelegationKey(serviceUrl, props.token as string, startsOn, new Date(expiresOn)),
    waitMinutes,
    "the user delegation key",
  );
  const sas = Object.fromEntries(
    Object.entries(props.grants as Grants).map(([holder, letters]) => [
      holder,
      signContainerSas(key, props.accountName as string, container, letters),
    ]),
  );
  const reader = Object.entries(props.grants as Grants).find(([, letters]) => letters.includes("r"));
  if (reader)
    await untilAuthorized(
      async () => ((await readAccessLive(containerUrl, sas[reader[0]])) ? true : undefined),
      waitMinutes,
      `the ${reader[0]} SAS`,
    );
  return { ...props, expiresOn, sas };
}

export async function create(inputs: Props) {
  return { id: `${inputs.containerUrl as string}#user-delegation-sas`, outs: await sign(inputs) };
}

export async function update(_id: string, _olds: Props, news: Props) {
  return { outs: await sign(news) };
}

export async function read(id: string, props: Props) {
  return { id, props };
}

/**
 * Nothing to delete here: a user delegation SAS works only while its
 * signer's roles allow what it asks, and the stack deletes those role
 * assignments after this resource.
 */
export async function remove(_id: string, _props: Props) {}
