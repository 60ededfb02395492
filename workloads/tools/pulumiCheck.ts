/**
 * `npm run check:pulumi`: a user's whole session with the real Pulumi CLI on
 * the local stack, each step as a user types it and its output checked. Runs
 * in a scratch copy of the project (pulumiSession.ts); `--short` is the form
 * CI runs (init, config, preview, one quick `up`, outputs, a second `up`,
 * policy, destroy, stack rm).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { builtCli, cliVersion } from "./pulumiCli";
import { daemonPids, runIds, Session, type CliResult } from "./pulumiSession";
import { groupMembers } from "../run/daemons";
import { unfinishedRuns } from "../experiment/interrupted";
import { verifyRunDir } from "../../analysis/contract/verify";

class CheckFailed extends Error {}

function expectThat(ok: boolean, what: string, r?: CliResult): void {
  if (!ok) throw new CheckFailed(r ? `${what}; the CLI printed:\n${r.out.trim().split("\n").slice(-15).join("\n")}` : what);
}

/** A step the user takes and what the CLI must print: exit 0 unless `fails`. */
function typed(s: Session, args: string[], fails = false, input = ""): CliResult {
  const r = s.pulumi(args, input);
  expectThat(fails ? r.code !== 0 : r.code === 0, `pulumi ${args.join(" ")} ${fails ? "should fail" : `exited ${r.code}`}`, r);
  return r;
}

/** A program error reaches the user as its line: no "unhandled exception", no stack trace. */
function oneLineError(s: Session, key: string, value: string, message: RegExp): void {
  typed(s, ["config", "set", key, value]);
  const r = typed(s, ["preview"], true);
  expectThat(message.test(r.out), `preview with ${key}=${value} should print ${message}`, r);
  expectThat(!/unhandled exception|^\s+at .+:\d+:\d+\)?$/m.test(r.out), `preview with ${key}=${value} printed a stack trace`, r);
  typed(s, ["config", "rm", key]);
}

const LOCAL_TYPES = ["LocalSide", "BenchmarkRun", "BenchmarkReport"];

/** Every run folder under the stack's blobs (<state>/blobs/<side.group>/<stack>/<runId>). */
function blobRuns(s: Session, stack: string): string[] {
  const blobs = join(s.project, ".actor-bench", stack, "blobs");
  if (!existsSync(blobs)) return [];
  return readdirSync(blobs).flatMap((g) => {
    const d = join(blobs, g, stack);
    return existsSync(d)
      ? readdirSync(d)
          .filter((r) => !r.startsWith("result-"))
          .map((r) => join(d, r))
      : [];
  });
}
const unfinished = (s: Session, stack: string) =>
  readdirSync(join(s.project, ".actor-bench", stack, "blobs")).flatMap((g) =>
    unfinishedRuns(join(s.project, ".actor-bench", stack, "blobs", g, stack)),
  );

/**
 * Pulumi's Node language host with no child left: after a cancelled `up` the CLI exits without stopping it, and it
 * ends only when its health check (every 5 minutes) finds the CLI gone (pulumi/pulumi#8696). It holds nothing of ours.
 */
function idleLanguageHost(pid: number): boolean {
  try {
    const exe = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
    const children = readdirSync(`/proc/${pid}/task`).flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean),
    );
    return exe.endsWith("/pulumi-language-nodejs") && children.length === 0;
  } catch {
    return false;
  }
}

/** Processes the session left that are not a running side's daemon (or its runtime's children), nor Pulumi's idle language host. */
function strays(s: Session): number[] {
  const daemons = new Set(daemonPids(s.exported().deployment.resources).flatMap((p) => [p, ...groupMembers(p)]));
  return s.processes().filter((p) => !daemons.has(p) && !idleLanguageHost(p));
}

/** Ends the idle language hosts a cancelled `up` left (SIGINT, which they handle), naming them; returns how many. */
async function endLanguageHosts(s: Session, log: (line: string) => void): Promise<number> {
  const hosts = s.processes().filter(idleLanguageHost);
  if (hosts.length > 0) log(`    the CLI left its idle language host running (pid ${hosts.join(", ")}): Pulumi's, ended with SIGINT`);
  for (const p of hosts) process.kill(p, "SIGINT");
  for (let i = 0; i < 100 && hosts.some((p) => existsSync(`/proc/${p}`)); i++) await new Promise((r) => setTimeout(r, 100));
  return hosts.length;
}

/** Each pid with its command line, for a failure message. */
const named = (pids: number[]) =>
  pids
    .map((p) => {
      try {
        return `${p} (${readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").join(" ").trim().slice(0, 120)})`;
      } catch {
        return `${p} (gone)`;
      }
    })
    .join(", ");

