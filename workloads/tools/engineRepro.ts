/**
 * What the Engine reproductions share: a fresh Engine and app in a temp dir,
 * the versions and commands to print, the Engine's own log lines grouped, and
 * the printed report (versions, commands, expected, seen, log, verdict) a
 * maintainer can read without this project.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ENGINE_SETTINGS } from "../../cluster/engineConfig";
import { startLocalRivet, type LocalRivet } from "../sides/rivet/localRivet";
import { packageVersion } from "../host/versions";

/** A fresh Engine and app over a new temp dir, removed with `stop`. */
export async function freshEngine(o: { actorSleepTimeoutMs?: number } = {}): Promise<LocalRivet & { dir: string; done(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "actor-bench-repro-"));
  const rivet = await startLocalRivet({
    workDir: dir,
    settings: DEFAULT_ENGINE_SETTINGS,
    ...(o.actorSleepTimeoutMs ? { actorSleepTimeoutMs: o.actorSleepTimeoutMs } : {}),
  });
  return Object.assign(rivet, {
    dir,
    async done() {
      await rivet.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** The versions a maintainer needs: the Engine's own, RivetKit's, Node's, the machine's cores. */
export function versionLines(r: Pick<LocalRivet, "engineVersion" | "engineBinary">, cores: number): string[] {
  return [
    `rivet-engine ${r.engineVersion} (${r.engineBinary})`,
    `rivetkit ${packageVersion("rivetkit")}`,
    `node ${process.version}`,
    `${cores} cores`,
  ];
}

/** A failure's kind: the Engine's error code where the body names one, else the error's start. */
export const failureKind = (error: string): string =>
  /"code":"(\w+)"/.exec(error)?.[1] ?? /timed out|timeout/i.exec(error)?.[0].toLowerCase() ?? error.split(":")[0];

/** The length of a log file now: where the lines of a later step start. */
export const logMark = (file: string): number => statSync(file).size;

/** The log from `from` on (bytes), as text. */
export const logSince = (file: string, from: number): string => readFileSync(file).subarray(from).toString("utf8");

/** One kind of Engine log line: its level and message, how many, and the first whole line. */
export interface LogKind {
  level: string;
  message: string;
  count: number;
  example: string;
}

/**
 * The warn and error lines of an Engine log (logfmt: `level=warn message="..."`),
 * grouped by level and message, most frequent first: what the Engine itself
 * said while a step ran.
 */
export function engineLogKinds(text: string, levels: readonly string[] = ["warn", "error"]): LogKind[] {
  const kinds = new Map<string, LogKind>();
  for (const line of text.split("\n")) {
    const level = /\blevel=(\w+)/.exec(line)?.[1]?.toLowerCase();
    if (!level || !levels.includes(level)) continue;
    const message = /\bmessage="((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? /\bmessage=(\S+)/.exec(line)?.[1] ?? line.slice(0, 120);
    const key = `${level} ${message}`;
    const k = kinds.get(key);
    if (k) k.count++;
    else kinds.set(key, { level, message, count: 1, example: line });
  }
  return [...kinds.values()].sort((a, b) => b.count - a.count || a.message.localeCompare(b.message));
}

/** The printed report of a reproduction. */
interface ReproReport {
  title: string;
  versions: string[];
  commands: string[];
  expected: string;
  seen: string[];
  /** How the harness's own share was ruled out. */
  harness: string[];
  log: LogKind[];
  verdict: string;
}

export function renderRepro(r: ReproReport, maxExample = 400): string {
  const section = (head: string, lines: string[]) => [`## ${head}`, ...lines.map((l) => `  ${l}`)].join("\n");
  const log = r.log.length
    ? r.log
        .slice(0, 12)
        .map(
          (k) =>
            `${k.count} x ${k.level} "${k.message}"\n      e.g. ${k.example.length > maxExample ? `${k.example.slice(0, maxExample)}...` : k.example}`,
        )
    : ["(no warn or error lines)"];
  return [
    `# ${r.title}`,
    section("Versions", r.versions),
    section("Commands", r.commands),
    section("Expected", [r.expected]),
    section("Seen", r.seen),
    section("The harness's own share, ruled out", r.harness),
    section("The Engine's log meanwhile (warn and error lines, grouped)", log),
    section("Verdict", [r.verdict]),
  ].join("\n\n");
}

/** Runs a reproduction's main and exits with its code: 0 when it ran (whatever it found), 1 when it could not run. */
export function runRepro(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
