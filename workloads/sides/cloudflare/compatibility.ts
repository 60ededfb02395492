/** The Worker's compatibility date: local workerd and the deployed script use the same. */
export const COMPATIBILITY_DATE = "2026-04-01";
