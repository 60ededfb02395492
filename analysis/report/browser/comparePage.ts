/**
 * The comparison page's script (bundled by `npm run build` into
 * dist/site/compare.js): the runs picked (also `?runs=a,b` in the address),
 * compared by the same model as `npm run compare` (comparison.ts): the arms
 * of an A/B session paired, the warnings, the rows and the capacity.
 */
import { bracket, notInBoth, POWER, verdictText, type CompareRow } from "../../stats/compareRows";
import { comparison, defaultPair, type ComparedRun, type Comparison } from "../comparison";
import { ms, rateHeld } from "../format";
import { escapeHtml } from "../html";

type PageRun = ComparedRun & { id: string; label: string };

const runsEl = document.getElementById("stats");
const runs = JSON.parse(runsEl?.textContent ?? "[]") as PageRun[];
const boxes = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="run"]'));
const asked = (new URLSearchParams(location.search).get("runs") ?? "").split(",").filter(Boolean);
let order = asked.length > 0 ? asked : defaultPair(runs);

const ratio = (x: number | null) => (x === null ? "-" : x.toFixed(2));

function otherCells(r: CompareRow | undefined): string {
  if (!r) return "<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>";
  return (
    `<td>${ms(r.b)} (${r.nB}, ${r.kB} rep.)</td><td data-ratio>${ratio(r.ratio)}</td><td>${bracket(r.ratioCi) || "-"}</td><td>${r.detectable === null ? "-" : ratio(r.detectable)}</td>` +
    `<td class='${r.verdict === "different" ? "no" : "yes"}' data-verdict='${r.verdict}'>${escapeHtml(verdictText(r))}</td>`
  );
}

/** What each comparison against the base says before its rows: paired or not, and its warnings. */
function preamble(base: PageRun, others: Array<{ run: PageRun; c: Comparison }>): string {
  return others
    .map(({ run, c }) => {
      const how = c.paired ? `paired: the two arms of one interleaved session (${escapeHtml(c.order!.join(" "))})` : "unpaired (Welch)";
      const warn = c.warnings.length ? `<ul class='warnings'>${c.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul>` : "";
      return `<p data-pairing='${c.paired ? "paired" : "unpaired"}'><b>${escapeHtml(run.id)}</b> against <b>${escapeHtml(base.id)}</b>: ${how}.</p>${warn}`;
    })
    .join("\n");
}

function capacityTable(base: PageRun, others: Array<{ run: PageRun; c: Comparison }>): string {
  const rows = others.flatMap(({ run, c }) =>
    c.capacity.map(
      (r) =>
        `<tr><td>${escapeHtml(r.key)}</td><td>${escapeHtml(run.id)}</td><td>${r.a ? escapeHtml(rateHeld(r.a)) : "-"}</td><td>${r.b ? escapeHtml(rateHeld(r.b)) : "-"}</td><td>${escapeHtml(r.verdict)}</td></tr>`,
    ),
  );
  if (rows.length === 0) return "";
  return `<h2>Capacity</h2><p>The rate held [95% interval] in each run, and whether the intervals overlap (agreement within the stated intervals, not a test).</p><table id='capacity-table'><thead><tr><th>side and operation</th><th>run</th><th>${escapeHtml(base.id)}</th><th>that run</th><th>verdict</th></tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

function draw(): void {
  const out = document.getElementById("comparison");
  if (!out) return;
  const picked = order.map((id) => runs.find((r) => r.id === id)).filter((r): r is PageRun => r !== undefined);
  if (picked.length < 2) {
    out.innerHTML = "<p>Pick at least two runs.</p>";
    return;
  }
  const [base, ...rest] = picked;
  const others = rest.map((run) => ({ run, c: comparison(base, run) }));
  const head = `<tr><th>stage</th><th>q</th><th>${escapeHtml(base.id)} ms (n)</th>${others.map((o) => `<th>${escapeHtml(o.run.id)} ms (n)</th><th>ratio to base</th><th>95% interval</th><th>detectable at ${POWER * 100}% power</th><th>verdict</th>`).join("")}</tr>`;
  const body = others[0].c.rows
    .map((row) => {
      const cells = `<td>${escapeHtml(row.key)}</td><td>${row.q}</td><td>${ms(row.a)} (${row.nA}, ${row.kA} rep.)</td>${others.map((o) => otherCells(o.c.rows.find((x) => x.key === row.key && x.q === row.q))).join("")}`;
      return `<tr data-key='${escapeHtml(`${row.key} ${row.q}`)}'>${cells}</tr>`;
    })
    .join("\n");
  const missing = others.flatMap((o) =>
    notInBoth(base.stats, o.run.stats).map((k) =>
      k.replace("(A only)", `(only in ${base.id})`).replace("(B only)", `(only in ${o.run.id})`),
    ),
  );
  out.innerHTML =
    preamble(base, others) +
    `<table id='comparison-table'><thead>${head}</thead><tbody>${body}</tbody></table>` +
    (missing.length ? `<p>Not in every run: ${escapeHtml(missing.join(", "))}</p>` : "") +
    capacityTable(base, others);
}

for (const box of boxes) {
  box.checked = order.includes(box.value);
  box.addEventListener("change", () => {
    order = order.filter((id) => id !== box.value);
    if (box.checked) order.push(box.value);
    draw();
  });
}
draw();
document.body.setAttribute("data-compare", "drawn");
