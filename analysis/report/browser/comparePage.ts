/**
 * The comparison page's script (bundled by `npm run build` into
 * dist/site/compare.js): the runs picked (also `?runs=a,b` in the address),
 * compared by the same code as `npm run compare`.
 */
import { compareRows, notInBoth, POWER, verdictText, type CompareRow, type StageStats } from "../../stats/compareRows";
import { ms } from "../format";
import { escapeHtml } from "../html";

interface PageRun {
  id: string;
  label: string;
  stats: Record<string, StageStats>;
}

const runsEl = document.getElementById("stats");
const runs = JSON.parse(runsEl?.textContent ?? "[]") as PageRun[];
const boxes = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="run"]'));
const asked = (new URLSearchParams(location.search).get("runs") ?? "").split(",").filter(Boolean);
let order = asked.length > 0 ? asked : runs.slice(0, 2).map((r) => r.id);

const ratio = (x: number | null) => (x === null ? "-" : x.toFixed(2));

function otherCells(r: CompareRow | undefined): string {
  if (!r) return "<td>-</td><td>-</td><td>-</td><td>-</td>";
  return `<td>${ms(r.b)} (${r.nB}, ${r.kB} rep.)</td><td data-ratio>${ratio(r.ratio)}</td><td>${r.detectable === null ? "-" : ratio(r.detectable)}</td><td class='${r.verdict === "different" ? "no" : "yes"}' data-verdict='${r.verdict}'>${escapeHtml(verdictText(r))}</td>`;
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
  const others = rest.map((run) => ({ run, rows: compareRows(base.stats, run.stats) }));
  const head = `<tr><th>stage</th><th>q</th><th>${escapeHtml(base.id)} ms (n)</th>${others.map((o) => `<th>${escapeHtml(o.run.id)} ms (n)</th><th>ratio to base</th><th>detectable at ${POWER * 100}% power</th><th>verdict</th>`).join("")}</tr>`;
  const body = others[0].rows
    .map((row) => {
      const cells = `<td>${escapeHtml(row.key)}</td><td>${row.q}</td><td>${ms(row.a)} (${row.nA}, ${row.kA} rep.)</td>` + others.map((o) => otherCells(o.rows.find((x) => x.key === row.key && x.q === row.q))).join("");
      return `<tr data-key='${escapeHtml(`${row.key} ${row.q}`)}'>${cells}</tr>`;
    })
    .join("\n");
  const missing = others.flatMap((o) => notInBoth(base.stats, o.run.stats).map((k) => k.replace("(A only)", `(only in ${base.id})`).replace("(B only)", `(only in ${o.run.id})`)));
  out.innerHTML = `<table id='comparison-table'><thead>${head}</thead><tbody>${body}</tbody></table>` + (missing.length ? `<p>Not in every run: ${escapeHtml(missing.join(", "))}</p>` : "");
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
