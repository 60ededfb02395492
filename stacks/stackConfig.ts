import { parseRunArgs, UsageError, type RunConfig } from "../workloads/runConfig";

/** Stack config keys (Pulumi.<stack>.yaml, namespace `actor-bench`) and the run flag each one sets. */
export const STACK_KEYS = {
  preset: "--preset",
  side: "--side",
  groups: "--groups",
  wakeIdleMs: "--wake-idle-ms",
  requestTimeoutMs: "--request-timeout-ms",
  actorSleepTimeoutMs: "--actor-sleep-timeout-ms",
} as const;

export type StackKey = keyof typeof STACK_KEYS;

/**
 * Validates a stack's raw config with the same rules as `npm start`'s flags, so
 * a stack and a laptop run mean the same thing. Errors name the config key.
 */
export function validateStackConfig(stack: string, raw: Partial<Record<StackKey, string>>): RunConfig {
  const argv: string[] = [];
  for (const key of Object.keys(raw) as StackKey[]) {
    const flag = STACK_KEYS[key];
    if (!flag) throw new UsageError(`unknown config key actor-bench:${key}; known keys: ${Object.keys(STACK_KEYS).join(", ")}`);
    const v = raw[key];
    if (v !== undefined) argv.push(flag, v);
  }
  try {
    return { ...parseRunArgs(argv), stack };
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const key = (Object.keys(STACK_KEYS) as StackKey[]).find((k) => err.message.startsWith(STACK_KEYS[k]));
    throw new UsageError(key ? `config actor-bench:${key}: ${err.message.slice(STACK_KEYS[key].length + 1)}` : err.message);
  }
}
