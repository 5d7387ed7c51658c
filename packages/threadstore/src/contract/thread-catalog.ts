import type { ThreadStore } from "./thread-store.js";

/** What {@link ThreadCatalogStore.listThreads} is asked for. Every field is optional. */
export interface ListThreadsQuery {
  /** Only keys that start with this string (compared exactly, no case folding). Default `""`: every key. */
  readonly prefix?: string;
  /** The most threads in one page, an integer in [1, 1000]. Default 100. */
  readonly limit?: number;
  /**
   * Where the page starts: the `nextCursor` of the previous page (only keys after it are
   * listed). Absent: from the first key.
   */
  readonly cursor?: string;
}

/** One thread as listed: its key's active record, without the checkpoint. Times are UTC `Date`s. */
export interface ThreadSummary {
  /** The thread key. */
  readonly key: string;
  /** Id of the key's active record. */
  readonly recordId: string;
  /** Driver type that produced the checkpoint, e.g. `"claude"`. */
  readonly driverType: string;
  /** Host identity (tenant, user) stored with the record. */
  readonly identity: string;
  /** When the active record was first stored (its conversation began). */
  readonly createdAt: Date;
  /** When the active record was last committed: the thread's last update. */
  readonly updatedAt: Date;
  /** The active record's revision (one more per committed write). */
  readonly revision: number;
  /** Records of the key replaced by a newer conversation (kept until the thread is deleted). */
  readonly archivedRecords: number;
  /** Bytes of session state stored with the active record, not its archived ones (0 when none, or without the capability). */
  readonly sessionStateBytes: number;
}

/** One page of {@link ThreadCatalogStore.listThreads}. */
export interface ThreadPage {
  /** Threads in ascending key order (by the keys' UTF-8 bytes). */
  readonly threads: ThreadSummary[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  readonly nextCursor?: string;
}

/** What {@link ThreadCatalogStore.deleteThread} removed. */
export interface DeletedThread {
  /** Records removed (the active one and every archived one). 0: the key had none. */
  readonly records: number;
  /** Stored approvals of the key removed, whatever their status. */
  readonly approvals: number;
}

/**
 * The optional thread-catalog capability of a thread store: list the threads it holds and delete
 * one. A store has it when it implements both methods; check with {@link supportsThreadCatalog}.
 * The conformance kit checks it when present.
 */
export interface ThreadCatalogStore {
  /**
   * The keys that have an active record, in ascending order of their UTF-8 bytes, one page at a
   * time. A page is a consistent read; pages taken while others write may miss a key created
   * meanwhile before the cursor, but never list a key twice.
   * @throws RangeError for a `limit` outside [1, 1000]; TypeError for a non-string `prefix` or
   * `cursor`; the backend's errors as for every method.
   */
  listThreads(query?: ListThreadsQuery, signal?: AbortSignal): Promise<ThreadPage>;
  /**
   * Deletes everything the store holds for `key` in one atomic step: its active and archived
   * records, their session state, and the key's stored approvals. The key's lease row stays, so
   * fencing tokens keep increasing when the key is used again. Deleting an unknown key removes
   * nothing and resolves `{ records: 0, approvals: 0 }`.
   * @throws BusyError while any owner holds a live lease on `key` (a turn is running; nothing is
   * deleted); an expired lease (a crashed turn's) does not stop it. InvalidThreadKeyError for a
   * key that breaks the key rules.
   */
  deleteThread(key: string, signal?: AbortSignal): Promise<DeletedThread>;
}

/** Default of {@link ListThreadsQuery.limit}. */
export const DEFAULT_THREAD_PAGE_LIMIT = 100;
/** Largest {@link ListThreadsQuery.limit}. */
export const MAX_THREAD_PAGE_LIMIT = 1000;

/** True when `store` implements {@link ThreadCatalogStore}. */
export function supportsThreadCatalog(store: ThreadStore): store is ThreadStore & ThreadCatalogStore {
  const methods = store as unknown as Record<string, unknown>;
  return typeof methods["listThreads"] === "function" && typeof methods["deleteThread"] === "function";
}

/** A checked {@link ListThreadsQuery} with its defaults applied. */
export interface CheckedThreadsQuery {
  readonly prefix: string;
  readonly limit: number;
  readonly cursor: string | undefined;
}

/**
 * Checks a {@link ListThreadsQuery} and applies its defaults.
 * @throws TypeError for a query that is not an object, a non-string `prefix` or `cursor`;
 * RangeError for a `limit` that is not an integer in [1, 1000].
 */
export function checkListThreadsQuery(query: ListThreadsQuery | undefined): CheckedThreadsQuery {
  if (query === undefined) return { prefix: "", limit: DEFAULT_THREAD_PAGE_LIMIT, cursor: undefined };
  if (typeof query !== "object" || query === null) throw new TypeError("listThreads: query must be an object");
  const { prefix = "", limit = DEFAULT_THREAD_PAGE_LIMIT, cursor } = query;
  if (typeof prefix !== "string") throw new TypeError("listThreads: prefix must be a string");
  if (cursor !== undefined && typeof cursor !== "string") throw new TypeError("listThreads: cursor must be a string");
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_THREAD_PAGE_LIMIT) {
    throw new RangeError(`listThreads: limit must be an integer in [1, ${MAX_THREAD_PAGE_LIMIT}], got ${String(limit)}`);
  }
  return { prefix, limit, cursor };
}

/** Orders two keys by their UTF-8 bytes (what SQLite's BINARY and PostgreSQL's "C" collation do). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
