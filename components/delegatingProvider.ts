import type * as pulumi from "@pulumi/pulumi";

/**
 * A dynamic provider that delegates every call to the compiled module
 * dist/components/providers/<name>.js. Pulumi serializes the provider by
 * closure; keeping the real code out of the closure (a `require` inside each
 * call) means the serialized text is small and the provider host, which has
 * no TypeScript loader and resolves from its cwd (the project directory),
 * runs the same compiled code as `npm start`.
 */
export function delegatingProvider(name: string): pulumi.dynamic.ResourceProvider {
  const builtDir = __dirname;
  const load = () => {
    const path = require("node:path");
    const fs = require("node:fs");
    const candidates = [
      path.join(process.cwd(), "dist", "components", "providers", `${name}.js`),
      path.join(builtDir, "providers", `${name}.js`),
    ];
    const found = candidates.find((p: string) => fs.existsSync(p));
    if (!found)
      throw new Error(
        `the ${name} provider is not built (looked for ${candidates.join(", ")}): run \`npm run build\` in the project directory`,
      );
    return require(found);
  };
  return {
    check: (olds, news) => load().check(olds, news),
    diff: (id, olds, news) => load().diff(id, olds, news),
    create: (inputs) => load().create(inputs),
    // Only a provider whose diff reports a change without a replace is ever asked to update.
    update: (id, olds, news) => load().update(id, olds, news),
    read: (id, props) => load().read(id, props),
    delete: (id, props) => load().remove(id, props),
  };
}

/** A dynamic resource's props: its inputs, plus each output name set to undefined so Pulumi registers it. */
export function withOutputs<A extends object>(args: A, outputs: readonly string[]): Record<string, unknown> {
  return { ...args, ...Object.fromEntries(outputs.map((k) => [k, undefined])) };
}
