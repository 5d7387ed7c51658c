// Apart from portable sessions (loaded with a process's first thread turn), so that the Agent and the root use it without loading them.

/** Default most bytes (compressed) a thread's stored session state may hold: 64 MiB. */
export const DEFAULT_SESSION_STATE_LIMIT_BYTES = 64 * 1024 * 1024;
