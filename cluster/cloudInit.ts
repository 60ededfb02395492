/**
 * cloud-config user data of the Engine and runner VMs. Pure: the component
 * base64-encodes the result into the VM's customData, and the tests run
 * Debian's `cloud-init schema` and `shellcheck` on what these return.
 */
import { stringify } from "yaml";
import { DEFAULT_ENGINE_SETTINGS } from "./engineConfig";
import type { EngineRelease } from "./engineRelease";
import { nodeRelease } from "./nodeRelease";
import { renderClusterEngineConfig, renderNatsConfig, type ClusterCredentials, type ClusterPlan } from "./topology";
import { renderEngineBootScript, renderEngineInstallScript, renderNodeInstallScript, renderNvmeMountScript } from "./scripts";

export const ENGINE_PATHS = {
  dataDir: "/var/lib/rivet",
  binDir: "/opt/actor-bench/bin",
  nvmeScript: "/opt/actor-bench/nvme-mount.sh",
  installScript: "/opt/actor-bench/install-engine.sh",
  bootScript: "/opt/actor-bench/boot.sh",
  engineConfig: "/etc/rivet/engine.json",
  natsConfig: "/etc/nats/actor-bench.conf",
} as const;

/** The system users the Engine and NATS run as (the boot script creates rivet; Debian's nats-server package creates nats). */
export const SERVICE_USERS = { engine: "rivet", nats: "nats" } as const;

/**
 * systemd sandboxing shared by the Engine and NATS units: no privilege gain,
 * a read-only system but for `writable`, private /tmp and devices, no kernel
 * or control-group changes, no capabilities, the system-service syscall set.
 */
export function hardening(writable: string[]): string {
  return [
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    ...(writable.length ? [`ReadWritePaths=${writable.join(" ")}`] : []),
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "PrivateDevices=yes",
    "DevicePolicy=closed",
    "ProtectKernelTunables=yes",
    "ProtectKernelModules=yes",
    "ProtectKernelLogs=yes",
    "ProtectControlGroups=yes",
    "ProtectClock=yes",
    "ProtectHostname=yes",
    "ProtectProc=invisible",
    "RestrictSUIDSGID=yes",
    "RestrictRealtime=yes",
    "RestrictNamespaces=yes",
    "LockPersonality=yes",
    "RemoveIPC=yes",
    "KeyringMode=private",
    "CapabilityBoundingSet=",
    "AmbientCapabilities=",
    "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
    "SystemCallArchitectures=native",
    "SystemCallFilter=@system-service",
    "SystemCallFilter=~@privileged",
    "UMask=0077",
  ].join("\n");
}

export const RUNNER_PATHS = {
  nodeDir: "/opt/node",
  appDir: "/opt/actor-bench/app",
  nodeScript: "/opt/actor-bench/install-node.sh",
  appEnv: "/etc/actor-bench/app.env",
} as const;

export interface WrittenFile {
  path: string;
  content: string;
  permissions: string;
}

/** Every script a VM runs, by path: what the tests hand to shellcheck. */
export function scriptsOf(files: WrittenFile[]): WrittenFile[] {
  return files.filter((f) => f.content.startsWith("#!/bin/bash"));
}

function cloudConfig(packages: string[], files: WrittenFile[], runcmd: string[][]): string {
  const doc = {
    package_update: true,
    packages,
    write_files: files.map((f) => ({ path: f.path, permissions: f.permissions, owner: "root:root", content: f.content })),
    runcmd,
  };
  return `#cloud-config\n${stringify(doc, { lineWidth: 0 })}`;
}

export function engineVmFiles(plan: ClusterPlan, index: number, release: EngineRelease, postgresUrl: string, creds: ClusterCredentials): WrittenFile[] {
  const p = ENGINE_PATHS;
  // Azure's Flexible Server requires TLS; Debian's CA bundle holds its root.
  const config = renderClusterEngineConfig(plan, index, postgresUrl, DEFAULT_ENGINE_SETTINGS, creds, "/etc/ssl/certs/ca-certificates.crt");
  const engineUnit = `[Unit]
Description=Rivet Engine ${release.version} (actor-bench)
After=network-online.target actor-bench-nats.service
Wants=network-online.target
RequiresMountsFor=${p.dataDir}

[Service]
User=${SERVICE_USERS.engine}
Group=${SERVICE_USERS.engine}
WorkingDirectory=${p.dataDir}
Environment=RUST_LIB_BACKTRACE=0
# The config holds the Postgres password and stays root's: systemd hands the service a copy only it can read.
LoadCredential=engine.json:${p.engineConfig}
ExecStartPre=${p.installScript} --verify
ExecStart=${p.binDir}/rivet-engine start --config \${CREDENTIALS_DIRECTORY}/engine.json
Restart=on-failure
RestartPreventExitStatus=3
LimitNOFILE=1048576
${hardening([p.dataDir])}

[Install]
WantedBy=multi-user.target
`;
  const natsUnit = `[Unit]
Description=NATS member ${plan.nodes[index].name} (actor-bench)
After=network-online.target
Wants=network-online.target

[Service]
User=${SERVICE_USERS.nats}
Group=${SERVICE_USERS.nats}
# The config holds the NATS passwords and stays root's: the service reads its credential copy.
LoadCredential=nats.conf:${p.natsConfig}
ExecStart=/usr/sbin/nats-server -c \${CREDENTIALS_DIRECTORY}/nats.conf
Restart=on-failure
${hardening([])}

[Install]
WantedBy=multi-user.target
`;
  return [
    { path: p.nvmeScript, permissions: "0755", content: renderNvmeMountScript(p.dataDir) },
    { path: p.installScript, permissions: "0755", content: renderEngineInstallScript(release, p.binDir) },
    { path: p.bootScript, permissions: "0755", content: renderEngineBootScript({ nvme: p.nvmeScript, install: p.installScript, user: SERVICE_USERS.engine, dataDir: p.dataDir }) },
    // Holds the Postgres password and the admin token: root only.
    { path: p.engineConfig, permissions: "0600", content: `${JSON.stringify(config, null, 2)}\n` },
    // Holds the NATS passwords: root only.
    { path: p.natsConfig, permissions: "0600", content: renderNatsConfig(plan, index, creds) },
    { path: "/etc/systemd/system/rivet-engine.service", permissions: "0644", content: engineUnit },
    { path: "/etc/systemd/system/actor-bench-nats.service", permissions: "0644", content: natsUnit },
  ];
}

