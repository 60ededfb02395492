/**
 * The policy pack: `pulumi preview --policy-pack policy` (after `npm run build`)
 * checks every resource the program declares against policy/rules.ts before
 * anything is created. Every rule is mandatory: a violation fails the preview.
 */
import { PolicyPack, type ResourceValidationPolicy, type StackValidationPolicy } from "@pulumi/policy";
import { RULES, type Rule } from "./rules";

function policyOf(rule: Rule): ResourceValidationPolicy | StackValidationPolicy {
  const base = { name: rule.name, description: `${rule.description} Source: ${rule.source}`, enforcementLevel: "mandatory" as const };
  const check = rule.check;
  if ("resource" in check) {
    return {
      ...base,
      validateResource: (args, report) =>
        check.resource({ type: args.type, name: args.name, urn: args.urn, props: args.props }).forEach((m) => report(m)),
    };
  }
  return {
    ...base,
    validateStack: (args, report) =>
      check
        .stack(args.resources.map((r) => ({ type: r.type, name: r.name, urn: r.urn, props: r.props })))
        .forEach((v) => report(v.message, v.urn)),
  };
}

new PolicyPack("actor-bench", { policies: RULES.map(policyOf) });
