/**
 * What an actor answers to every operation, as the driver reads it: the
 * RivetKit actors' action results and the floor server's replies (which
 * speak the Engine gateway's routes and reply shape). The Durable Object's
 * Worker answers its own shape (DoReply), read by WorkerClient.
 */
export interface ActorReply {
  /** True on the first request this instance served: proof of a fresh start. */
  cold: boolean;
  /** Handler interval in ms (performance.now around the operation's body). */
  actorMs: number;
  /** SQL interval in ms around the awaited SQLite call; null when the operation ran no SQL. */
  sqlMs: number | null;
  /** Result value of the operation (row size, counts), null when there is none. */
  value: unknown;
}
