/** The cluster cannot be described as asked (an Engine version with no pinned binary or no topology). */
export class ClusterConfigError extends Error {}
