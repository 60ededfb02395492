/**
 * One dependency direction between the top-level folders:
 * index.ts -> stacks -> components -> workloads -> cluster -> analysis.
 * A file may import its own folder or one after it, never one before it, so
 * no two folders import each other; production code never imports test/.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const LAYERS = ["index.ts", "stacks", "components", "workloads", "cluster", "analysis"] as const;
const ROOT = resolve(__dirname, "..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "node_modules" ? [] : sources(p);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [p] : [];
  });
}

/** Relative module names a file imports: static imports and exports, import(), require(). */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const re of [/\bfrom\s+"(\.{1,2}\/[^"]+)"/g, /\bimport\s+"(\.{1,2}\/[^"]+)"/g, /\b(?:require|import)\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g]) {
    for (const m of text.matchAll(re)) out.push(m[1]);
  }
  return out;
}

const top = (file: string) => relative(ROOT, file).split("/")[0];

/** Every import that goes against the direction, as "<file> -> <target>". */
export function violations(): string[] {
  const out: string[] = [];
  for (const layer of LAYERS) {
    const files = layer.endsWith(".ts") ? [join(ROOT, layer)] : sources(join(ROOT, layer));
    for (const file of files) {
      for (const mod of importsOf(readFileSync(file, "utf8"))) {
        const target = top(resolve(dirname(file), mod));
        const from = LAYERS.indexOf(layer);
        const to = LAYERS.findIndex((l) => l === target || l === `${target}.ts`);
        if (target === "test" || to < from) out.push(`${relative(ROOT, file)} -> ${relative(ROOT, resolve(dirname(file), mod))}`);
      }
    }
  }
  return out;
}

describe("folder layering", () => {
  it("no folder imports one before it in index.ts -> stacks -> components -> workloads -> cluster -> analysis, nor test/", () => {
    expect(violations()).toEqual([]);
  });
  it("the check sees static, type, dynamic and require imports", () => {
    expect(importsOf('import { a } from "../x";\nimport type { B } from "./y";\nconst c = require("../../z");\nawait import("./w");\nimport "./side";')).toEqual(["../x", "./y", "./side", "../../z", "./w"]);
  });
});
