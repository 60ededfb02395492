import { setContainerPolicies, type AccessPolicy } from "../../workloads/runner/accessPolicies";
import { requireString, type CheckFailure, type Props } from "./common";

export async function check(_olds: Props, news: Props) {
  const failures: CheckFailure[] = [];
  requireString(news, "containerUrl", failures, /^https?:\/\//);
  requireString(news, "accountName", failures);
  requireString(news, "accountKey", failures);
  const p = news.policies as AccessPolicy[] | undefined;
  if (!Array.isArray(p) || p.some((x) => typeof x?.id !== "string" || !/^[a-z]+$/.test(String(x.permissions)) || Number.isNaN(Date.parse(String(x.expiresOn))))) {
    failures.push({ property: "policies", reason: "policies must be a list of {id, permissions (letters), expiresOn (ISO 8601)}" });
  }
  return { inputs: news, failures };
}

/** A new policy set is an update in place; another container is a new resource. The key is a credential, not a change. */
export async function diff(_id: string, olds: Props, news: Props) {
  const replaces = ["containerUrl", "accountName"].filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
  const changes = replaces.length > 0 || JSON.stringify(olds.policies) !== JSON.stringify(news.policies);
  return { changes, replaces, deleteBeforeReplace: true };
}

export async function create(inputs: Props) {
  await setContainerPolicies(inputs.containerUrl as string, inputs.accountName as string, inputs.accountKey as string, inputs.policies as AccessPolicy[]);
  return { id: `${inputs.containerUrl as string}#policies`, outs: inputs };
}

export async function update(_id: string, _olds: Props, news: Props) {
  await setContainerPolicies(news.containerUrl as string, news.accountName as string, news.accountKey as string, news.policies as AccessPolicy[]);
  return { outs: news };
}

export async function read(id: string, props: Props) {
  return { id, props };
}

/** Removing the policies revokes every SAS tied to them. */
export async function remove(_id: string, props: Props) {
  await setContainerPolicies(props.containerUrl as string, props.accountName as string, props.accountKey as string, []);
}
