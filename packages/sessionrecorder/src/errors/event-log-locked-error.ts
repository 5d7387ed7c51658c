import { AdaptorError } from "@adaptor/errors";
import { ErrEventLogLocked } from "./sentinels.js";

/** Who holds a log's writer lock, as its lock file says. */
export interface LockHolder {
  /** Process id of the holder. */
  readonly pid: number;
  /** Host name of the holder's machine. */
  readonly hostname: string;
  /** When the holder took the lock (ISO 8601). */
  readonly acquiredAt: string;
}

/**
 * A second writer for a session key was refused: another writer, in this process or another one,
 * holds the key's log. Matches {@link ErrEventLogLocked}. `holder` is undefined when the lock file
 * could not be read as a lock (remove it by hand once no writer runs).
 */
export class EventLogLockedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.EventLogLockedError");
  static override readonly sentinel = ErrEventLogLocked;
  /** The session key. */
  readonly key: string;
  /** The live holder, when known. */
  readonly holder: LockHolder | undefined;

  constructor(key: string, holder: LockHolder | undefined, detail?: string) {
    const who = holder ? `pid ${holder.pid} on ${holder.hostname} since ${holder.acquiredAt}` : (detail ?? "an unreadable lock");
    super(`event log ${key} is locked by another writer: ${who}`);
    this.key = key;
    this.holder = holder;
  }
}
