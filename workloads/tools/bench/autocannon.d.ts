// The part of autocannon's programmatic API the driver benchmark uses.
declare module "autocannon" {
  interface Instance {
    on(event: "response", listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): void;
  }
  function autocannon(opts: Record<string, unknown>, cb: (err: Error | null, result: unknown) => void): Instance;
  export default autocannon;
}
