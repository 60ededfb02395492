/**
 * A run page's script (bundled by `npm run build` into dist/site/run.js): draws
 * every chart from the specs the page carries, with vega-embed (loaded before
 * it), and switches the tables between each side's own clock and one clock.
 */
declare function vegaEmbed(el: string, spec: unknown, opts: { renderer: "svg"; actions: boolean }): Promise<unknown>;

interface PageChart {
  name: string;
  spec: unknown;
}

function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el;
}

const specs = JSON.parse(byId("charts").textContent ?? "[]") as PageChart[];
Promise.all(
  specs.map((c) =>
    vegaEmbed(`#chart-${c.name}`, c.spec, { renderer: "svg", actions: false }).then(() =>
      byId(`chart-${c.name}`).setAttribute("data-rendered", "yes"),
    ),
  ),
).then(
  () => document.body.setAttribute("data-charts", "rendered"),
  (e: Error) => document.body.setAttribute("data-charts", `failed: ${e.message}`),
);

for (const input of Array.from(document.querySelectorAll<HTMLInputElement>('input[name="clock"]'))) {
  input.addEventListener("change", () => {
    byId("clock-own").hidden = input.value !== "own";
    byId("clock-same").hidden = input.value !== "same";
  });
}