async function settle(s: Session): Promise<number[]> {
  for (let i = 0; i < 100 && strays(s).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  return strays(s);
}

function initAndPreview(s: Session): void {
  typed(s, ["stack", "init", "local"]);
  typed(s, ["config", "set", "actor-bench:preset", "quick"]);
  typed(s, ["config", "set", "actor-bench:groups", "warm"]);
  // A value of the wrong type: refused by the CLI against Pulumi.yaml's declared type, before the program runs.
  typed(s, ["config", "set", "actor-bench:wakeIdleMs", "10s"]);
  const bad = typed(s, ["preview"], true);
  expectThat(/configuration key 'wakeIdleMs' must be of type 'integer'/.test(bad.out), "the CLI should refuse wakeIdleMs=10s", bad);
  typed(s, ["config", "rm", "actor-bench:wakeIdleMs"]);
  oneLineError(s, "actor-bench:presets", "quick", /error: unknown config key actor-bench:presets; known keys: preset,/);
  oneLineError(
    s,
    "actor-bench:region",
    "westus",
    /error: config actor-bench:region: "westus" is not allowed; it applies to actor-bench:target azure only/,
  );
  const plan = JSON.parse(typed(s, ["preview", "--json"]).out) as { steps: Array<{ op: string; urn: string }> };
  const planned = plan.steps.map((st) => st.urn.split("::").at(-1)!).sort();
  expectThat(
    JSON.stringify(planned) ===
      JSON.stringify([
        "actor-bench-local",
        "local",
        "local-cloudflare",
        "local-cloudflare-warm",
        "local-report",
        "local-rivet",
        "local-rivet-warm",
      ]),
    `preview should plan the stack, the component, two sides, two runs and the report; planned ${planned.join(", ")}`,
  );
  expectThat(
    plan.steps.every((st) => st.op === "create"),
    "a new stack's preview should create every resource",
  );
  for (const t of LOCAL_TYPES)
    expectThat(
      plan.steps.some((st) => st.urn.includes(`actor-bench:${t}`)),
      `preview should plan a ${t}`,
    );
}

function upAndOutputs(s: Session): void {
  const up = typed(s, ["up", "--yes"]);
  expectThat(/\+ 7 created/.test(up.out), "the first up should create 7 resources", up);
  expectThat(!/Undefined value|will not show as a stack output/.test(up.out), "up should export no undefined output", up);
  const runDir = s.output("runDir");
  expectThat(
    runDir.startsWith(`${join(s.project, "results", "local")}/`),
    `runDir ${runDir} should be under results/local/ of the project`,
  );
  verifyRunDir(runDir);
  const report = s.output("report");
  expectThat(report.startsWith("# actor-bench run "), "stack output report should print the report");
  expectThat(
    report === readFileSync(join(runDir, "report", "results.md"), "utf8").trim(),
    "the report output should be the run's results.md",
  );
  const before = readdirSync(join(s.project, "results", "local"));
  const again = typed(s, ["up", "--yes"]);
  expectThat(
    /7 unchanged/.test(again.out) && !/created|updated|replaced/.test(again.out.split("Resources:")[1] ?? ""),
    "a second up should change nothing",
    again,
  );
  expectThat(
    JSON.stringify(readdirSync(join(s.project, "results", "local"))) === JSON.stringify(before),
    "a second up should measure nothing",
  );
}

function noPlainSecrets(s: Session): void {
  const plain = JSON.stringify(s.exported());
  const shown = s.exported(true);
  const secrets: string[] = [];
  const strings = (v: unknown): void => {
    if (typeof v === "string" && v.length >= 8) secrets.push(v);
    else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x);
  };
  // A secret in a decrypted export: {<sig key>: <secret sig>, plaintext: <the value as JSON>}.
  const walk = (v: unknown): void => {
    if (!v || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (o["4dabf18193072939515e22adb298388d"] === "1b47061264138c4ac30d75fd1eb44270" && typeof o.plaintext === "string")
      strings(JSON.parse(o.plaintext));
    else for (const x of Object.values(o)) walk(x);
  };
  walk(shown);
  expectThat(secrets.length > 0, "the state should hold the sides' secrets as secrets");
  for (const v of secrets) expectThat(!plain.includes(v), "pulumi stack export shows a secret in plain text");
}

function policyPasses(s: Session): void {
  const r = typed(s, ["preview", "--policy-pack", "policy"]);
  expectThat(/Policies:/.test(r.out) && /actor-bench/.test(r.out), "preview --policy-pack policy should run the pack", r);
  expectThat(!/mandatory|violation/i.test(r.out), "the local stack should pass the policy pack", r);
}

function changedKeyRerunsRuns(s: Session): void {
  const before = s.exported().deployment.resources ?? [];
  const sides = () =>
    (s.exported().deployment.resources ?? [])
      .filter((r) => r.type.endsWith(":LocalSide"))
      .map((r) => r.id)
      .sort();
  const sideIds = sides();
  typed(s, ["config", "set", "actor-bench:requestTimeoutMs", "20000"]);
  const up = typed(s, ["up", "--yes"]);
  expectThat(
    JSON.stringify(sides()) === JSON.stringify(sideIds),
    `a changed run key should leave the runtimes running (sides ${sideIds.join(", ")} became ${sides().join(", ")})`,
    up,
  );
  const was = runIds(before);
  const now = runIds(s.exported().deployment.resources);
  for (const name of Object.keys(was)) expectThat(now[name] !== undefined && now[name] !== was[name], `${name} should be measured again`);
}

/** Waits until a run is being written, then sends SIGINT `times` times to the `up`, as Ctrl-C does. */
async function interruptedUp(s: Session, times: number, whileRunning = () => {}): Promise<CliResult> {
  const up = s.start(["up", "--yes"]);
  const t0 = Date.now();
  while (unfinished(s, "local").length === 0 && Date.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 200));
  expectThat(unfinished(s, "local").length > 0, "the up should start a run within 120 s");
  whileRunning();
  for (let i = 0; i < times; i++) {
    up.interrupt();
    await new Promise((r) => setTimeout(r, 1500));
  }
  return up.done;
}

