import { DriverError, InvalidOptionError } from "@adaptor/errors";
import { raceAbort } from "@adaptor/driver/kit";
import type { Lease, ThreadRecord, ThreadStore } from "@adaptor/threadstore";

/**
 * A thread store method the SDK waits on (`sessionState.<method>` for its session state): a thread
 * turn's calls, the lease renewal, and those of the Agent's thread APIs that take a signal.
 */
export type StoreOp =
  | "acquireLease"
  | "resolve"
  | "finalize"
  | "releaseLease"
  | "renewLease"
  | "listThreads"
  | "deleteThread"
  | "listPendingApprovals"
  | `sessionState.${string}`;

/**
 * Waits for one store call, but never past `signal`'s abort (the run's end, or the caller giving
 * up): when `signal` aborts first the call is left behind (its late answer handled by `onLate`,
 * e.g. to give back a lease granted after all) and this rejects with {@link abandonedStoreCall}.
 * Without a signal it waits for the call as it is.
 */
export async function storeCall<T>(
  op: StoreOp,
  signal: AbortSignal | undefined,
  work: Promise<T>,
  onLate?: (value: T) => void,
): Promise<T> {
  if (!signal) return work;
  try {
    return await raceAbort(work, signal);
  } catch (error) {
    if (!signal.aborted || error !== signal.reason) throw error;
    if (onLate) work.then(onLate, () => undefined);
    throw abandonedStoreCall(op, signal.reason);
  }
}

/**
 * The verdict of a run that ended while a store call had not answered. A `DriverError` reason (the
 * run's `timeoutMs`: `TIMEOUT`) becomes a `DriverError` of the same code whose `op` names the
 * call (`threadStore.<op>`), the reason kept in its cause chain; any other abort reason is the
 * verdict as it is. A `finalize` left behind may still commit: its outcome is unknown.
 */
export function abandonedStoreCall(op: StoreOp, reason: unknown): unknown {
  if (!(reason instanceof DriverError)) return reason;
  const outcome =
    op === "finalize" ? "; the turn's commit may still land or not: whether it was saved is unknown until the thread is read again" : "";
  const detail = new Error(`the thread store's ${op} had not answered when the run ended (${reason.message})${outcome}`, { cause: reason });
  return new DriverError({ op: `threadStore.${op}`, device: "thread store", code: reason.code, cause: detail });
}

/**
 * A view of `state` whose every call given an `AbortSignal` never waits past that signal's abort
 * (see {@link storeCall}): a session state read or write that hangs ends with the run.
 */
export function racedSessionState<S extends object>(state: S): S {
  return new Proxy(state, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      return (...args: unknown[]): unknown => {
        const answer: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        const signal = args.find((arg): arg is AbortSignal => arg instanceof AbortSignal);
        const thenable = typeof (answer as { then?: unknown } | null)?.then === "function";
        return signal && thenable ? storeCall(`sessionState.${prop}`, signal, Promise.resolve(answer)) : answer;
      };
    },
  });
}

function malformed(op: StoreOp, field: string, reason: string): InvalidOptionError {
  return new InvalidOptionError({ subject: `thread store ${op}() answer`, field, reason });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object";
  return String(value);
}

function isDate(value: unknown): value is Date {
  return value instanceof Date && Number.isFinite(value.getTime());
}

/**
 * The lease `acquireLease(key, owner)` answered, checked: an object for that key, with an owner (a
 * store may name its own), a finite token and a valid expiry.
 * @throws InvalidOptionError naming the method and the field otherwise.
 */
export function checkLease(answer: unknown, key: string): Lease {
  if (typeof answer !== "object" || answer === null) throw malformed("acquireLease", "", `must be a lease object, got ${describe(answer)}`);
  const lease = answer as Partial<Record<keyof Lease, unknown>>;
  if (lease.target !== key)
    throw malformed("acquireLease", "target", `must be the key asked for, ${JSON.stringify(key)}, got ${describe(lease.target)}`);
  // The owner may differ from the one asked for: a store may take leases under an owner of its own
  // (a fleet's workers share one), so only its shape is checked.
  if (typeof lease.owner !== "string" || lease.owner === "")
    throw malformed("acquireLease", "owner", `must be a non-empty string, got ${describe(lease.owner)}`);
  if (typeof lease.token !== "number" || !Number.isFinite(lease.token))
    throw malformed("acquireLease", "token", `must be a finite number, got ${describe(lease.token)}`);
  if (!isDate(lease.expiresAt)) throw malformed("acquireLease", "expiresAt", `must be a valid Date, got ${describe(lease.expiresAt)}`);
  return answer as Lease;
}

