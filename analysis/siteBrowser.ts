// What the site's pages run in the browser (bundled by `npm run build` as the global actorBench): the same comparison and formatting code as `npm run compare`.
export { compareRows, notInBoth } from "./compareRows";
export { ms } from "./format";