async function sigintOnce(s: Session): Promise<void> {
  typed(s, ["config", "set", "actor-bench:groups", "wake"]);
  // A destroy while the up measures: refused by the stack's lock, the run in flight untouched.
  const r = await interruptedUp(s, 1, () => {
    const d = typed(s, ["destroy", "--yes"], true);
    expectThat(/the stack is currently locked/.test(d.out), "a destroy during an up should be refused by the stack's lock", d);
    expectThat(unfinished(s, "local").length === 1, "a refused destroy should leave the run in flight running");
  });
  expectThat(r.code !== 0 && /cancel/i.test(r.out), "one SIGINT should cancel the up", r);
  expectThat(unfinished(s, "local").length === 0, "one SIGINT should let the run in flight finish");
  expectThat((await settle(s)).length === 0, `the cancelled up left processes: ${named(strays(s))}`);
  const again = typed(s, ["up", "--yes"]);
  expectThat(!/left unfinished/.test(again.out), "after one SIGINT nothing was left unfinished", again);
  // The run that finished during the cancel is kept, not measured again: one run folder per wake group.
  const wake = blobRuns(s, "local").filter((d) => d.includes(".wake/"));
  expectThat(wake.length === 2, `the wake groups should hold one run each, found ${wake.length}: ${wake.join(", ")}`);
}

async function sigintTwice(s: Session): Promise<void> {
  typed(s, ["config", "set", "actor-bench:requestTimeoutMs", "25000"]);
  const r = await interruptedUp(s, 2);
  expectThat(r.code !== 0, "two SIGINTs should stop the up", r);
  expectThat((await settle(s)).length === 0, `the stopped up left processes: ${named(strays(s))}`);
  const left = unfinished(s, "local");
  expectThat(left.length === 1, `two SIGINTs should leave the run in flight unfinished (found ${left.length})`);
  const again = typed(s, ["up", "--yes"]);
  expectThat(
    again.out.includes(`run ${left[0].runId}`) && /left unfinished/.test(again.out),
    "the next up should name the interrupted run",
    again,
  );
  const m = verifyRunDir(left[0].dir) as { status: string; failure?: string };
  expectThat(m.status === "failed" && /^interrupted: /.test(m.failure ?? ""), `${left[0].dir} should be ended as interrupted`);
}

async function destroyAndRemove(s: Session): Promise<void> {
  const daemons = daemonPids(s.exported().deployment.resources).flatMap((p) => [p, ...groupMembers(p)]);
  expectThat(daemons.length >= 2, "the stack should hold both sides' daemons before destroy");
  const r = typed(s, ["destroy", "--yes"]);
  expectThat(/- 7 deleted/.test(r.out), "destroy should delete the 7 resources", r);
  const alive = daemons.filter((p) => existsSync(`/proc/${p}`) && !readFileSync(`/proc/${p}/stat`, "utf8").includes(") Z "));
  expectThat(alive.length === 0, `destroy returned with processes alive: ${alive.join(", ")}`);
  expectThat(s.processes().length === 0, `destroy left session processes: ${s.processes().join(", ")}`);
  typed(s, ["stack", "rm", "--yes", "local"]);
  const state = join(s.project, ".actor-bench");
  const files = existsSync(state) ? readdirSync(state, { recursive: true }) : [];
  expectThat(files.length === 0, `stack rm left files under .actor-bench: ${files.slice(0, 5).join(", ")}`);
  expectThat(!existsSync(join(s.project, "Pulumi.local.yaml")), "stack rm should remove the stack's config file");
}

