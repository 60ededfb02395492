/**
 * Shell scripts the cloud VMs run at boot, rendered as strings. Every
 * parameter has an environment override so the tests can run the same script
 * against a loop device or a scratch directory.
 */
import type { EngineRelease } from "./engineRelease";

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
systemctl enable --now actor-bench-nats.service
systemctl enable --now rivet-engine.service
echo "actor-bench: engine VM ready"
`;
}

/**
 * Installs Node on the runner from nodejs.org, checked against the release's
 * SHASUMS256.txt (fetched over HTTPS from the same site).
 */
export function renderNodeInstallScript(nodeVersion: string, installDir: string): string {
  return `#!/bin/bash
# Installs Node ${nodeVersion} from nodejs.org after checking it against SHASUMS256.txt.
set -euo pipefail
BASE_URL="\${NODE_BASE_URL:-https://nodejs.org/dist/${nodeVersion}}"
INSTALL_DIR="\${INSTALL_DIR:-${installDir}}"
FILE="node-${nodeVersion}-linux-x64.tar.xz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 5 --retry-delay 2 -o "$work/$FILE" "$BASE_URL/$FILE"
curl -fsSL --retry 5 --retry-delay 2 -o "$work/SHASUMS256.txt" "$BASE_URL/SHASUMS256.txt"
expected="$(awk -v f="$FILE" '$2 == f { print $1 }' "$work/SHASUMS256.txt")"
actual="$(sha256sum "$work/$FILE" | cut -d' ' -f1)"
if [ -z "$expected" ] || [ "$actual" != "$expected" ]; then
  echo "actor-bench: $FILE sha256 mismatch: expected '$expected', got $actual" >&2
  exit 3
fi
mkdir -p "$INSTALL_DIR"
tar -xJf "$work/$FILE" -C "$INSTALL_DIR" --strip-components=1
echo "actor-bench: node ${nodeVersion} installed in $INSTALL_DIR"
`;
}
