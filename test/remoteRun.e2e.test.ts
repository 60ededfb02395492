import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnManaged, type Managed } from "../workloads/processes";
import { freePorts } from "../workloads/ports";
import { waitUntil } from "../workloads/waitFor";
import { DEFAULT_ENGINE_SETTINGS, engineEnv, renderEngineConfig } from "../cluster/engineConfig";
import { engineBinaryPath, healthy } from "../workloads/rivet/localRivet";
import { bundleDigest } from "../workloads/remote/bundle";
import { downloadRunDir, getBlob, putBlob } from "../workloads/remote/blobStore";
import { RESULT_POLICY_IDS, resultPolicies, setContainerPolicies } from "../workloads/remote/accessPolicies";
import { verifyRunDir } from "../analysis/verify";
import * as runnerDeploy from "../components/providers/runnerDeploy";
import * as remoteRun from "../components/providers/remoteBenchmarkRun";
import { alive } from "./processTree";
import { startLocalWorker } from "../workloads/cloudflare/localWorker";
import { detachedAppCommand, startAzurite, startSshd, type Azurite, type Sshd } from "./remotePeers";
import { fixture, HOSTILE, makeHostile, tree } from "./fixtures";

// The remote path for real, with the runner VM played by this machine over
// SSH (Debian's sshd on loopback) and the result container by Azurite: the
// bundle streamed and installed from the lock, the app started and probed,
// a group run on the "runner", uploaded, brought home and checked.
const projectDir = join(__dirname, "..");
let dir: string;
let engine: Managed;
let gatewayUrl: string;
let sshd: Sshd;
let azurite: Azurite;
let appDir: string;
let deployOuts: Record<string, unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "remote-run-"));
  appDir = join(dir, "runner-app");
  const [gateway, apiPeer, metrics] = await freePorts(3);
  const conf = join(dir, "engine.json");
  writeFileSync(conf, JSON.stringify(renderEngineConfig(join(dir, "engine-data"), { gateway, apiPeer, metrics }, DEFAULT_ENGINE_SETTINGS)));
  gatewayUrl = `http://127.0.0.1:${gateway}`;
  engine = spawnManaged({ name: "rivet-engine", command: engineBinaryPath(), args: ["start", "--config", conf], env: engineEnv(process.env, DEFAULT_ENGINE_SETTINGS), logFile: join(dir, "engine.log") });
  await waitUntil("answering /health", engine, join(dir, "engine.log"), 60_000, async () => (await healthy(gatewayUrl)) !== null);
  sshd = await startSshd(join(dir, "sshd"));
  azurite = await startAzurite(join(dir, "azurite"), "results");
  // The stack's stored access policies on the result container: the runner may create and write, this machine read.
  await setContainerPolicies(azurite.containerUrl, azurite.accountName, azurite.accountKey, resultPolicies(new Date(Date.now() + 3600_000).toISOString()));
}, 120_000);

