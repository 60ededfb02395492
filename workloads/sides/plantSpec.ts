/**
 * A planted change, per operation: microseconds by op name, "*" for every op
 * (`--plant-delay-us rivet=500` plants in every action, `rivet:write=500` in
 * writes only). Pure and free of Node imports: the Durable Object's bundle
 * reads it too. It travels to a side's process as text, "write=500,*=0".
 */
import { OPS } from "../../analysis/contract/operations";

export type Plant = Readonly<Record<string, number>>;

/** The key that plants in every operation. */
export const EVERY_OP = "*";

/** The operations a plant may name: the actors' own. */
export const PLANT_OPS: readonly string[] = [...OPS, "sleep"];

/** Whether a plant may name `op`: an actor operation, or every one. */
export const isPlantKey = (op: string): boolean => op === EVERY_OP || PLANT_OPS.includes(op);

/** Microseconds planted in `op`: its own entry, else every op's, else none. */
export function plantUsFor(plant: Plant, op: string): number {
  return plant[op] ?? plant[EVERY_OP] ?? 0;
}

export const hasPlant = (plant: Plant | undefined): plant is Plant => plant !== undefined && Object.values(plant).some((us) => us > 0);

/** The text a plant travels in (an argument, an environment variable). */
export function plantText(plant: Plant): string {
  return Object.entries(plant)
    .map(([op, us]) => `${op}=${us}`)
    .join(",");
}

/** Reads plantText's form back; anything else is refused, naming what is wrong. */
export function readPlant(text: string | undefined): Plant {
  const out: Record<string, number> = {};
  for (const item of (text ?? "").split(",").filter(Boolean)) {
    const [op, us, extra] = item.split("=");
    if (extra !== undefined || !isPlantKey(op) || !/^\d+$/.test(us ?? ""))
      throw new Error(`a plant is op=microseconds pairs with ops ${[EVERY_OP, ...PLANT_OPS].join(", ")}, got "${item}"`);
    out[op] = Number(us);
  }
  return out;
}

/** The plant in words: "500 us in every action", "500 us in write". */
export function plantWords(plant: Plant): string {
  return Object.entries(plant)
    .filter(([, us]) => us > 0)
    .map(([op, us]) => `${us} us in ${op === EVERY_OP ? "every action" : op}`)
    .join(", ");
}

/** The Durable Object's timer for a planted delay: whole milliseconds, rounded up, so it is never shorter than asked. */
export const durableObjectPlantMs = (us: number) => Math.ceil(us / 1000);
