import { spawn, type ChildProcess } from "node:child_process";

/**
 * A Pulumi plugin process as the CLI starts one (a provider host, a policy
 * pack): it prints the port of its gRPC server on stdout. Resolves with the
 * child and that port; rejects with its stderr if it exits first.
 */
export async function spawnPlugin(args: string[], cwd: string): Promise<{ child: ChildProcess; port: string; stderr: () => string }> {
  const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const port = await new Promise<string>((res, rej) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /^(\d+)\s*$/m.exec(out);
      if (m) res(m[1]);
    });
    child.once("exit", (code) => rej(new Error(`${args.join(" ")} exited (${code}): ${err}`)));
  });
  return { child, port, stderr: () => err };
}

/** Closes the client and ends the plugin, waiting for it to be gone. */
export async function stopPlugin(child: ChildProcess, client: { close(): void }): Promise<void> {
  client.close();
  if (child.exitCode === null) {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}