afterAll(async () => {
  await azurite?.proc.stop();
  await sshd?.proc.stop();
  await engine?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ssh = () => ({ host: "127.0.0.1", port: sshd.port, user: sshd.user, privateKey: sshd.privateKey });

describe("a run on the runner over SSH", () => {
  it("deploys the bundle, starts the app and probes the gateway before moving on", async () => {
    const inputs = {
      stack: "eastus2-test",
      projectDir,
      ssh: ssh(),
      knownHostsFile: join(dir, "state", "known_hosts"),
      appDir,
      nodeBin: process.execPath,
      gatewayUrl,
      bundleDigest: bundleDigest(projectDir),
      readyCommand: "true",
      startAppCommand: detachedAppCommand(appDir, process.execPath, gatewayUrl),
      stopAppCommand: `kill $(cat '${appDir}/app.pid')`,
    };
    const checked = await runnerDeploy.check({}, inputs);
    expect(checked.failures).toEqual([]);
    const { outs } = await runnerDeploy.create(checked.inputs);
    deployOuts = outs;
    const probe = outs.probe as { ok: boolean; ms: number; actorId: string };
    expect(probe.ok).toBe(true);
    expect(probe.actorId).toMatch(/\w+/);
    expect(readFileSync(join(dir, "state", "known_hosts"), "utf8")).toContain("ssh-ed25519");
    expect(readFileSync(join(appDir, "package-lock.json"), "utf8")).toBe(readFileSync(join(projectDir, "package-lock.json"), "utf8"));
    // No install script ran on the runner: better-sqlite3's prebuild-install (an unpinned download) left nothing, and the app answered all the same.
    expect(existsSync(join(appDir, "node_modules", "better-sqlite3", "package.json"))).toBe(true);
    expect(existsSync(join(appDir, "node_modules", "better-sqlite3", "build"))).toBe(false);
    // The state folder with the pinned host key is the owner's alone.
    expect(statSync(join(dir, "state")).mode & 0o077).toBe(0);
  }, 480_000);

  it("runs a group there, uploads it to the container and brings home a checked copy", async () => {
    const inputs = {
      stack: "eastus2-test",
      side: "rivet",
      group: "create",
      runArgs: ["--preset", "quick"],
      trigger: null,
      blobRoot: join(dir, "blobs"),
      ssh: ssh(),
      knownHostsFile: join(dir, "state", "known_hosts"),
      appDir,
      nodeBin: process.execPath,
      deployId: "runner-1",
      target: { gatewayUrl, engineVersion: "2.3.19", engineConfig: { topology: "single (test)" }, startedBy: "remote-run test: one local Engine" },
      container: { url: azurite.containerUrl, sas: azurite.policySas(RESULT_POLICY_IDS.upload) },
      downloadSas: azurite.policySas(RESULT_POLICY_IDS.download),
    };
    const checked = await remoteRun.check({}, inputs);
    expect(checked.failures).toEqual([]);
    const { outs } = await remoteRun.create(checked.inputs);
    expect(outs.status).toBe("complete");
    const m = verifyRunDir(outs.blob as string);
    expect(m.stages["rivet.create.ping"]).toMatchObject({ attempts: 20, errors: 0 });
    const rows = (outs.summary as { rows: Array<{ metric: string; n: number; notCold: number }> }).rows;
    expect(rows.find((r) => r.metric === "create.ping")).toMatchObject({ n: 20, notCold: 0 });
    expect(outs.remoteBlob).toMatch(/\/results\/eastus2-test\/rivet\.create\/.+\/manifest\.json$/);
    expect(JSON.stringify(outs.remoteBlob)).not.toContain("sig=");

    // The container holds the run; the driver's progress came home as a log.
    const names: string[] = [];
    for await (const b of azurite.container.listBlobsFlat({ prefix: `eastus2-test/rivet.create/${outs.runId as string}/` })) names.push(b.name);
    expect(names.length).toBe(Object.keys(m.files).length + 1);
    expect(readFileSync(join(dir, "blobs", "rivet.create.driver.log"), "utf8")).toContain("create.ping");

    // A stored run that no longer matches what the runner reported is refused.
    const prefix = `eastus2-test/rivet.create/${outs.runId as string}`;
    const raw = Object.keys(m.files)[0];
    await azurite.container.getBlockBlobClient(`${prefix}/${raw}`).upload("tampered\n", 9);
    await expect(downloadRunDir({ url: azurite.containerUrl, sas: azurite.sas }, prefix, join(dir, "tampered"), outs.sha256 as string)).rejects.toThrow(/sha256 .* does not match the manifest/);
    await expect(downloadRunDir({ url: azurite.containerUrl, sas: azurite.sas }, prefix, join(dir, "tampered2"), "0".repeat(64))).rejects.toThrow(/the runner reported 0{64}/);

    // An unchanged config plans nothing; a changed SAS (a credential) does not re-run either.
    expect((await remoteRun.diff("x", outs, { ...inputs, container: { ...inputs.container, sas: "sv=other" } })).changes).toBe(false);
    expect((await remoteRun.diff("x", outs, { ...inputs, runArgs: ["--preset", "local"] })).replaces).toEqual(["runArgs"]);
  }, 300_000);

  it("each SAS does only what its policy allows: the runner's cannot read, the download's cannot write, and revoking the policy revokes the SAS", async () => {
    const upload = { url: azurite.containerUrl, sas: azurite.policySas(RESULT_POLICY_IDS.upload) };
    const download = { url: azurite.containerUrl, sas: azurite.policySas(RESULT_POLICY_IDS.download) };
    await putBlob(upload, "policy-check/a.txt", Buffer.from("a"));
    await expect(getBlob(upload, "policy-check/a.txt")).rejects.toThrow(/HTTP 403/);
    expect((await getBlob(download, "policy-check/a.txt")).toString()).toBe("a");
    await expect(putBlob(download, "policy-check/b.txt", Buffer.from("b"))).rejects.toThrow(/HTTP 403/);
    // Revoked: the container keeps only the download policy; the runner's SAS stops working at once.
    const expiry = new Date(Date.now() + 3600_000).toISOString();
    await setContainerPolicies(azurite.containerUrl, azurite.accountName, azurite.accountKey, resultPolicies(expiry).filter((p) => p.id === RESULT_POLICY_IDS.download));
    await expect(putBlob(upload, "policy-check/c.txt", Buffer.from("c"))).rejects.toThrow(/HTTP 403/);
    await setContainerPolicies(azurite.containerUrl, azurite.accountName, azurite.accountKey, resultPolicies(expiry));
    await putBlob(upload, "policy-check/d.txt", Buffer.from("d"));
  });

  it("a stored run listing hostile names is refused by the download, naming the entry, before anything is written", async () => {
    const c = { url: azurite.containerUrl, sas: azurite.sas };
    // A symlink cannot come through a blob (the download writes regular files): the other kinds can.
    for (const kind of HOSTILE.filter((k) => k !== "symlink")) {
      const src = fixture({ "cloudflare.warm.ping": { samples: [{ ms: 1 }] } }, { root: join(dir, "hostile-src", kind.replace(/ /g, "-")) });
      const name = makeHostile(src, kind);
      const manifest = readFileSync(join(src, "manifest.json"));
      const prefix = `eastus2-test/hostile/${kind.replace(/ /g, "-")}`;
      await azurite.container.getBlockBlobClient(`${prefix}/manifest.json`).upload(manifest, manifest.length);
      const home = join(dir, "hostile-home", kind.replace(/ /g, "-"));
      mkdirSync(home, { recursive: true });
      const sha = createHash("sha256").update(manifest).digest("hex");
      await expect(downloadRunDir(c, prefix, join(home, "run"), sha), kind).rejects.toThrow(`lists "${name}", which a benchmark run may not hold`);
      expect(tree(home), kind).toEqual([]);
    }
  });

  it("runs a Cloudflare group there against a Worker (local workerd playing the deployed one), with its token kept out of every file", async () => {
    const worker = await startLocalWorker({ workDir: join(dir, "worker") });
    try {
      const runtime = { runtime: "local workerd (playing the deployed Worker)", workerClock: "Date.now() around the awaited DO call", eviction: "about 10 s" };
      const inputs = {
        stack: "eastus2-test",
        side: "cloudflare",
        group: "warm",
        runArgs: ["--preset", "quick"],
        trigger: null,
        blobRoot: join(dir, "blobs-cf"),
        ssh: ssh(),
        knownHostsFile: join(dir, "state", "known_hosts"),
        appDir,
        nodeBin: process.execPath,
        deployId: "runner-1",
        target: { url: worker.url, versions: { cloudflareCompatibilityDate: "test" }, runtime, startedBy: "remote-run test: local workerd" },
        workerToken: worker.token,
        container: { url: azurite.containerUrl, sas: azurite.policySas(RESULT_POLICY_IDS.upload) },
      downloadSas: azurite.policySas(RESULT_POLICY_IDS.download),
      };
      const checked = await remoteRun.check({}, inputs);
      expect(checked.failures).toEqual([]);
      expect((await remoteRun.check({}, { ...inputs, workerToken: undefined })).failures.map((f) => f.property)).toEqual(["workerToken"]);
      const { outs } = await remoteRun.create(checked.inputs);
      expect(outs.status).toBe("complete");
      const m = verifyRunDir(outs.blob as string);
      expect(Object.keys(m.stages).sort()).toEqual(["cloudflare.baseline.noop", "cloudflare.warm.ping"]);
      expect(m.stages["cloudflare.warm.ping"]).toMatchObject({ errors: 0 });
      expect((m.settings as { cloudflare: { runtime: string } }).cloudflare.runtime).toBe(runtime.runtime);
      const samples = readFileSync(join(outs.blob as string, "raw/cloudflare.warm.ping.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { clientMs: number; colo?: string });
      expect(samples.every((x) => typeof x.clientMs === "number")).toBe(true);
      // A deployed Worker's colo is kept on each sample (here the stand-in's, a data center code all the same).
      expect(samples.every((x) => typeof x.colo === "string" && /^[A-Z]{3,4}$/.test(x.colo))).toBe(true);
      for (const f of [...Object.keys(m.files), "manifest.json"]) expect(readFileSync(join(outs.blob as string, f), "utf8"), f).not.toContain(worker.token);
      expect(readFileSync(join(dir, "blobs-cf", "cloudflare.warm.driver.log"), "utf8")).not.toContain(worker.token);
      // A new token (a redeployed Worker brings a new url anyway) is a credential, not a reason to re-run.
      expect((await remoteRun.diff("x", outs, { ...inputs, workerToken: "another-token-0123456789" })).changes).toBe(false);
    } finally {
      await worker.stop();
    }
  }, 300_000);

  it("stops the app on delete", async () => {
    const pid = Number(readFileSync(join(appDir, "app.pid"), "utf8"));
    expect(alive(pid)).toBe(true);
    await runnerDeploy.remove("x", deployOuts);
    await waitFor(() => !alive(pid), 10_000);
  });
});

async function waitFor(cond: () => boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}