/** User data of Engine VM `index`; it holds the Postgres URL with its password and the cluster's credentials, so it is a secret. */
export function renderEngineCloudInit(plan: ClusterPlan, index: number, release: EngineRelease, postgresUrl: string, creds: ClusterCredentials): string {
  const files = engineVmFiles(plan, index, release, postgresUrl, creds);
  return cloudConfig(["nats-server", "curl", "ca-certificates", "e2fsprogs"], files, [[ENGINE_PATHS.bootScript]]);
}

export function runnerVmFiles(nodeVersion: string, gatewayUrl: string, adminUser: string, adminToken: string): WrittenFile[] {
  const p = RUNNER_PATHS;
  const appUnit = `[Unit]
Description=actor-bench RivetKit app
After=network-online.target
Wants=network-online.target
ConditionPathExists=${p.appDir}/dist/workloads/rivet/app.js

[Service]
User=${adminUser}
WorkingDirectory=${p.appDir}
EnvironmentFile=${p.appEnv}
ExecStart=${p.nodeDir}/bin/node ${p.appDir}/dist/workloads/rivet/app.js
Restart=on-failure
NoNewPrivileges=yes
ProtectSystem=full
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
RestrictSUIDSGID=yes
LockPersonality=yes
CapabilityBoundingSet=

[Install]
WantedBy=multi-user.target
`;
  // The app registers with the Engine's admin token (RIVET_TOKEN).
  const env = [`RIVET_ENDPOINT=${gatewayUrl}`, `RIVET_TOKEN=${adminToken}`, "RIVET_NAMESPACE=default", "RIVET_RUN_SERVICES=0", "RIVET_LOG_LEVEL=warn", "RUST_LIB_BACKTRACE=0", ""].join("\n");
  return [
    { path: p.nodeScript, permissions: "0755", content: renderNodeInstallScript(nodeRelease(nodeVersion), p.nodeDir) },
    // Holds the admin token: root only (systemd reads it for the unit).
    { path: p.appEnv, permissions: "0600", content: env },
    { path: "/etc/systemd/system/rivetkit-app.service", permissions: "0644", content: appUnit },
    { path: RUNNER_SUDOERS, permissions: "0440", content: renderRunnerSudoers(adminUser) },
  ];
}

/** Read after the image's and cloud-init's own sudoers files (lexical order), so its rules are the last that match. */
export const RUNNER_SUDOERS = "/etc/sudoers.d/zz-actor-bench";

/** What the deploy runs with sudo: the app's unit, nothing else. */
export const APP_UNIT_COMMANDS = ["enable --now rivetkit-app", "restart rivetkit-app", "stop rivetkit-app"].map((a) => `/usr/bin/systemctl ${a}`);

/**
 * The runner's admin user may run the app unit's commands as root and nothing
 * else: sudo uses the last rule that matches, so "!ALL" takes back what the
 * image granted, and the command list after it gives back only the deploy's.
 */
export function renderRunnerSudoers(adminUser: string): string {
  return `# actor-bench: ${adminUser} may manage the app's unit as root, nothing else.\n${adminUser} ALL=(ALL:ALL) !ALL\n${adminUser} ALL=(root) NOPASSWD: ${APP_UNIT_COMMANDS.join(", ")}\n`;
}

/** User data of the runner: Node, the app's unit and its env (with the admin token, so it is a secret); the app itself is deployed over SSH by RunnerVm. */
export function renderRunnerCloudInit(nodeVersion: string, gatewayUrl: string, adminUser: string, adminToken: string): string {
  const files = runnerVmFiles(nodeVersion, gatewayUrl, adminUser, adminToken);
  return cloudConfig(["curl", "ca-certificates", "xz-utils", "tar"], files, [
    [RUNNER_PATHS.nodeScript],
    ["install", "-d", "-o", adminUser, "-g", adminUser, RUNNER_PATHS.appDir],
    ["systemctl", "daemon-reload"],
  ]);
}
