import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { spawnPlugin, stopPlugin } from "./grpcChild";

/**
 * The dynamic-provider host that ships in @pulumi/pulumi, started as the
 * Pulumi CLI starts it (one argument: an engine address; it prints its port),
 * and a gRPC client for it built from the SDK's own generated protobuf code.
 */
const fromSdk = createRequire(require.resolve("@pulumi/pulumi/package.json", { paths: [process.cwd()] }));
const grpc = fromSdk("@grpc/grpc-js");
const provrpc = fromSdk("./proto/provider_grpc_pb");
const provproto = fromSdk("./proto/provider_pb");
const structproto = fromSdk("google-protobuf/google/protobuf/struct_pb");

export type Props = Record<string, unknown>;

export interface ProviderHost {
  child: ChildProcess;
  stderr: () => string;
  check(urn: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: Array<{ property: string; reason: string }> }>;
  diff(urn: string, id: string, olds: Props, news: Props): Promise<{ changes: "none" | "some" | "unknown"; replaces: string[] }>;
  create(urn: string, props: Props): Promise<{ id: string; props: Props }>;
  read(urn: string, id: string, props: Props): Promise<{ id: string; props: Props }>;
  delete(urn: string, id: string, props: Props): Promise<void>;
  close(): Promise<void>;
}

export const urnOf = (type: string, name: string) => `urn:pulumi:test::actor-bench::${type}::${name}`;

export async function startProviderHost(cwd = process.cwd()): Promise<ProviderHost> {
  const entry = resolve(cwd, "node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js");
  const { child, port, stderr } = await spawnPlugin([entry, "127.0.0.1:1"], cwd);
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = <T>(method: string, req: unknown): Promise<T> =>
    new Promise((res, rej) => client[method](req, (e: Error | null, r: T) => (e ? rej(e) : res(r))));
  const struct = (p: Props) => structproto.Struct.fromJavaScript(p);
  return {
    child,
    stderr,
    async check(urn, olds, news) {
      const req = new provproto.CheckRequest();
      req.setUrn(urn);
      req.setOlds(struct(olds));
      req.setNews(struct(news));
      const r = await call<any>("check", req);
      return {
        inputs: r.getInputs().toJavaScript(),
        failures: r.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
      };
    },
    async diff(urn, id, olds, news) {
      const req = new provproto.DiffRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setOlds(struct(olds));
      req.setNews(struct(news));
      const r = await call<any>("diff", req);
      const C = provproto.DiffResponse.DiffChanges;
      const changes = r.getChanges() === C.DIFF_NONE ? "none" : r.getChanges() === C.DIFF_SOME ? "some" : "unknown";
      return { changes, replaces: r.getReplacesList() };
    },
    async create(urn, props) {
      const req = new provproto.CreateRequest();
      req.setUrn(urn);
      req.setProperties(struct(props));
      const r = await call<any>("create", req);
      return { id: r.getId(), props: r.getProperties().toJavaScript() };
    },
    async read(urn, id, props) {
      const req = new provproto.ReadRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setProperties(struct(props));
      const r = await call<any>("read", req);
      return { id: r.getId(), props: r.getProperties()?.toJavaScript() ?? {} };
    },
    async delete(urn, id, props) {
      const req = new provproto.DeleteRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setProperties(struct(props));
      await call<unknown>("delete", req);
    },
    close: () => stopPlugin(child, client),
  };
}
