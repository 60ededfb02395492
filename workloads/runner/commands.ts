/**
 * The shell commands run on the runner VM, one per step of a remote pass.
 * Pure renderings: the stack hands them to @pulumi/command's remote.Command,
 * and the end-to-end test runs the very same strings over a loopback sshd.
 * No secret is ever part of a command (they arrive on stdin), because a
 * failed command's text is printed in Pulumi's error.
 */

/** Quotes one word for a POSIX shell. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Where CopyToRemote puts the bundle archive, inside the app directory. */
export const BUNDLE_FILE = "bundle.tar.gz";

/**
 * Exits 0 once the VM's first boot (Node, the app's unit, the sudoers rule) is
 * done. From cloud-init 23.4 on, `status --wait` exits 2 when the boot finished
 * with recoverable errors (deprecated keys and the like: https://docs.cloud-init.io/en/latest/explanation/return_codes.html):
 * that passes, with the long status printed; any other failure prints it and fails.
 */
export const READY_COMMAND = [
  "set -u",
  "rc=0",
  "out=$(cloud-init status --wait --long 2>&1) || rc=$?",
  'case "$rc" in',
  "  0) ;;",
  `  2) printf 'actor-bench: the first boot finished with recoverable errors:\n%s\n' "$out" >&2 ;;`,
  `  *) printf 'actor-bench: the first boot failed (cloud-init status exit %s):\n%s\n' "$rc" "$out" >&2; exit 1 ;;`,
  "esac",
].join("\n");

/**
 * On the runner: replace the old dist/ with the copied bundle, then install
 * production dependencies from the lock, every tarball checked against its
 * integrity there. No package's install script runs (--ignore-scripts): the
 * ones in the tree would fetch an unpinned prebuilt binary (better-sqlite3's
 * prebuild-install, which rivetkit pulls in and the app never loads) or only
 * check versions (protobufjs, esbuild, cbor-extract, whose prebuilt comes in
 * its own locked package).
 */
export function installCommand(appDir: string, nodeBin: string): string {
  const bin = nodeBin.replace(/\/node$/, "");
  return [
    "set -eu",
    `cd ${shq(appDir)}`,
    "rm -rf dist",
    `tar -xzf ${BUNDLE_FILE}`,
    `PATH=${shq(bin)}:"$PATH" ${shq(`${bin}/npm`)} ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error`,
  ].join("\n");
}

/** The runner's credentials file, in the app directory (see RunnerCredentials). */
export const CREDENTIALS_FILE = "credentials.json";

/**
 * Writes the credentials JSON from stdin to CREDENTIALS_FILE, owner-only,
 * replacing the old file at once. Its own step, so a new SAS replaces the
 * file without re-running any group.
 */
export function credentialsCommand(appDir: string): string {
  return ["set -eu", "umask 077", `cd ${shq(appDir)}`, `cat > ${CREDENTIALS_FILE}.tmp`, `mv -f ${CREDENTIALS_FILE}.tmp ${CREDENTIALS_FILE}`].join("\n");
}

export function runnerCommand(appDir: string, nodeBin: string, args: string[]): string {
  return `cd ${shq(appDir)} && ${shq(nodeBin)} dist/workloads/runner/runner.js ${args.map(shq).join(" ")}`;
}

/**
 * Asks the gateway for one actor every 3 s until it answers or `timeoutS`
 * passes (the Engine VMs may still be in their first boot). Prints the
 * probe's JSON line; exits non-zero when the runner's code itself fails
 * (no line: waiting will not help) or time runs out.
 */
export function probeCommand(appDir: string, nodeBin: string, gatewayUrl: string, timeoutS: number): string {
  const probe = runnerCommand(appDir, nodeBin, ["probe", gatewayUrl]);
  return [
    "set -u",
    `deadline=$(( $(date +%s) + ${Math.round(timeoutS)} ))`,
    "while :; do",
    `  if out=$(${probe}); then printf '%s\\n' "$out"; exit 0; fi`,
    `  if [ -z "$out" ]; then echo "the probe on the runner failed to run" >&2; exit 1; fi`,
    `  if [ "$(date +%s)" -ge "$deadline" ]; then printf '%s\\n' "$out" >&2; echo "no answer through ${gatewayUrl} from the runner for ${Math.round(timeoutS)} s" >&2; exit 1; fi`,
    "  sleep 3",
    "done",
  ].join("\n");
}

/** Files of the single-flight lock, inside the app directory. */
export const RUN_LOCK = { lock: "run.lock", pid: "run.pid" } as const;

/** How long a second run waits for the first to let go after it was told to stop. */
export const STOP_WAIT_S = 60;

/** timeout(1)'s exit code when the time limit ended the run. */
export const TIME_LIMIT_EXIT = 124;

/**
 * One group run on the runner (the request JSON, with its credentials, on
 * stdin), single-flight and time-limited. A dropped SSH connection does not
 * stop a remote process, so a run started again first stops the one still
 * holding the lock: two drivers never load the Engine at once. The lock is an
 * flock on a file the run's processes keep open, so it is released however
 * they end; the pid file names the holder (timeout(1), which passes the
 * signal on to the driver). timeout(1) ends a run that outlives `limitS`
 * (exit 124), and kills it 30 s later if it will not stop.
 */
export function runCommand(appDir: string, nodeBin: string, limitS: number): string {
  const { lock, pid } = RUN_LOCK;
  return [
    "set -eu",
    `cd ${shq(appDir)}`,
    `exec 9>>${lock}`,
    "if ! flock -n 9; then",
    `  old=$(cat ${pid} 2>/dev/null || true)`,
    `  case "$old" in`,
    `    ''|*[!0-9]*) echo "actor-bench: another run holds ${lock} and left no pid; waiting for it" >&2 ;;`,
    `    *) echo "actor-bench: stopping the earlier run (pid $old) first" >&2; kill -TERM "$old" 2>/dev/null || true ;;`,
    "  esac",
    `  if ! flock -w ${STOP_WAIT_S} 9; then echo "actor-bench: the earlier run still holds ${appDir}/${lock} after ${STOP_WAIT_S} s; stop it by hand" >&2; exit 75; fi`,
    "fi",
    `echo $$ > ${pid}`,
    `exec timeout --kill-after=30 ${Math.round(limitS)} ${shq(nodeBin)} dist/workloads/runner/runner.js run`,
  ].join("\n");
}
