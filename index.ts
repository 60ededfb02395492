import * as pulumi from "@pulumi/pulumi";
import { STACK_KEYS, validateStackConfig, type StackKey } from "./stacks/stackConfig";

// The program validates the stack's config before anything else. The local
// processes, the cloud components and the BenchmarkRun resources that use it
// are declared here as they land (see README, "Status").
const config = new pulumi.Config("actor-bench");
const raw: Partial<Record<StackKey, string>> = {};
for (const key of Object.keys(STACK_KEYS) as StackKey[]) {
  const v = config.get(key);
  if (v !== undefined) raw[key] = v;
}
const runConfig = validateStackConfig(pulumi.getStack(), raw);

export const stack = runConfig.stack;
export const preset = runConfig.preset;
export const groups = runConfig.groups;
