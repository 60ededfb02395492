/**
 * cloud-config user data of the Engine and runner VMs. Pure: the component
 * base64-encodes the result into the VM's customData, and the tests run
 * Debian's `cloud-init schema` and `shellcheck` on what these return.
 */
import { stringify } from "yaml";
import { DEFAULT_ENGINE_SETTINGS } from "./engineConfig";
import type { EngineRelease } from "./engineRelease";
import { renderClusterEngineConfig, renderNatsConfig, type ClusterPlan } from "./topology";
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

export function engineVmFiles(plan: ClusterPlan, index: number, release: EngineRelease, postgresUrl: string): WrittenFile[] {
  const p = ENGINE_PATHS;
  // Azure's Flexible Server requires TLS; Debian's CA bundle holds its root.
  const config = renderClusterEngineConfig(plan, index, postgresUrl, DEFAULT_ENGINE_SETTINGS, "/etc/ssl/certs/ca-certificates.crt");
  const engineUnit = `[Unit]
Description=Rivet Engine ${release.version} (actor-bench)
After=network-online.target actor-bench-nats.service
Wants=network-online.target
RequiresMountsFor=${p.dataDir}

[Service]
WorkingDirectory=${p.dataDir}
Environment=RUST_LIB_BACKTRACE=0
ExecStartPre=${p.installScript} --verify
ExecStart=${p.binDir}/rivet-engine start --config ${p.engineConfig}
Restart=on-failure
RestartPreventExitStatus=3
LimitNOFILE=1048576

[Install]
WantedBy=multi-user.target
`;
  const natsUnit = `[Unit]
Description=NATS member ${plan.nodes[index].name} (actor-bench)
After=network-online.target
Wants=network-online.target

[Service]
ExecStart=/usr/sbin/nats-server -c ${p.natsConfig}
Restart=on-failure

[Install]
WantedBy=multi-user.target
`;
  return [
    { path: p.nvmeScript, permissions: "0755", content: renderNvmeMountScript(p.dataDir) },
    { path: p.installScript, permissions: "0755", content: renderEngineInstallScript(release, p.binDir) },
    { path: p.bootScript, permissions: "0755", content: renderEngineBootScript({ nvme: p.nvmeScript, install: p.installScript }) },
    // Holds the Postgres password: root only.
    { path: p.engineConfig, permissions: "0600", content: `${JSON.stringify(config, null, 2)}\n` },
    { path: p.natsConfig, permissions: "0644", content: renderNatsConfig(plan, index) },
    { path: "/etc/systemd/system/rivet-engine.service", permissions: "0644", content: engineUnit },
    { path: "/etc/systemd/system/actor-bench-nats.service", permissions: "0644", content: natsUnit },
  ];
}

/** User data of Engine VM `index`; it holds the Postgres URL with its password, so it is a secret. */
export function renderEngineCloudInit(plan: ClusterPlan, index: number, release: EngineRelease, postgresUrl: string): string {
  const files = engineVmFiles(plan, index, release, postgresUrl);
  return cloudConfig(["nats-server", "curl", "ca-certificates", "e2fsprogs"], files, [[ENGINE_PATHS.bootScript]]);
}

export function runnerVmFiles(nodeVersion: string, gatewayUrl: string, adminUser: string): WrittenFile[] {
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

[Install]
WantedBy=multi-user.target
`;
  const env = [`RIVET_ENDPOINT=${gatewayUrl}`, "RIVET_NAMESPACE=default", "RIVET_RUN_SERVICES=0", "RIVET_LOG_LEVEL=warn", "RUST_LIB_BACKTRACE=0", ""].join("\n");
  return [
    { path: p.nodeScript, permissions: "0755", content: renderNodeInstallScript(nodeVersion, p.nodeDir) },
    { path: p.appEnv, permissions: "0644", content: env },
    { path: "/etc/systemd/system/rivetkit-app.service", permissions: "0644", content: appUnit },
  ];
}

/** User data of the runner: Node, the app's unit; the app itself is deployed over SSH by RunnerVm. */
export function renderRunnerCloudInit(nodeVersion: string, gatewayUrl: string, adminUser: string): string {
  const files = runnerVmFiles(nodeVersion, gatewayUrl, adminUser);
  return cloudConfig(["curl", "ca-certificates", "xz-utils", "tar"], files, [
    [RUNNER_PATHS.nodeScript],
    ["install", "-d", "-o", adminUser, "-g", adminUser, RUNNER_PATHS.appDir],
    ["systemctl", "daemon-reload"],
  ]);
}
