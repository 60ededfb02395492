import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnManaged, type Managed } from "../workloads/host/processes";
import { freePorts } from "../workloads/host/ports";
import { waitUntil } from "../workloads/host/waitFor";
import { DEFAULT_ENGINE_SETTINGS, engineEnv, renderEngineConfig } from "../cluster/engineConfig";
import { engineBinaryPath, healthy } from "../workloads/sides/rivet/localRivet";
import { writeBundleArchive } from "../workloads/runner/bundle";
import {
  BUNDLE_FILE,
  credentialsCommand,
  installCommand,
  PARTS_DIR,
  probeCommand,
  RUN_LOCK,
  runCommand,
  TIME_LIMIT_EXIT,
} from "../workloads/runner/commands";
import { parseProbe, type RemoteRunRequest, type RunnerCredentials } from "../workloads/runner/runner";
import { downloadRunDir, getBlob } from "../workloads/runner/blobStore";
import { RESULT_GRANTS } from "../workloads/runner/resultAccess";
import { verifyRunDir } from "../analysis/contract/verify";
import type { Group } from "../analysis/contract/catalog";
import * as remoteRunFetch from "../components/providers/remoteRunFetch";
import { alive } from "./processTree";
import { sftpPut, sshExec, sshRun, type SshTarget } from "./sshClient";
import { startLocalWorker } from "../workloads/sides/cloudflare/localWorker";
import { detachedAppCommand, startAzurite, startSshd, type Azurite, type Sshd } from "./remotePeers";
import { fixture, HOSTILE, makeHostile, rawText, tree, TINY_SAMPLES } from "./fixtures";

// The remote path for real, with the runner VM played by this machine over
// SSH (Debian's sshd on loopback) and the result container by Azurite. The
// stack's remote.Command and CopyToRemote steps run the strings of
// workloads/runner/commands.ts; here OpenSSH's client runs the same strings
// with the same pinned host key (@pulumi/command's provider binary cannot be
// downloaded here): the bundle copied over SFTP and installed from the lock,
// the credentials written, the app started and probed, group runs on the
// "runner", uploaded, brought home and checked by the fetch provider.
const projectDir = join(__dirname, "..");
let dir: string;
let engine: Managed;
let gatewayUrl: string;
let sshd: Sshd;
let azurite: Azurite;
let appDir: string;
let _deployOuts: Record<string, unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "remote-run-"));
  appDir = join(dir, "runner-app");
  // cloud-init makes the app directory, owned by the admin user.
  mkdirSync(appDir, { mode: 0o755 });
  const [gateway, apiPeer, metrics] = await freePorts(3);
  const conf = join(dir, "engine.json");
  writeFileSync(conf, JSON.stringify(renderEngineConfig(join(dir, "engine-data"), { gateway, apiPeer, metrics }, DEFAULT_ENGINE_SETTINGS)));
  gatewayUrl = `http://127.0.0.1:${gateway}`;
  engine = spawnManaged({
    name: "rivet-engine",
    command: engineBinaryPath(),
    args: ["start", "--config", conf],
    env: engineEnv(process.env, DEFAULT_ENGINE_SETTINGS),
    logFile: join(dir, "engine.log"),
  });
  await waitUntil("answering /health", engine, join(dir, "engine.log"), 60_000, async () => (await healthy(gatewayUrl)) !== null);
  sshd = await startSshd(join(dir, "sshd"));
  // Plain HTTP and the emulator's key sign the SAS here; the stack's own (user delegation) SAS are
  // made and checked against Azurite over HTTPS in components/providers/resultAccess.e2e.test.ts.
  azurite = await startAzurite(join(dir, "azurite"), "results");
}, 120_000);

