import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { marked } from "marked";
import { describe, expect, it } from "vitest";
import { generateReport } from "../analysis/report/report";
import { md as siteMarkdown } from "../analysis/report/site";
import { hostileRun } from "./fixtures";

describe("a hostile run directory in results.md (every hash matches, every printed string is HTML, backticks, pipes and a newline)", () => {
  it("no string of the run becomes markup, a heading, a table cell or a link, even with a renderer that passes HTML", async () => {
    const { markdown } = await generateReport(hostileRun(mkdtempSync(join(tmpdir(), "ab-hostile-"))));
    expect(markdown.split("\n").filter((l) => l.startsWith("# forged"))).toEqual([]);
    // A plain Markdown renderer (raw HTML passed through, as a code host's preview may): nothing of the run is an element.
    const html = marked.parse(markdown, { async: false, gfm: true }) as string;
    // (The report's own chart images are the only <img> elements.)
    expect(html).not.toMatch(/<script|<img(?! src="charts\/)|<a [^>]*href="javascript/i);
    expect((html.match(/<h1/g) ?? []).length).toBe(1);
    expect(html).not.toMatch(/<h[1-6][^>]*>[^<]*forged/);
    // Every table row has as many cells as its header.
    for (const table of markdown.split("\n\n").filter((b) => b.startsWith("| "))) {
      const lines = table.split("\n").filter((l) => l.startsWith("|"));
      const width = (l: string) => l.replace(/\\\|/g, "").split("|").length;
      for (const l of lines) expect(width(l), l).toBe(width(lines[0]));
    }
  });

  it("the site's renderer shows raw HTML as text even where it reaches the Markdown", () => {
    const html = siteMarkdown('a <script>window.x=1</script> b\n\n<div onclick="y()">block</div>\n');
    expect(html).not.toMatch(/<script|<div/);
    expect(html).toContain("&lt;script&gt;window.x=1&lt;/script&gt;");
  });
});
