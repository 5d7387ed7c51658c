import { AdaptorError } from "@adaptor/errors";
import { ErrThreadCatalogUnsupported } from "./sentinels.js";

/**
 * Threads cannot be listed or deleted because the Agent's thread store lacks the optional
 * thread-catalog capability (`supportsThreadCatalog` is false: no `listThreads` / `deleteThread`).
 * Nothing was read or deleted. Matches {@link ErrThreadCatalogUnsupported}.
 */
export class ThreadCatalogUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.ThreadCatalogUnsupportedError");
  static override readonly sentinel = ErrThreadCatalogUnsupported;

  constructor() {
    super(
      "this thread store has no thread-catalog capability (listThreads, deleteThread); " +
        "use MemoryThreadStore, SqliteThreadStore or PostgresThreadStore, or implement ThreadCatalogStore",
    );
  }
}
