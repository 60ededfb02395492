/** The pragmas every floor file is opened with: the durability the benchmark claims for a write (fsync at each commit). */
export const FLOOR_PRAGMAS = ["journal_mode = WAL", "synchronous = FULL"] as const;
