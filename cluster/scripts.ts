/**
 * Shell scripts the cloud VMs run at boot, rendered as strings. Every
 * parameter has an environment override so the tests can run the same script
 * against a loop device or a scratch directory.
 */
import type { EngineRelease } from "./engineRelease";
import type { NodeRelease } from "./nodeRelease";

/** Azure's local NVMe disks; the OS disk of an NVMe VM reports "MSFT NVMe Accelerator". */
export const LOCAL_NVME_MODEL = "Microsoft NVMe Direct Disk";

/**
 * Finds the first local NVMe disk by its model (never the OS disk), makes an
 * ext4 file system on it unless it has one, and mounts it noatime.
 */
export function renderNvmeMountScript(mountPoint: string): string {
  return `#!/bin/bash
# Mounts Azure's local NVMe disk (found by model, never the OS disk) at the mount point.
set -euo pipefail
SYS_BLOCK="\${SYS_BLOCK:-/sys/block}"
DEV_DIR="\${DEV_DIR:-/dev}"
MOUNT_POINT="\${MOUNT_POINT:-${mountPoint}}"
MODEL="${LOCAL_NVME_MODEL}"

device=""
for dir in "$SYS_BLOCK"/nvme*n1; do
  [ -e "$dir/device/model" ] || continue
  model="$(tr -s ' ' < "$dir/device/model" | sed 's/ *$//')"
  case "$model" in
    "$MODEL"*) device="$DEV_DIR/$(basename "$dir")"; break ;;
  esac
done
if [ -z "$device" ]; then
  echo "actor-bench: no local NVMe disk (model '$MODEL') under $SYS_BLOCK; is the VM size an L-series?" >&2
  exit 1
fi
if ! blkid -o value -s TYPE "$device" >/dev/null 2>&1; then
  mkfs.ext4 -q -F -L rivet-nvme "$device"
fi
mkdir -p "$MOUNT_POINT"
if ! mountpoint -q "$MOUNT_POINT"; then
  mount -o noatime "$device" "$MOUNT_POINT"
fi
echo "actor-bench: $device mounted noatime at $MOUNT_POINT"
`;
}

/**
 * Installs the pinned Engine: downloads npm's tarball, checks the binary's
 * sha256 and only then puts it in place. \`--verify\` re-checks the installed
 * binary (systemd runs it before every start). A mismatch exits 3 with one
 * clear line and installs nothing.
 */
export function renderEngineInstallScript(release: EngineRelease, installDir: string): string {
  return `#!/bin/bash
# Installs rivet-engine ${release.version} after checking its sha256; --verify re-checks the installed binary.
set -euo pipefail
TARBALL_URL="\${ENGINE_TARBALL_URL:-${release.tarballUrl}}"
EXPECTED="\${ENGINE_SHA256:-${release.binarySha256}}"
INSTALL_DIR="\${INSTALL_DIR:-${installDir}}"
BINARY="$INSTALL_DIR/rivet-engine"

check() {
  local actual
  actual="$(sha256sum "$1" | cut -d' ' -f1)"
  if [ "$actual" != "$EXPECTED" ]; then
    echo "actor-bench: rivet-engine sha256 mismatch for $1: expected $EXPECTED, got $actual; refusing to run it" >&2
    exit 3
  fi
}

if [ "\${1:-}" = "--verify" ]; then
  [ -x "$BINARY" ] || { echo "actor-bench: $BINARY is not installed" >&2; exit 3; }
  check "$BINARY"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 5 --retry-delay 2 -o "$work/engine.tgz" "$TARBALL_URL"
tar -xzf "$work/engine.tgz" -C "$work" package/rivet-engine
check "$work/package/rivet-engine"
mkdir -p "$INSTALL_DIR"
install -m 0755 "$work/package/rivet-engine" "$BINARY.new"
mv -f "$BINARY.new" "$BINARY"
echo "actor-bench: rivet-engine ${release.version} installed at $BINARY (sha256 $EXPECTED)"
`;
}

/** The Engine VM's boot: disk, then the checked install, then the services; any failure stops it there. */
export function renderEngineBootScript(paths: { nvme: string; install: string; user: string; dataDir: string }): string {
  return `#!/bin/bash
# Boot of an Engine VM: local NVMe, checked Engine install, the Engine's own user, then NATS and the Engine.
set -euo pipefail
${paths.nvme}
${paths.install}
id -u ${paths.user} >/dev/null 2>&1 || useradd --system --no-create-home --home-dir ${paths.dataDir} --shell /usr/sbin/nologin ${paths.user}
chown -R ${paths.user}:${paths.user} ${paths.dataDir}
chmod 0750 ${paths.dataDir}
systemctl daemon-reload
# Debian's nats-server package starts its own unauthenticated server on loopback: only the cluster's own unit may run.
systemctl disable --now nats-server.service 2>/dev/null || true
systemctl mask nats-server.service
systemctl enable --now actor-bench-nats.service
systemctl enable --now rivet-engine.service
echo "actor-bench: engine VM ready"
`;
}

/**
 * Installs Node and npm on the runner from the npm registry's tarballs, each
 * checked against the sha512 pinned in cluster/nodeRelease.ts before anything
 * is unpacked. A mismatch exits 3 and installs nothing.
 */
export function renderNodeInstallScript(release: NodeRelease, installDir: string): string {
  return `#!/bin/bash
# Installs Node ${release.version} and npm ${release.npmVersion} from the npm registry, each checked against its pinned sha512.
set -euo pipefail
REGISTRY="\${NPM_REGISTRY:-https://registry.npmjs.org}"
INSTALL_DIR="\${INSTALL_DIR:-${installDir}}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fetch() { # <registry path> <expected sha512> <file>
  curl -fsSL --retry 5 --retry-delay 2 -o "$work/$3" "$REGISTRY/$1"
  actual="$(sha512sum "$work/$3" | cut -d' ' -f1)"
  if [ "$actual" != "$2" ]; then
    echo "actor-bench: $1 sha512 mismatch: expected $2, got $actual" >&2
    exit 3
  fi
}
fetch "${release.node.path}" "${release.node.sha512}" node.tgz
fetch "${release.npm.path}" "${release.npm.sha512}" npm.tgz
mkdir -p "$INSTALL_DIR/lib/node_modules/npm"
tar -xzf "$work/node.tgz" -C "$INSTALL_DIR" --strip-components=1
tar -xzf "$work/npm.tgz" -C "$INSTALL_DIR/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$INSTALL_DIR/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$INSTALL_DIR/bin/npx"
echo "actor-bench: node ${release.version} and npm ${release.npmVersion} installed in $INSTALL_DIR"
`;
}

/**
 * The runner's first boot: Node (checked), the app directory the deploy
 * copies into, the app's own system user. One script with `set -e`, so a
 * failed step fails the boot (cloud-init's runcmd reports only its last
 * command's status, and a failed Node install would pass unseen).
 */
export function renderRunnerBootScript(p: { node: string; appDir: string; adminUser: string; appUser: string }): string {
  return `#!/bin/bash
# First boot of the runner VM: Node, the app directory for the deploy, the app's own user; any failure stops it there.
set -euo pipefail
${p.node}
install -d -o ${p.adminUser} -g ${p.adminUser} ${p.appDir}
id -u ${p.appUser} >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ${p.appUser}
systemctl daemon-reload
echo "actor-bench: runner VM ready"
`;
}