afterAll(async () => {
  // The app the deploy test started (the stack stops it with the app command's delete).
  const pidFile = join(appDir ?? "", "app.pid");
  if (appDir && existsSync(pidFile)) {
    try {
      process.kill(Number(readFileSync(pidFile, "utf8")), "SIGTERM");
    } catch {
      // already gone
    }
  }
  await azurite?.proc.stop();
  await sshd?.proc.stop();
  await engine?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const conn = (hostKey = sshd.hostKey): SshTarget => ({
  host: "127.0.0.1",
  port: sshd.port,
  user: sshd.user,
  privateKey: sshd.privateKey,
  hostKey,
});
const NODE = process.execPath;
const UPLOAD_SAS = () => azurite.grantSas(RESULT_GRANTS.upload);

/** What the stack's run command gets on stdin: the request, no credential. */
function runRequest(
  side: "rivet" | "cloudflare",
  group: string,
  runArgs: string[],
  target: Record<string, unknown>,
  prefix = `eastus2-test/${side}.${group}`,
): RemoteRunRequest {
  return {
    request: {
      side,
      runArgs: [...runArgs, "--side", side, "--groups", group],
      stack: "eastus2-test",
      blobRoot: `${appDir}/runs`,
      targets: { [side]: target },
    },
    containerUrl: azurite.containerUrl,
    prefix,
  };
}

const rivetTarget = () => ({
  gatewayUrl,
  engineVersion: "2.3.19",
  engineConfig: { topology: "single (test)" },
  startedBy: "remote-run test: one local Engine",
});

/** The fetch resource's create, fed with a remote run's stdout and stderr as RemoteGroupRun feeds it. */
async function fetchRun(part: string, r: { stdout: string; stderr: string }, blobRoot: string, prefix = `eastus2-test/${part}`) {
  const inputs = {
    stack: "eastus2-test",
    part,
    prefix,
    result: r.stdout,
    log: r.stderr,
    containerUrl: azurite.containerUrl,
    downloadSas: azurite.grantSas(RESULT_GRANTS.download),
    blobRoot,
  };
  const checked = await remoteRunFetch.check({}, inputs);
  expect(checked.failures).toEqual([]);
  return { inputs, ...(await remoteRunFetch.create(checked.inputs)) };
}

describe("the rendered runner commands over SSH, the host key pinned", () => {
  it("refuses a server that presents another host key, before any command runs", async () => {
    const other = join(dir, "other-host-key");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", other]);
    const r = await sshExec(conn(readFileSync(`${other}.pub`, "utf8").trim()), `touch '${dir}/ran'`);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/);
    expect(existsSync(join(dir, "ran"))).toBe(false);
    // The pinned key itself is accepted.
    expect((await sshExec(conn(), "true")).code).toBe(0);
  });

  it("copies the bundle, installs it from the lock, writes the credentials, starts the app and probes the gateway", async () => {
    // The archive is the same bytes for the same build, so CopyToRemote copies nothing on an unchanged `up`.
    const archive = writeBundleArchive(projectDir, join(dir, "state", "bundle.tar.gz"));
    const first = createHash("sha256").update(readFileSync(archive)).digest("hex");
    writeBundleArchive(projectDir, join(dir, "state", "bundle.tar.gz"));
    expect(createHash("sha256").update(readFileSync(archive)).digest("hex")).toBe(first);

    const put = await sftpPut(conn(), archive, `${appDir}/${BUNDLE_FILE}`);
    expect(put.code, put.stderr).toBe(0);
    await sshRun(conn(), "install", installCommand(appDir, NODE));
    expect(readFileSync(join(appDir, "package-lock.json"), "utf8")).toBe(readFileSync(join(projectDir, "package-lock.json"), "utf8"));
    // No install script ran on the runner: better-sqlite3's prebuild-install (an unpinned download) left nothing, and the app answered all the same.
    expect(existsSync(join(appDir, "node_modules", "better-sqlite3", "package.json"))).toBe(true);
    expect(existsSync(join(appDir, "node_modules", "better-sqlite3", "build"))).toBe(false);

    const creds: RunnerCredentials = { uploadSas: UPLOAD_SAS() };
    await sshRun(conn(), "credentials", credentialsCommand(appDir), { stdin: JSON.stringify(creds) });
    expect(statSync(join(appDir, "credentials.json")).mode & 0o077).toBe(0);
    expect(JSON.parse(readFileSync(join(appDir, "credentials.json"), "utf8"))).toEqual(creds);

    await sshRun(conn(), "start the app", detachedAppCommand(appDir, NODE, gatewayUrl));
    const probe = parseProbe((await sshRun(conn(), "probe", probeCommand(appDir, NODE, gatewayUrl, 120))).stdout);
    expect(probe.ok).toBe(true);
    expect(probe.actorId).toMatch(/\w+/);
    // A gateway that never answers: the probe gives up at its deadline and says so.
    const dead = await sshExec(conn(), probeCommand(appDir, NODE, "http://127.0.0.1:9", 4));
    expect(dead.code).toBe(1);
    expect(dead.stderr).toContain("no answer through http://127.0.0.1:9 from the runner for 4 s");
    expect(() => parseProbe(dead.stdout)).toThrow(/not its JSON line/);
  }, 480_000);

  it("runs a group there, prints one JSON line, uploads it, and the fetch brings home a checked copy", async () => {
    const r = await sshExec(conn(), runCommand(appDir, NODE, 600), {
      stdin: JSON.stringify(runRequest("rivet", "create", ["--preset", "quick"], rivetTarget())),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(Object.keys(JSON.parse(r.stdout)).sort()).toEqual(["blobPrefix", "runId", "sha256"]);
    const { outs, inputs } = await fetchRun("rivet.create", r, join(dir, "blobs"));
    expect(outs.status).toBe("complete");
    const m = verifyRunDir(outs.blob as string);
    expect(m.stages["rivet.create.ping"]).toMatchObject({ attempts: 20, errors: 0 });
    const rows = (outs.summary as { rows: Array<{ metric: string; n: number; notCold: number }> }).rows;
    expect(rows.find((x) => x.metric === "create.ping")).toMatchObject({ n: 20, notCold: 0 });
    expect(outs.remoteBlob).toMatch(/\/results\/eastus2-test\/rivet\.create\/.+\/manifest\.json$/);
    expect(JSON.stringify(outs.remoteBlob)).not.toContain("sig=");

    // The container holds the run; the driver's progress came home as a log.
    const names: string[] = [];
    for await (const b of azurite.container.listBlobsFlat({ prefix: `eastus2-test/rivet.create/${outs.runId as string}/` }))
      names.push(b.name);
    expect(names.length).toBe(Object.keys(m.files).length + 1);
    expect(readFileSync(join(dir, "blobs", "rivet.create.driver.log"), "utf8")).toContain("create.ping");

    // A stored run that no longer matches what the runner reported is refused.
    const prefix = `eastus2-test/rivet.create/${outs.runId as string}`;
    const raw = Object.keys(m.files)[0];
    await azurite.container.getBlockBlobClient(`${prefix}/${raw}`).upload("tampered\n", 9);
    await expect(
      downloadRunDir({ url: azurite.containerUrl, sas: azurite.sas }, prefix, join(dir, "tampered"), outs.sha256 as string),
    ).rejects.toThrow(/sha256 .* does not match the manifest/);
    await expect(
      downloadRunDir({ url: azurite.containerUrl, sas: azurite.sas }, prefix, join(dir, "tampered2"), "0".repeat(64)),
    ).rejects.toThrow(/the runner reported 0{64}/);

    // An unchanged run fetches nothing again; a changed SAS (a credential) neither; another reported run does.
    expect((await remoteRunFetch.diff("x", outs, { ...inputs, downloadSas: "sv=other" })).changes).toBe(false);
    expect((await remoteRunFetch.diff("x", outs, { ...inputs, result: "{}" })).replaces).toEqual(["result"]);
  }, 300_000);

  it("a run started again stops the earlier one first: two drivers never load the Engine at once", async () => {
    // A long warm group, then the same command again, as a re-run after a dropped connection would.
    const long = sshExec(conn(), runCommand(appDir, NODE, 600), {
      stdin: JSON.stringify(
        runRequest("rivet", "warm", ["--preset", "quick", "--samples", "warm=100000"], rivetTarget(), "eastus2-test/long"),
      ),
    });
    await waitFor(() => existsSync(join(appDir, RUN_LOCK.pid)) && alive(Number(readFileSync(join(appDir, RUN_LOCK.pid), "utf8"))), 30_000);
    const firstPid = Number(readFileSync(join(appDir, RUN_LOCK.pid), "utf8"));
    const again = await sshExec(conn(), runCommand(appDir, NODE, 600), {
      stdin: JSON.stringify(runRequest("rivet", "create", ["--preset", "quick"], rivetTarget(), "eastus2-test/again")),
    });
    const stopped = await long;
    expect(stopped.code).not.toBe(0);
    expect(stopped.stdout).toBe("");
    expect(alive(firstPid)).toBe(false);
    expect(again.stderr).toContain(`stopping the earlier run (pid ${firstPid}) first`);
    expect(again.code, again.stderr).toBe(0);
    const { outs } = await fetchRun("rivet.create", again, join(dir, "blobs-again"), "eastus2-test/again");
    expect(outs.status).toBe("complete");
  }, 300_000);

  it("a run past its time limit is stopped by timeout(1), and the lock is free for the next", async () => {
    const t0 = Date.now();
    const r = await sshExec(conn(), runCommand(appDir, NODE, 3), {
      stdin: JSON.stringify(
        runRequest("rivet", "warm", ["--preset", "quick", "--samples", "warm=100000"], rivetTarget(), "eastus2-test/limit3"),
      ),
    });
    expect(r.code).toBe(TIME_LIMIT_EXIT);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(r.stdout).toBe("");
    const held = await sshExec(conn(), `cd '${appDir}' && flock -n ${RUN_LOCK.lock} true`);
    expect(held.code).toBe(0);
  }, 120_000);

  /** A request for several groups in one run, as a cloud pass's overlapped run asks. */
  const tasksRequest = (tasks: Group[], runArgs: string[], prefix: string): RemoteRunRequest => ({
    request: {
      side: "rivet",
      tasks: tasks.map((group) => ({ side: "rivet", group })),
      runArgs,
      stack: "eastus2-test",
      blobRoot: `${appDir}/runs`,
      targets: { rivet: rivetTarget() },
    },
    containerUrl: azurite.containerUrl,
    prefix,
  });
  /** The part's folder on the runner: named by the request's sha256, as the run command names it. */
  const partDirOf = (stdin: string) => join(appDir, PARTS_DIR, createHash("sha256").update(stdin).digest("hex").slice(0, 32));
  const storedManifests = async (prefix: string) => {
    const out: Array<{ status: string; tasksDone?: string[]; stages: Record<string, unknown> }> = [];
    for await (const b of azurite.container.listBlobsFlat({ prefix: `${prefix}/` })) {
      if (b.name.endsWith("/manifest.json"))
        out.push(JSON.parse((await getBlob({ url: azurite.containerUrl, sas: azurite.sas }, b.name)).toString()));
    }
    return out;
  };

  it("a run whose connection is cut goes on; asking again follows it, and the result holds every group, measured once", async () => {
    const stdin = JSON.stringify(
      tasksRequest(
        ["create", "warm"],
        ["--preset", "quick", "--samples", `${TINY_SAMPLES},warm=100000`, "--stage-deadline-ms", "5000"],
        "eastus2-test/cut",
      ),
    );
    const cut = new AbortController();
    const first = await sshExec(conn(), runCommand(appDir, NODE, 600), {
      stdin,
      // Cut once the first group is done and the second is measuring.
      onStderr: (chunk) => chunk.includes("rivet create: group took") && setTimeout(() => cut.abort(), 500),
      cut: cut.signal,
    });
    expect(cut.signal.aborted).toBe(true);
    expect(first.stdout).toBe("");
    const session = Number(readFileSync(join(appDir, RUN_LOCK.session), "utf8"));
    expect(alive(session), "the run outlives its connection").toBe(true);
    const again = await sshExec(conn(), runCommand(appDir, NODE, 600), { stdin });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("this part is already running");
    const { outs } = await fetchRun("rivet.create+rivet.warm", again, join(dir, "blobs-cut"), "eastus2-test/cut");
    expect(outs.status).toBe("complete");
    const m = verifyRunDir(outs.blob as string) as unknown as { stages: Record<string, unknown>; tasksDone: string[] };
    expect(m.tasksDone).toEqual(["rivet create", "rivet warm"]);
    expect(Object.keys(m.stages).filter((k) => k.startsWith("rivet.create.")).length).toBeGreaterThan(0);
    expect(Object.keys(m.stages).filter((k) => k.startsWith("rivet.warm.")).length).toBeGreaterThan(0);
    // One attempt: nothing was measured twice.
    expect(JSON.parse(readFileSync(join(partDirOf(stdin), "attempts.json"), "utf8"))).toHaveLength(1);
    // Asked once more (an `up` after the result was lost): the same line, nothing measured.
    const third = await sshExec(conn(), runCommand(appDir, NODE, 600), { stdin });
    expect(third.stdout).toBe(again.stdout);
  }, 300_000);

  it("a run killed by its time limit keeps every finished group in the store; asked again, it measures only the rest", async () => {
    const prefix = "eastus2-test/limit";
    const stdin = JSON.stringify(
      tasksRequest(
        ["create", "warm"],
        ["--preset", "quick", "--samples", `${TINY_SAMPLES},warm=100000`, "--stage-deadline-ms", "8000"],
        prefix,
      ),
    );
    // The create group takes a few seconds; the warm group's two stages 8 s each: the 9 s limit falls inside the warm group.
    const killed = await sshExec(conn(), runCommand(appDir, NODE, 9), { stdin });
    expect(killed.code, killed.stderr).toBe(TIME_LIMIT_EXIT);
    expect(killed.stdout).toBe("");
    expect(killed.stderr).toContain("what it measured is in the result container");
    // The stopped attempt is in the store, its finished group under its hashes.
    const stored = await storedManifests(prefix);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ status: "failed", tasksDone: ["rivet create"] });
    expect(Object.keys(stored[0].stages).some((k) => k.startsWith("rivet.create."))).toBe(true);

    const rest = await sshExec(conn(), runCommand(appDir, NODE, 600), { stdin });
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toContain("resuming; finished by earlier attempts: rivet create; measuring: rivet warm");
    const { outs } = await fetchRun("rivet.create+rivet.warm", rest, join(dir, "blobs-limit"), prefix);
    expect(outs.status).toBe("complete");
    const m = verifyRunDir(outs.blob as string) as unknown as {
      stages: Record<string, { attempts: number }>;
      settings: { parts: Array<{ status: string }> };
    };
    // The create group from the first attempt, the warm group from the second, each stage once.
    expect(m.settings.parts.map((p) => p.status)).toEqual(["complete", "complete"]);
    expect(m.stages["rivet.create.ping"].attempts).toBe(3);
    expect(m.stages["rivet.warm.ping"].attempts).toBeGreaterThan(0);
    const attempts = JSON.parse(readFileSync(join(partDirOf(stdin), "attempts.json"), "utf8")) as Array<{ tasksDone: string[] }>;
    expect(attempts.map((a) => a.tasksDone)).toEqual([["rivet create"], ["rivet warm"]]);
    // Stored: the stopped attempt, the second, and the merged result.
    expect(await storedManifests(prefix)).toHaveLength(3);
  }, 300_000);

  it("a stored run listing hostile names is refused by the download, naming the entry, before anything is written", async () => {
    const c = { url: azurite.containerUrl, sas: azurite.sas };
    // A symlink cannot come through a blob (the download writes regular files): the other kinds can.
    for (const kind of HOSTILE.filter((k) => k !== "symlink")) {
      const src = fixture(
        { "cloudflare.warm.ping": { samples: [{ ms: 1 }] } },
        { root: join(dir, "hostile-src", kind.replace(/ /g, "-")) },
      );
      const name = makeHostile(src, kind);
      const manifest = readFileSync(join(src, "manifest.json"));
      const prefix = `eastus2-test/hostile/${kind.replace(/ /g, "-")}`;
      await azurite.container.getBlockBlobClient(`${prefix}/manifest.json`).upload(manifest, manifest.length);
      const home = join(dir, "hostile-home", kind.replace(/ /g, "-"));
      mkdirSync(home, { recursive: true });
      const sha = createHash("sha256").update(manifest).digest("hex");
      await expect(downloadRunDir(c, prefix, join(home, "run"), sha), kind).rejects.toThrow(
        `lists "${name}", which a benchmark run may not hold`,
      );
      expect(tree(home), kind).toEqual([]);
    }
  });

  it("runs a Cloudflare group there against a Worker (local workerd playing the deployed one), with its token kept out of every file but the credentials", async () => {
    const worker = await startLocalWorker({ workDir: join(dir, "worker") });
    try {
      await sshRun(conn(), "credentials", credentialsCommand(appDir), {
        stdin: JSON.stringify({ uploadSas: UPLOAD_SAS(), workerToken: worker.token } satisfies RunnerCredentials),
      });
      const runtime = {
        runtime: "local workerd (playing the deployed Worker)",
        workerClock: "Date.now() around the awaited DO call",
        eviction: "about 10 s",
      };
      const req = runRequest("cloudflare", "warm", ["--preset", "quick"], {
        url: worker.url,
        versions: { cloudflareCompatibilityDate: "test" },
        runtime,
        startedBy: "remote-run test: local workerd",
      });
      expect(JSON.stringify(req)).not.toContain(worker.token);
      const r = await sshExec(conn(), runCommand(appDir, NODE, 600), { stdin: JSON.stringify(req) });
      expect(r.code, r.stderr).toBe(0);
      const { outs } = await fetchRun("cloudflare.warm", r, join(dir, "blobs-cf"));
      expect(outs.status).toBe("complete");
      const m = verifyRunDir(outs.blob as string);
      expect(Object.keys(m.stages).sort()).toEqual(["cloudflare.baseline.noop", "cloudflare.warm.ping"]);
      expect(m.stages["cloudflare.warm.ping"]).toMatchObject({ errors: 0 });
      expect((m.settings as { cloudflare: { runtime: string } }).cloudflare.runtime).toBe(runtime.runtime);
      const samples = rawText(outs.blob as string, "raw/cloudflare.warm.ping.jsonl")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { clientMs: number; colo?: string });
      expect(samples.every((x) => typeof x.clientMs === "number")).toBe(true);
      // A deployed Worker's colo is kept on each sample (here the stand-in's, a data center code all the same).
      expect(samples.every((x) => typeof x.colo === "string" && /^[A-Z]{3,4}$/.test(x.colo))).toBe(true);
      for (const f of [...Object.keys(m.files), "manifest.json"])
        expect(readFileSync(join(outs.blob as string, f), "utf8"), f).not.toContain(worker.token);
      expect(readFileSync(join(dir, "blobs-cf", "cloudflare.warm.driver.log"), "utf8")).not.toContain(worker.token);
      // A shared run, as a cloud pass plans one: the DO wake group's idle wait hosts Rivet groups, under one lock.
      const shared: RemoteRunRequest = {
        request: {
          side: "cloudflare",
          tasks: [
            { side: "cloudflare", group: "wake" },
            { side: "rivet", group: "create" },
            { side: "rivet", group: "warm" },
          ],
          runArgs: ["--preset", "quick", "--samples", TINY_SAMPLES, "--cf-wake-idle-ms", "15000"],
          stack: "eastus2-test",
          blobRoot: `${appDir}/runs`,
          targets: {
            rivet: rivetTarget(),
            cloudflare: {
              url: worker.url,
              versions: { cloudflareCompatibilityDate: "test" },
              runtime,
              startedBy: "remote-run test: local workerd",
            },
          },
        },
        containerUrl: azurite.containerUrl,
        prefix: "eastus2-test/cloudflare.wake+rivet.create+rivet.warm",
      };
      const sr = await sshExec(conn(), runCommand(appDir, NODE, 600), { stdin: JSON.stringify(shared) });
      expect(sr.code, sr.stderr).toBe(0);
      const { outs: sharedOuts } = await fetchRun("cloudflare.wake+rivet.create+rivet.warm", sr, join(dir, "blobs-shared"));
      expect(sharedOuts.status, JSON.stringify(sharedOuts.failures)).toBe("complete");
      const sm = verifyRunDir(sharedOuts.blob as string);
      expect((sm.settings as { order: { tasks: string[] } }).order.tasks).toEqual(["cloudflare wake", "rivet create", "rivet warm"]);
      const span = (k: string) => {
        const st = sm.stages[k];
        const start = Date.parse(st.startedAt);
        return { k, start, end: start + st.wallMs };
      };
      const spans = Object.keys(sm.stages)
        .map(span)
        .sort((a, b) => a.start - b.start);
      // One lock: no two stages of either side ever measure at the same time (startedAt is whole ms).
      for (let i = 1; i < spans.length; i++)
        expect(spans[i].start, `${spans[i - 1].k} then ${spans[i].k}`).toBeGreaterThanOrEqual(spans[i - 1].end - 1);
      // Rivet's stages ran inside the DO wake group's idle wait, which still lasted at least its 15 s.
      const wake = sm.stages["cloudflare.wake.ping"];
      const notes = wake.notes as { asleepAt: string; idleBeforeFirstWakeMs: number };
      expect(notes.idleBeforeFirstWakeMs).toBeGreaterThanOrEqual(15_000);
      const idleFrom = Date.parse(notes.asleepAt);
      const idleTo = idleFrom + notes.idleBeforeFirstWakeMs;
      const rivetSpans = spans.filter((x) => x.k.startsWith("rivet."));
      expect(rivetSpans.map((x) => x.k).sort()).toEqual([
        "rivet.create.ping",
        "rivet.create.read",
        "rivet.create.write",
        "rivet.warm.getOrCreate",
        "rivet.warm.ping",
      ]);
      for (const x of rivetSpans) {
        expect(x.start, x.k).toBeGreaterThanOrEqual(idleFrom);
        expect(x.end, x.k).toBeLessThanOrEqual(idleTo + 1);
      }
      // The wakes still proved fresh instances.
      const rows = (sharedOuts.summary as { rows: Array<{ side: string; metric: string; n: number; notCold: number }> }).rows;
      for (const m of ["wake.ping", "wake.read", "wake.write"])
        expect(rows.find((x) => x.side === "cloudflare" && x.metric === m)).toMatchObject({ n: 2, notCold: 0 });

      // Without the token in the credentials file, a Cloudflare run refuses to start and says why.
      await sshRun(conn(), "credentials", credentialsCommand(appDir), { stdin: JSON.stringify({ uploadSas: UPLOAD_SAS() }) });
      const refused = await sshExec(conn(), runCommand(appDir, NODE, 600), {
        stdin: JSON.stringify({ ...req, prefix: "eastus2-test/no-token" }),
      });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("credentials.json has no workerToken, which a Cloudflare run needs");
    } finally {
      await worker.stop();
    }
  }, 300_000);
});

async function waitFor(cond: () => boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}
