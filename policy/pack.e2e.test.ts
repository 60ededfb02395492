import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPolicyPack, type PolicyHost } from "../test/policyHost";
import { BREAKS, planned, registrationsOf } from "../test/policyFixtures";
import { RULES, violationsOf, type Planned } from "./rules";
import type { Registered } from "../test/pulumiProgram";

// The compiled pack, started as `pulumi preview --policy-pack policy` starts it, asked over gRPC as the
// engine asks it: the whole stack (analyzeStack) and one resource at a time (analyze).
let pack: PolicyHost;
let eastus2: Registered[];
beforeAll(async () => {
  pack = await startPolicyPack();
  eastus2 = await registrationsOf("eastus2");
});
afterAll(async () => pack?.close());

const MANDATORY = 1; // pulumirpc.EnforcementLevel.MANDATORY
const wire = (rs: Registered[]) => rs.filter((r) => r.custom).map((r) => ({ type: r.type, name: r.name, urn: r.urn, props: r.inputs }));
const asInput = (rs: Planned[]) => rs.map((r) => ({ type: r.type, name: r.name, urn: r.urn, props: r.props }));
/**
 * The pack's diagnostics of one stack: its stack policies, and each resource policy over every
 * resource (whose diagnostics name no URN: the resource asked about is theirs). The pack puts the
 * policy's description, with its source, on the line before the rule's own message.
 */
async function diagnose(rs: Array<{ type: string; name: string; urn: string; props: Record<string, unknown> }>) {
  const all = [...(await pack.analyzeStack(rs))];
  for (const r of rs) all.push(...(await pack.analyze(r)).map((d) => ({ ...d, urn: d.urn || r.urn })));
  for (const d of all) expect(d.message, d.policy).toContain("Source: https://");
  return all.map((d) => ({ ...d, message: d.message.split("\n").at(-1)! }));
}

describe("the policy pack, as the Pulumi engine runs it", () => {
  it("declares every rule, mandatory, its description naming its source", async () => {
    // Every rule is served: one broken stack per rule comes back with that rule's name.
    const seen = new Set<string>();
    for (const rule of RULES) {
      const found = await diagnose(asInput(BREAKS[rule.name](planned(eastus2))));
      expect(
        found.map((d) => d.policy),
        rule.name,
      ).toContain(rule.name);
      for (const d of found) expect(d.enforcement, d.policy).toBe(MANDATORY);
      found.forEach((d) => seen.add(d.policy));
    }
    expect([...seen].sort()).toEqual(RULES.map((r) => r.name).sort());
  });

  it("passes the eastus2 program as it registers (secrets on the wire), and reports what the rules report on a broken one", async () => {
    expect(await diagnose(wire(eastus2))).toEqual([]);
    const broken = BREAKS["no-engine-behind-own-load-balancer"](BREAKS["nsg-wildcard-not-in-list"](planned(eastus2)));
    const got = (await diagnose(asInput(broken))).map((d) => [d.policy, d.message, d.urn]).sort();
    const want = violationsOf(broken)
      .map((v) => [v.rule, v.message, v.urn])
      .sort();
    expect(got).toEqual(want);
    expect(want).toHaveLength(2);
  });
});