function eastus2AsFarAsPlugins(s: Session): void {
  typed(s, ["stack", "init", "eastus2"]);
  const r = typed(s, ["preview"], true);
  expectThat(
    /error: config actor-bench:sshSourceAddress: "" is not allowed/.test(r.out),
    "eastus2 without sshSourceAddress should name it",
    r,
  );
  expectThat(!/unhandled exception/.test(r.out), "the eastus2 config error printed a stack trace", r);
  typed(s, ["config", "set", "actor-bench:sshSourceAddress", "203.0.113.7"]);
  typed(s, ["config", "set", "actor-bench:cloudflareAccountId", "0123456789abcdef0123456789abcdef"]);
  typed(s, ["config", "set", "actor-bench:cloudflareWorkersSubdomain", "bench-account"]);
  // The value on stdin, never in argv.
  typed(s, ["config", "set", "--secret", "actor-bench:cloudflareApiToken"], false, "not-a-real-token\n");
  const full = typed(s, ["preview"], true);
  expectThat(
    /azure-native/.test(full.out) && /plugin/i.test(full.out),
    "eastus2's preview should stop naming the azure-native plugin",
    full,
  );
  typed(s, ["stack", "rm", "--yes", "--force", "eastus2"]);
}

type Step = [name: string, run: (s: Session) => void | Promise<void>];
const SHORT: Step[] = [
  ["stack init, config set, refused keys and preview", initAndPreview],
  ["up, stack output report and runDir, a second up", upAndOutputs],
  ["preview --policy-pack policy", policyPasses],
];
const FULL: Step[] = [
  ...SHORT,
  ["no secret in plain text in stack export", noPlainSecrets],
  ["a changed run key re-runs the runs only", changedKeyRerunsRuns],
  ["a destroy during an up refused, the up interrupted by one SIGINT, then up", sigintOnce],
  ["up interrupted by two SIGINTs, then up", sigintTwice],
];
const END: Step[] = [
  ["destroy and stack rm", destroyAndRemove],
  ["eastus2 preview as far as the missing plugins let it", eastus2AsFarAsPlugins],
];

/** Runs the session's steps, printing each with its time; stops at the first that fails. */
export async function runCheck(projectDir: string, cliBin: string, short: boolean, log = console.log): Promise<void> {
  const s = new Session(projectDir, cliBin);
  const version = typed(s, ["version"]).out.trim();
  expectThat(version === cliVersion(projectDir), `pulumi version printed ${version}, expected ${cliVersion(projectDir)}`);
  log(`pulumi ${version} in ${s.project}`);
  const t0 = Date.now();
  try {
    for (const [name, run] of [...(short ? SHORT : FULL), ...END]) {
      const t = Date.now();
      await run(s);
      log(`ok  ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
      await endLanguageHosts(s, log);
    }
  } finally {
    if (s.processes().length > 0) s.pulumi(["destroy", "--yes", "--stack", "local"]);
    await endLanguageHosts(s, log);
  }
  log(`check:pulumi passed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  rmSync(s.root, { recursive: true, force: true });
}

if (require.main === module) {
  const projectDir = resolve(__dirname, "..", "..", "..");
  const args = process.argv.slice(2);
  if (args.includes("--help")) {
    console.log(
      "usage: npm run check:pulumi [-- --short]\n  a user's session with the real Pulumi CLI on the local stack, in a scratch copy of the project",
    );
    process.exit(0);
  }
  const unknown = args.find((a) => a !== "--short");
  if (unknown) {
    console.error(`check:pulumi: unknown flag ${unknown}; it takes --short (see --help)`);
    process.exit(2);
  }
  const bin = builtCli(projectDir);
  if (!bin) {
    console.error("check:pulumi: no Pulumi CLI built for this checkout; build it with `npm run pulumi:cli` (a few minutes the first time)");
    process.exit(1);
  }
  runCheck(projectDir, bin, args.includes("--short")).catch((err: unknown) => {
    console.error(`check:pulumi: ${err instanceof CheckFailed ? err.message : err instanceof Error ? err.stack : err}`);
    console.error("check:pulumi: the scratch project is kept for a look (its path is on the first line); remove it when done");
    process.exit(1);
  });
}
