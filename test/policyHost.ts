import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { spawnPlugin, stopPlugin } from "./grpcChild";

/**
 * The policy pack started as the Pulumi CLI starts it (`node policy/index.js`
 * in the pack's folder; it prints its port) and an analyzer client built from
 * the SDK's own generated protobuf code: the engine's side of the preview.
 */
const fromSdk = createRequire(require.resolve("@pulumi/pulumi/package.json", { paths: [process.cwd()] }));
const grpc = fromSdk("@grpc/grpc-js");
const rpc = fromSdk("./proto/analyzer_grpc_pb");
const proto = fromSdk("./proto/analyzer_pb");
const structproto = fromSdk("google-protobuf/google/protobuf/struct_pb");

export interface AnalyzerInput {
  type: string;
  name: string;
  urn: string;
  /** As the engine sends them: secrets in their wire form, unknowns as the unknown sentinel. */
  props: Record<string, unknown>;
}

export interface Diagnostic {
  policy: string;
  message: string;
  urn: string;
  enforcement: number;
}

export interface PolicyHost {
  child: ChildProcess;
  analyze(r: AnalyzerInput): Promise<Diagnostic[]>;
  analyzeStack(rs: AnalyzerInput[]): Promise<Diagnostic[]>;
  close(): Promise<void>;
}

export async function startPolicyPack(dir = resolve("policy")): Promise<PolicyHost> {
  const { child, port } = await spawnPlugin(["index.js"], dir);
  const client = new rpc.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = <T>(method: string, req: unknown): Promise<T> =>
    new Promise((res, rej) => client[method](req, (e: Error | null, r: T) => (e ? rej(e) : res(r))));
  type Message = {
    setType(t: string): void;
    setName(n: string): void;
    setUrn(u: string): void;
    setProperties(s: unknown): void;
    setOptions(o: unknown): void;
  };
  const fill = <M extends Message>(m: M, r: AnalyzerInput): M => {
    m.setType(r.type);
    m.setName(r.name);
    m.setUrn(r.urn);
    // JSON first: a protobuf Struct holds no undefined.
    m.setProperties(structproto.Struct.fromJavaScript(JSON.parse(JSON.stringify(r.props))));
    // The engine always sends the resource's options (a pack refuses a request without them).
    m.setOptions(new proto.AnalyzerResourceOptions());
    return m;
  };
  const diagnostics = (resp: any): Diagnostic[] =>
    resp
      .getDiagnosticsList()
      .map((d: any) => ({ policy: d.getPolicyname(), message: d.getMessage(), urn: d.getUrn(), enforcement: d.getEnforcementlevel() }));
  return {
    child,
    analyze: async (r) => diagnostics(await call("analyze", fill(new proto.AnalyzeRequest(), r))),
    async analyzeStack(rs) {
      const req = new proto.AnalyzeStackRequest();
      req.setResourcesList(rs.map((r) => fill(new proto.AnalyzerResource(), r)));
      return diagnostics(await call("analyzeStack", req));
    },
    close: () => stopPlugin(child, client),
  };
}
