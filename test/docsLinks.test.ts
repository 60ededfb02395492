/** The README is the front door: short, and every relative link in it and in docs/ leads somewhere. */
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..");
const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");
const anchorsOf = (text: string) =>
  new Set(
    text
      .split("\n")
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => slug(l.replace(/^#+ /, ""))),
  );
/** Links outside code blocks and code spans. */
function linksOf(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
}

describe("the README and docs/", () => {
  it("the README stays a front door: at most 12,000 bytes, both commands and the headline table in its first 60 lines", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12_000);
    const top = readme.split("\n").slice(0, 60).join("\n");
    expect(top).toContain("npm start");
    expect(top).toContain("pulumi up");
    expect(top).toMatch(/^\| Metric \|/m);
    for (const head of readme.split("\n").filter((l, i, all) => l.startsWith("|") && all[i + 1]?.startsWith("|---")))
      expect(head.split("|").length - 2, head).toBeLessThanOrEqual(6);
  });

  it("every source path the README and docs/ name in a code span exists (a moved file leaves no stale name)", () => {
    const stale: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), "utf8");
      for (const m of text.matchAll(/`((?:workloads|analysis|components|stacks|cluster|test)\/[A-Za-z0-9_./-]*)`/g)) {
        const path = m[1].replace(/\/$/, "");
        if (!existsSync(join(ROOT, path)) && !existsSync(join(ROOT, `${path}.ts`))) stale.push(`${page}: ${m[1]}`);
      }
    }
    expect(stale).toEqual([]);
  });

  for (const page of pages) {
    it(`every relative link of ${page} resolves, anchors included`, () => {
      const text = readFileSync(join(ROOT, page), "utf8");
      for (const link of linksOf(text)) {
        if (/^[a-z]+:/.test(link)) continue;
        const [path, anchor] = link.split("#");
        const target = path ? resolve(dirname(join(ROOT, page)), path) : join(ROOT, page);
        expect(existsSync(target), `${page}: ${link}`).toBe(true);
        if (anchor && statSync(target).isFile() && target.endsWith(".md"))
          expect(anchorsOf(readFileSync(target, "utf8")).has(anchor), `${page}: ${link}`).toBe(true);
      }
    });
  }
});
