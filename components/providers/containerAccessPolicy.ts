import { expiryFrom, needsRenewal, setContainerPolicies } from "../../workloads/runner/accessPolicies";
import { requireString, type CheckFailure, type Props } from "./common";

type Policy = { id: string; permissions: string };

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  requireString(news, "containerUrl", failures, /^https?:\/\//);
  requireString(news, "accountName", failures);
  requireString(news, "accountKey", failures);
  const p = news.policies as Policy[] | undefined;
  if (!Array.isArray(p) || p.some((x) => typeof x?.id !== "string" || !/^[a-z]+$/.test(String(x.permissions)))) {
    failures.push({ property: "policies", reason: "policies must be a list of {id, permissions (letters)}" });
  }
  for (const k of ["lifetimeHours", "renewBelowHours"]) {
    if (typeof news[k] !== "number" || !(news[k] > 0)) failures.push({ property: k, reason: `${k} must be a positive number of hours` });
  }
  if ((news.renewBelowHours as number) >= (news.lifetimeHours as number)) failures.push({ property: "renewBelowHours", reason: "renewBelowHours must be shorter than lifetimeHours" });
  return { inputs: news, failures };
}

/**
 * Another container is a new resource. New policies, or a stored expiry with
 * less than renewBelowHours left, are an update in place (a fresh expiry);
 * otherwise nothing changes, so a preview within the life is clean. The key
 * is a credential, not a change.
 */
export async function diff(_id: string, olds: Props, news: Props, now = new Date()) {
  const replaces = ["containerUrl", "accountName"].filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
  const changed = ["policies", "lifetimeHours", "renewBelowHours"].some((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
  const changes = replaces.length > 0 || changed || needsRenewal(olds.expiresOn, now, news.renewBelowHours as number);
  return { changes, replaces, deleteBeforeReplace: true };
}

async function apply(props: Props, now = new Date()) {
  const expiresOn = expiryFrom(now, props.lifetimeHours as number);
  await setContainerPolicies(props.containerUrl as string, props.accountName as string, props.accountKey as string, (props.policies as Policy[]).map((p) => ({ ...p, expiresOn })));
  return { ...props, expiresOn };
}

export async function create(inputs: Props) {
  return { id: `${inputs.containerUrl as string}#policies`, outs: await apply(inputs) };
}

export async function update(_id: string, _olds: Props, news: Props) {
  return { outs: await apply(news) };
}

export async function read(id: string, props: Props) {
  return { id, props };
}

/** Removing the policies revokes every SAS tied to them. */
export async function remove(_id: string, props: Props) {
  await setContainerPolicies(props.containerUrl as string, props.accountName as string, props.accountKey as string, []);
}
