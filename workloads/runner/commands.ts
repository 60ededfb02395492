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
  return [
    "set -eu",
    "umask 077",
    `cd ${shq(appDir)}`,
    `cat > ${CREDENTIALS_FILE}.tmp`,
    `mv -f ${CREDENTIALS_FILE}.tmp ${CREDENTIALS_FILE}`,
  ].join("\n");
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

/**
 * Files of the single-flight lock, inside the app directory: the lock; the
 * holder's session (followed: it ends once the attempt is stored); the pid to
 * stop it by (timeout(1), which passes the signal on to the driver); its part.
 */
export const RUN_LOCK = { lock: "run.lock", session: "run.session", pid: "run.pid", part: "run.part" } as const;

/** Where each part's request, attempts, log and result live on the runner, inside the app directory. */
export const PARTS_DIR = "parts";

/** How long a second run waits for the first to let go after it was told to stop. */
const STOP_WAIT_S = 60;

/** timeout(1)'s exit code when the time limit ended the run. */
export const TIME_LIMIT_EXIT = 124;

/**
 * The detached run of one part, started by runCommand in a session of its
 * own (setsid), so no SSH connection's end reaches it: it takes the lock,
 * names itself the holder, runs the part under timeout(1), and when that ends
 * without a result (the time limit, a crash) stores what the attempt measured.
 * Its exit code goes to <part>/exit. Arguments: the part's id.
 */
export function detachedRun(nodeBin: string, limitS: number): string {
  const { lock, session, pid, part } = RUN_LOCK;
  return [
    `d=${PARTS_DIR}/$1`,
    `exec 9>>${lock}`,
    `if ! flock -w ${STOP_WAIT_S} 9; then echo 75 > "$d/exit"; exit 75; fi`,
    `echo "$1" > ${part}`,
    `timeout --kill-after=30 ${Math.round(limitS)} ${shq(nodeBin)} dist/workloads/runner/runner.js run "$d" &`,
    `echo $! > ${pid}`,
    `echo $$ > ${session}`,
    "rc=0",
    "wait $! || rc=$?",
    `if [ ! -s "$d/result.json" ]; then ${shq(nodeBin)} dist/workloads/runner/runner.js salvage "$d" || true; fi`,
    'echo "$rc" > "$d/exit"',
  ].join("\n");
}

/**
 * One part of a pass on the runner (the request JSON, without credentials, on
 * stdin), single-flight, time-limited, and detached from the SSH connection
 * that asked for it. The part is named by its request's sha256, so asking
 * again for the same part is idempotent:
 * - finished: its result line is printed again, nothing is measured;
 * - still running (the connection that started it dropped): this one follows it;
 * - stopped by its time limit or a reboot: a new attempt measures only the
 *   groups no attempt finished (runner.ts), what was measured stays in the store;
 * - another part running: it is stopped first, so two drivers never load a runtime at once.
 * Progress goes to stderr as it is written; stdout carries the one result line.
 * A run that ends without a result exits with its code (124: the time limit).
 */
export function runCommand(appDir: string, nodeBin: string, limitS: number): string {
  const { lock, session, pid, part } = RUN_LOCK;
  return [
    "set -eu",
    `cd ${shq(appDir)}`,
    `mkdir -p ${PARTS_DIR}`,
    `req=$(mktemp ${PARTS_DIR}/.request.XXXXXX)`,
    'cat > "$req"',
    `id=$(sha256sum "$req" | cut -c1-32)`,
    `d=${PARTS_DIR}/$id`,
    'mkdir -p "$d"',
    'mv -f "$req" "$d/request.json"',
    'if [ -s "$d/result.json" ]; then cat "$d/result.json"; exit 0; fi',
    `holder=$(cat ${session} 2>/dev/null || true)`,
    `alive() { case "$holder" in ''|*[!0-9]*) return 1 ;; esac; kill -0 "$holder" 2>/dev/null; }`,
    `if alive && [ "$(cat ${part} 2>/dev/null)" = "$id" ]; then`,
    '  echo "actor-bench: this part is already running (pid $holder); following it" >&2',
    "else",
    `  if alive; then old=$(cat ${pid} 2>/dev/null || true); echo "actor-bench: stopping the earlier run (pid $old) first" >&2; kill -TERM "$old" 2>/dev/null || true; fi`,
    `  exec 9>>${lock}`,
    `  if ! flock -w ${STOP_WAIT_S} 9; then echo "actor-bench: the earlier run still holds ${appDir}/${lock} after ${STOP_WAIT_S} s; stop it by hand" >&2; exit 75; fi`,
    '  rm -f "$d/exit"',
    "  exec 9>&-",
    "  # shellcheck disable=SC2016 # the detached script expands its own variables",
    `  setsid sh -c ${shq(detachedRun(nodeBin, limitS))} run "$id" </dev/null >>"$d/log" 2>&1 &`,
    "  tries=0",
    `  until [ "$(cat ${part} 2>/dev/null)" = "$id" ] && holder=$(cat ${session} 2>/dev/null) && alive; do`,
    '    if [ -e "$d/exit" ] || [ "$tries" -ge 300 ]; then break; fi',
    "    tries=$((tries + 1)); sleep 0.1",
    "  done",
    "fi",
    'touch "$d/log"',
    'if alive; then tail -n +1 --pid="$holder" -f "$d/log" >&2 || true; else cat "$d/log" >&2; fi',
    'if [ -s "$d/result.json" ]; then cat "$d/result.json"; exit 0; fi',
    'code=$(cat "$d/exit" 2>/dev/null || echo 1)',
    'echo "actor-bench: the run ended without a result (exit $code); what it measured is in the result container, and asking again measures only the rest" >&2',
    'exit "$code"',
  ].join("\n");
}
