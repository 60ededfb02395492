/** Runs fn(0..n-1) with at most `concurrency` calls in flight; the first rejection rejects (the rest still settle). */
export async function forEachBounded(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) await fn(i);
  };
  const results = await Promise.allSettled(Array.from({ length: Math.max(0, Math.min(concurrency, n)) }, worker));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}
