/**
 * The comparison page's script (bundled by `npm run build` into
 * dist/site/compare.js): the runs picked (also `?runs=a,b` in the address),
 * compared by the same code as `npm run compare`.
 */
import { compareRows, notInBoth, VERDICT_TEXT, type CompareRow, type Interval, type StageStats } from "../../stats/compareRows";
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

const ci = (c: Interval) => `[${c.lo === null ? "-" : ms(c.lo)}, ${c.hi === null ? "-" : ms(c.hi)}]`;

const ratioCi = (c: Interval | null) => (c && c.lo !== null && c.hi !== null ? ` [${c.lo.toFixed(2)}, ${c.hi.toFixed(2)}]` : "");

function otherCells(r: CompareRow | undefined): string {
  if (!r) return "<td>-</td><td>-</td><td>-</td>";
  return `<td>${ms(r.b)} ${ci(r.bCi)} (${r.nB}, ${r.kB} rep.)</td><td data-ratio>${r.ratio === null ? "-" : r.ratio.toFixed(2)}${ratioCi(r.ratioCi)}</td><td class='${r.verdict === "different" ? "no" : "yes"}' data-verdict='${r.verdict}'>${VERDICT_TEXT[r.verdict]}</td>`;
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
  const head = `<tr><th>stage</th><th>q</th><th>${escapeHtml(base.id)} ms [95% CI] (n)</th>${others.map((o) => `<th>${escapeHtml(o.run.id)} ms [95% CI] (n)</th><th>ratio to base [95% over repetitions]</th><th>verdict</th>`).join("")}</tr>`;
  const body = others[0].rows
    .map((row) => {
      const cells = `<td>${escapeHtml(row.key)}</td><td>${row.q}</td><td>${ms(row.a)} ${ci(row.aCi)} (${row.nA}, ${row.kA} rep.)</td>` + others.map((o) => otherCells(o.rows.find((x) => x.key === row.key && x.q === row.q))).join("");
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
