// The pack is compiled with the project (`npm run build`): this file only loads it, so the
// Pulumi CLI needs no TypeScript loader and @pulumi/policy resolves from the project's node_modules.
require("../dist/policy/pack.js");