/**
 * A record `resolve({ key })` or `finalize` answered, checked: an object for `key` with string
 * ids, a non-empty `checkpoint.resumeId`, valid dates and a finite `revision`; `undefined` only
 * where `optional` (a `resolve` that found nothing).
 * @throws InvalidOptionError naming the method and the field otherwise.
 */
export function checkRecord(op: "resolve" | "finalize", answer: unknown, key: string, optional: true): ThreadRecord | undefined;
export function checkRecord(op: "resolve" | "finalize", answer: unknown, key: string, optional?: false): ThreadRecord;
export function checkRecord(op: "resolve" | "finalize", answer: unknown, key: string, optional = false): ThreadRecord | undefined {
  if (answer === undefined && optional) return undefined;
  if (typeof answer !== "object" || answer === null || Array.isArray(answer))
    throw malformed(op, "", `must be a thread record${optional ? " or undefined" : ""}, got ${describe(answer)}`);
  const record = answer as Partial<Record<keyof ThreadRecord, unknown>>;
  if (record.key !== key) throw malformed(op, "key", `must be the key asked for, ${JSON.stringify(key)}, got ${describe(record.key)}`);
  for (const field of ["id", "driverType", "identity", "fingerprint", "codec"] as const) {
    if (typeof record[field] !== "string") throw malformed(op, field, `must be a string, got ${describe(record[field])}`);
  }
  const checkpoint = record.checkpoint as { resumeId?: unknown } | undefined | null;
  if (typeof checkpoint !== "object" || checkpoint === null)
    throw malformed(op, "checkpoint", `must be an object, got ${describe(checkpoint)}`);
  if (typeof checkpoint.resumeId !== "string" || checkpoint.resumeId === "")
    throw malformed(op, "checkpoint.resumeId", `must be a non-empty string, got ${describe(checkpoint.resumeId)}`);
  for (const field of ["createdAt", "updatedAt"] as const) {
    if (!isDate(record[field])) throw malformed(op, field, `must be a valid Date, got ${describe(record[field])}`);
  }
  if (typeof record.revision !== "number" || !Number.isFinite(record.revision))
    throw malformed(op, "revision", `must be a finite number, got ${describe(record.revision)}`);
  return answer as ThreadRecord;
}

/**
 * `store.acquireLease(key, owner, ttlMs, signal)`, checked ({@link checkLease}), never waiting past
 * `signal`'s abort ({@link storeCall}): a lease the store grants after that is given back at once.
 * @throws the store's errors; InvalidOptionError for a malformed lease; the abort's verdict.
 */
export async function acquireLeaseWithin(
  store: ThreadStore,
  key: string,
  owner: string,
  ttlMs: number,
  signal: AbortSignal | undefined,
): Promise<Lease> {
  const granted = store.acquireLease(key, owner, ttlMs, signal);
  const lease = await storeCall("acquireLease", signal, granted, (late) => {
    if (late && typeof late === "object") store.releaseLease(late).catch(() => undefined);
  });
  return checkLease(lease, key);
}

/**
 * The active record of `key` (`store.resolve({ key })`), checked ({@link checkRecord}), never
 * waiting past `signal`'s abort ({@link storeCall}); `undefined` when there is none.
 * @throws the store's errors; InvalidOptionError for a malformed record; the abort's verdict.
 */
export async function resolveWithin(store: ThreadStore, key: string, signal: AbortSignal | undefined): Promise<ThreadRecord | undefined> {
  return checkRecord("resolve", await storeCall("resolve", signal, store.resolve({ key }, signal)), key, true);
}
