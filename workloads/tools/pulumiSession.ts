/**
 * A Pulumi user's session in a scratch copy of the project: the real CLI on
 * PATH, a file backend, a passphrase read from a file (never argv), and a
 * marker in the environment every process the session starts inherits, so
 * what it left running can be found by pid.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CliResult {
  code: number | null;
  signal: string | null;
  /** stdout and stderr together, as a terminal shows them. */
  out: string;
  ms: number;
}

/** The project files a user's checkout has that the CLI reads; dist/, node_modules/ and policy/ are linked. */
const COPIED = ["Pulumi.yaml", "package.json", "Pulumi.local.yaml", "Pulumi.eastus2.yaml"];
const LINKED = ["dist", "node_modules", "policy"];

export class Session {
  readonly root: string;
  readonly project: string;
  readonly marker = `ab-check-${randomBytes(6).toString("hex")}`;
  private readonly env: NodeJS.ProcessEnv;

  constructor(projectDir: string, cliBin: string) {
    this.root = mkdtempSync(join(tmpdir(), "ab-pulumi-check-"));
    this.project = join(this.root, "project");
    mkdirSync(this.project);
    for (const f of COPIED) copyFileSync(join(projectDir, f), join(this.project, f));
    for (const f of LINKED) symlinkSync(join(projectDir, f), join(this.project, f));
    mkdirSync(join(this.root, "state"));
    writeFileSync(join(this.root, "passphrase"), randomBytes(24).toString("hex"), { mode: 0o600 });
    this.env = {
      ...process.env,
      PATH: `${cliBin}:${process.env.PATH}`,
      PULUMI_HOME: join(this.root, "home"),
      PULUMI_BACKEND_URL: `file://${join(this.root, "state")}`,
      PULUMI_CONFIG_PASSPHRASE_FILE: join(this.root, "passphrase"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      // No network here: a missing provider plugin is named at once instead of downloaded.
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      AB_CHECK_SESSION: this.marker,
    };
    delete this.env.PULUMI_CONFIG_PASSPHRASE;
  }

  /** Runs `pulumi <args>` in the project and waits; `input` goes to its stdin. */
  pulumi(args: string[], input = ""): CliResult {
    const t0 = process.hrtime.bigint();
    const r = spawnSync("pulumi", [...args, "--non-interactive", "--color", "never"], {
      cwd: this.project,
      env: this.env,
      input,
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    return { code: r.status, signal: r.signal, out: `${r.stdout ?? ""}${r.stderr ?? ""}`, ms };
  }

  /**
   * Starts `pulumi <args>` in its own process group, as a terminal's
   * foreground job: `interrupt()` then sends SIGINT to the group, as Ctrl-C does.
   */
  start(args: string[]): { done: Promise<CliResult>; interrupt: () => void } {
    const t0 = process.hrtime.bigint();
    const child = spawn("pulumi", [...args, "--non-interactive", "--color", "never"], {
      cwd: this.project,
      env: this.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (out += d));
    const done = new Promise<CliResult>((resolve) =>
      child.once("close", (code, signal) => resolve({ code, signal, out, ms: Number(process.hrtime.bigint() - t0) / 1e6 })),
    );
    return { done, interrupt: () => process.kill(-child.pid!, "SIGINT") };
  }

  /** A stack output's value (`pulumi stack output <name>`), trimmed. */
  output(name: string): string {
    const r = this.pulumi(["stack", "output", name]);
    if (r.code !== 0) throw new Error(`pulumi stack output ${name} failed: ${r.out.trim()}`);
    return r.out.trim();
  }

  /** `pulumi stack export` as parsed JSON (secrets stay encrypted unless `showSecrets`). */
  exported(showSecrets = false): { deployment: { resources?: ExportedResource[]; pending_operations?: unknown[] } } {
    const r = this.pulumi(["stack", "export", ...(showSecrets ? ["--show-secrets"] : [])]);
    if (r.code !== 0) throw new Error(`pulumi stack export failed: ${r.out.trim()}`);
    return JSON.parse(r.out);
  }

  /** Live processes this session started (by the marker in their environment), the CLI's own included. */
  processes(): number[] {
    return readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return false;
          return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`AB_CHECK_SESSION=${this.marker}`);
        } catch {
          return false;
        }
      });
  }
}

export interface ExportedResource {
  urn: string;
  type: string;
  id?: string;
  outputs?: Record<string, unknown>;
}

/** The run ids BenchmarkRun resources hold in an exported state, by resource name. */
export function runIds(resources: ExportedResource[] = []): Record<string, string> {
  return Object.fromEntries(
    resources
      .filter((r) => r.type.endsWith(":BenchmarkRun"))
      .map((r) => [r.urn.split("::").at(-1)!, String((r.outputs as { runId?: unknown } | undefined)?.runId)]),
  );
}

/** The pids of every daemon LocalSide resources hold in an exported state. */
export function daemonPids(resources: ExportedResource[] = []): number[] {
  return resources
    .filter((r) => r.type.endsWith(":LocalSide"))
    .map((r) => (r.outputs as { daemon?: { pid?: unknown } } | undefined)?.daemon?.pid)
    .filter((p): p is number => typeof p === "number");
}
