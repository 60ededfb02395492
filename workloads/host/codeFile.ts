/** Run by `npm run build`: dist/code.json names the commit the build came from, for machines without the checkout. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./paths";
import { CODE_FILE, codeProvenance } from "./versions";

const { commit, dirty } = codeProvenance();
writeFileSync(join(repoRoot(), "dist", CODE_FILE), `${JSON.stringify({ commit, dirty })}\n`);
