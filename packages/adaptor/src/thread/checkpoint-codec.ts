// Apart from the thread turn (loaded with a process's first thread turn), so that the root exports it without loading that.

/**
 * Codec of the checkpoint `data` this SDK writes. With portable sessions a record's codec carries a
 * parameter saying where its session files are: `json/v1;session=stored` (in the store's session
 * state) or `json/v1;session=local` (only in the CLI home of the host that ran its last turn).
 */
export const CHECKPOINT_CODEC = "json/v1";
