// What the load soak's parent and its client processes agree on.

/** How often each client reports its latencies. */
export const WINDOW_MS = 10_000;
/** Namespaces the clients spread their calls over. */
export const AGENTS = 8;
