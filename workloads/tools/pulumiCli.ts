/**
 * The real Pulumi CLI, built here from its Go modules: the CLI itself
 * (tools/pulumi, a main module that pins pkg/v3 and sdk/v3), its Node language
 * host (third_party/pulumi-language-nodejs, which the Go module proxy does not
 * serve) and the dynamic-provider plugin script that ships in the sdk/v3
 * module. Built once into a cache folder outside the checkout (so every clone
 * on the machine shares it), keyed by what it is built from; a second call
 * reuses it. `npm run pulumi:cli` prints the folder and `pulumi version`.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The three programs a `runtime: nodejs` project of dynamic resources needs, all in one folder on PATH. */
export const CLI_PROGRAMS = ["pulumi", "pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"] as const;

export class CliBuildError extends Error {}

const CLI_MODULE = "tools/pulumi";
const HOST_MODULE = "third_party/pulumi-language-nodejs";
const PKG = "github.com/pulumi/pulumi/pkg/v3";
const SDK = "github.com/pulumi/pulumi/sdk/v3";

/** The version a go.mod requires of a module ("" when it requires none). */
export function requiredVersion(goMod: string, module: string): string {
  const m = goMod.match(new RegExp(`^\\s*(?:require\\s+)?${module.replace(/[.]/g, "\\.")}\\s+(v\\S+)`, "m"));
  return m ? m[1] : "";
}

/**
 * The CLI's version: the one tools/pulumi/go.mod pins (the one place it is
 * written). The language host must be built against the same pkg and sdk: its
 * source compiles against v3.260.0 and not against later releases.
 */
export function cliVersion(projectDir: string): string {
  const cli = readFileSync(join(projectDir, CLI_MODULE, "go.mod"), "utf8");
  const host = readFileSync(join(projectDir, HOST_MODULE, "go.mod"), "utf8");
  const v = requiredVersion(cli, PKG);
  if (!v || requiredVersion(cli, SDK) !== v)
    throw new CliBuildError(`${CLI_MODULE}/go.mod: pin ${PKG} and ${SDK} at one version (found ${v || "none"})`);
  for (const m of [PKG, SDK])
    if (requiredVersion(host, m) !== v)
      throw new CliBuildError(
        `${HOST_MODULE}/go.mod requires ${m} ${requiredVersion(host, m) || "(none)"}; the CLI is ${v}: pin both at one version`,
      );
  return v;
}

/** A digest of what the build reads: both modules' go.mod and go.sum and the language host's Go files. */
function buildKey(projectDir: string): string {
  const h = createHash("sha256");
  for (const dir of [CLI_MODULE, HOST_MODULE]) {
    for (const f of readdirSync(join(projectDir, dir)).sort()) {
      if (/^go\.(mod|sum)$|\.go$/.test(f)) h.update(`${dir}/${f}\0`).update(readFileSync(join(projectDir, dir, f)));
    }
  }
  return h.digest("hex").slice(0, 16);
}

/** The machine's cache folder for built tools (XDG_CACHE_HOME, else ~/.cache). */
const cacheRoot = () => resolve(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "actor-bench", "pulumi");

/** Where this checkout's CLI is (or will be) built: one folder per version and build key. */
export function cliBinDir(projectDir: string): string {
  return join(cacheRoot(), `${cliVersion(projectDir)}-${buildKey(projectDir)}`, "bin");
}

const built = (bin: string) => CLI_PROGRAMS.every((p) => existsSync(join(bin, p)));

function run(cmd: string, args: string[], cwd: string, what: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.error) throw new CliBuildError(`${what}: ${r.error.message}`);
  if (r.status !== 0)
    throw new CliBuildError(`${what} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().split("\n").slice(-5).join(" | ")}`);
  return r.stdout;
}

/**
 * Builds the three programs into the cache, unless they are there already.
 * Returns the folder. Without Go on PATH, one line says what to install.
 */
export function ensureCli(projectDir: string, log: (line: string) => void = () => {}): string {
  const bin = cliBinDir(projectDir);
  if (built(bin)) return bin;
  const go = spawnSync("go", ["version"], { encoding: "utf8" });
  if (go.error || go.status !== 0)
    throw new CliBuildError(
      "go is not on PATH: the Pulumi CLI is built from its Go modules; install Go 1.26 (e.g. from your distribution) and run `npm run pulumi:cli` again",
    );
  const version = cliVersion(projectDir);
  const tmp = `${bin}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    log(`building the Pulumi CLI ${version} from its Go modules (a few minutes the first time on a machine) ...`);
    const ldflags = `-X ${SDK}/go/common/version.Version=${version}`;
    run(
      "go",
      ["build", "-ldflags", ldflags, "-o", join(tmp, "pulumi"), `${PKG}/cmd/pulumi`],
      join(projectDir, CLI_MODULE),
      "go build (the CLI)",
    );
    log("building its Node language host ...");
    run(
      "go",
      ["build", "-o", join(tmp, "pulumi-language-nodejs"), "."],
      join(projectDir, HOST_MODULE),
      "go build (the Node language host)",
    );
    // The dynamic-provider plugin is a script inside the sdk module: copied from Go's module cache.
    const info = JSON.parse(
      run("go", ["mod", "download", "-json", `${SDK}@${version}`], join(projectDir, CLI_MODULE), "go mod download"),
    ) as {
      Dir?: string;
    };
    const script = join(info.Dir ?? "", "nodejs", "dist", "pulumi-resource-pulumi-nodejs");
    if (!existsSync(script)) throw new CliBuildError(`${SDK}@${version} has no ${script}`);
    copyFileSync(script, join(tmp, "pulumi-resource-pulumi-nodejs"));
    chmodSync(join(tmp, "pulumi-resource-pulumi-nodejs"), 0o755);
    writeFileSync(join(tmp, "BUILT"), `${version} ${new Date().toISOString()}\n`);
    rmSync(bin, { recursive: true, force: true });
    renameSync(tmp, bin);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return bin;
}

/**
 * The folder of a usable CLI without building one: this checkout's built one,
 * else null. `check:pulumi` refuses with how to build it.
 */
export function builtCli(projectDir: string): string | null {
  const bin = cliBinDir(projectDir);
  return built(bin) ? bin : null;
}

if (require.main === module) {
  const projectDir = resolve(__dirname, "..", "..", "..");
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(
      "usage: npm run pulumi:cli\n  builds the Pulumi CLI, its Node language host and the dynamic-provider plugin from their Go modules into the machine's cache (reused once built), then prints the folder and `pulumi version`",
    );
    process.exit(0);
  }
  if (args.length > 0) {
    console.error(`pulumi:cli: unknown argument ${JSON.stringify(args[0])}; it takes none (see --help)`);
    process.exit(2);
  }
  try {
    const t0 = Date.now();
    const bin = ensureCli(projectDir, (l) => console.error(l));
    const v = spawnSync(join(bin, "pulumi"), ["version"], { encoding: "utf8" }).stdout.trim();
    console.log(`${bin}\npulumi ${v} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (err) {
    if (!(err instanceof CliBuildError)) throw err;
    console.error(`pulumi:cli: ${err.message}`);
    process.exit(1);
  }
}
