#!/usr/bin/env node
// Some platform packages that our dependencies list as optionalDependencies
// (other OS builds of rivetkit-napi, engine-cli, cbor-extract, ...) are not on
// the registry this project installs from. `npm install` skips them silently
// and leaves them out of package-lock.json, and `npm ci` then refuses the lock
// as out of sync. This adds each missing one to the lock as an optional entry
// with the os/cpu/libc its name encodes, so `npm ci` skips it the same way.
// Run after every `npm install` that changes the lock: node .ci/lock-unpublished-optionals.mjs
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const pkgs = lock.packages;
const PLATFORM = /-(darwin|linux|win32|freebsd|android)-(arm64|x64|64|arm|ia32)(?:-(musl|gnu|msvc|gnueabihf))?$/;

let added = 0;
for (const [at, entry] of Object.entries(pkgs)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${at ? `${at}/` : ""}node_modules/${name}`;
    if (pkgs[nested] || pkgs[`node_modules/${name}`]) continue;
    const m = PLATFORM.exec(name);
    if (!m) throw new Error(`${name} (optional dependency of ${at || "the root"}) is missing from the lock and names no platform: run npm install`);
    const e = { version: spec, optional: true, os: [m[1]], cpu: [m[2] === "64" ? "x64" : m[2]] };
    if (m[3] === "musl") e.libc = ["musl"];
    if (m[3] === "gnu" || m[3] === "gnueabihf") e.libc = ["glibc"];
    pkgs[`node_modules/${name}`] = e;
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(path, JSON.stringify(lock, null, 2) + "\n");
console.log(`package-lock.json: ${added} unpublished optional platform packages recorded`);
