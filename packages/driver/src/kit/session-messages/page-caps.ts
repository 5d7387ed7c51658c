/**
 * The most bytes one message of a session's history is read with by `getSessionMessages`: a
 * Claude Code transcript entry longer than this (a huge pasted file or tool output) is linked but
 * not shown; an ACP agent's replayed message keeps no more content past it. 16 MiB.
 */
export const MAX_SESSION_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * The bytes of messages one `getSessionMessages` page reads at most: a page ends early, after at
 * least one message, once it holds this many (its cursor goes on from there). 64 MiB.
 */
export const MAX_SESSION_PAGE_BYTES = 64 * 1024 * 1024;
