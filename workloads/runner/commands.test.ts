import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { credentialsCommand, detachedRun, installCommand, probeCommand, READY_COMMAND, runCommand, runnerCommand, shq } from "./commands";

// What remote.Command runs on the runner (a POSIX shell: the admin user's login shell runs `sh -c`-style).
// shellcheck comes from Debian (.ci/run installs it); the end-to-end test runs the same strings over sshd.
const APP = "/opt/actor-bench/app";
const NODE = "/opt/node/bin/node";
const rendered: Record<string, string> = {
  ready: READY_COMMAND,
  install: installCommand(APP, NODE),
  credentials: credentialsCommand(APP),
  probe: probeCommand(APP, NODE, "http://10.40.1.11:6420", 600),
  run: runCommand(APP, NODE, 7200),
  detached: detachedRun(NODE, 7200),
};

describe("the runner's commands", () => {
  for (const [name, text] of Object.entries(rendered)) {
    it(`${name} passes shellcheck as a POSIX sh script`, () => {
      const r = spawnSync("shellcheck", ["--shell=sh", "--severity=style", "-"], { input: `${text}\n`, encoding: "utf8" });
      if (r.error) throw new Error("shellcheck is not installed: apt-get install shellcheck");
      expect(r.stdout, name).toBe("");
      expect(r.status, name).toBe(0);
    });
  }

  it("quotes every path, so a space or quote in one cannot split or inject a word", () => {
    expect(shq("it's here")).toBe(`'it'\\''s here'`);
    const r = spawnSync("sh", ["-c", `printf '%s|' ${shq("a b")} ${shq("c'd")} ${shq("$(id)")}`], { encoding: "utf8" });
    expect(r.stdout).toBe("a b|c'd|$(id)|");
    expect(runnerCommand("/srv/my app", NODE, ["probe", "http://x"])).toBe(
      `cd '/srv/my app' && '${NODE}' dist/workloads/runner/runner.js 'probe' 'http://x'`,
    );
  });

  it("the run is single-flight, detached from the connection and time-limited: an flock, the holder's pid to stop, and timeout(1) with a kill grace", () => {
    const run = rendered.run;
    expect(run).toContain("exec 9>>run.lock");
    expect(run).toMatch(/kill -TERM "\$old"/);
    expect(run).toContain("flock -w 60 9");
    expect(run).toMatch(/setsid sh -c '[\s\S]*' run "\$id" <\/dev\/null >>"\$d\/log" 2>&1 &/);
    expect(rendered.detached).toContain(`timeout --kill-after=30 7200 '${NODE}' dist/workloads/runner/runner.js run "$d" &`);
    // A stopped attempt goes to the store before the lock is let go.
    expect(rendered.detached.indexOf("runner.js salvage")).toBeGreaterThan(rendered.detached.indexOf("wait $!"));
  });

  it("ready passes a finished boot, passes one with recoverable errors (cloud-init 23.4+ exits 2) printing them, and fails any other with the status", () => {
    // cloud-init's exit codes stand in here; the real one runs in the VM boot check (npm run check:vm).
    const bin = mkdtempSync(join(tmpdir(), "ready-"));
    const withExit = (code: number) => {
      writeFileSync(
        join(bin, "cloud-init"),
        `#!/bin/sh\necho "status: done"\necho "recoverable_errors: {WARNING: [deprecated key]}"\nexit ${code}\n`,
      );
      chmodSync(join(bin, "cloud-init"), 0o755);
      return spawnSync("sh", ["-c", READY_COMMAND], { encoding: "utf8", env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    };
    expect(withExit(0)).toMatchObject({ status: 0, stderr: "" });
    const warned = withExit(2);
    expect(warned.status).toBe(0);
    expect(warned.stderr).toContain("recoverable errors:\nstatus: done");
    const failed = withExit(1);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain("the first boot failed (cloud-init status exit 1)");
    expect(failed.stderr).toContain("deprecated key");
  });

  it("no command holds a credential: they come on stdin, and a failed command's text is printed by Pulumi", () => {
    for (const text of Object.values(rendered)) expect(text).not.toMatch(/sig=|token|RIVET_TOKEN|PRIVATE KEY/i);
    expect(rendered.credentials).toContain("umask 077");
  });
});
