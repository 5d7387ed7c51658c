import { DriverError, InvalidOptionError } from "@adaptor/errors";
import { raceAbort } from "@adaptor/driver/kit";
import {
  threadKeyProblem,
  type DeletedThread,
  type Lease,
  type PendingApproval,
  type ThreadPage,
  type ThreadRecord,
  type ThreadStore,
} from "@adaptor/threadstore";

/**
 * A thread store method the SDK waits on (`sessionState.<method>` for its session state): a thread
 * turn's calls, the lease renewal, those of the Agent's thread APIs that take a signal, and the
 * pending-approval calls of a turn that suspends or resumes.
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
  | "savePendingApproval"
  | "getPendingApproval"
  | "answerPendingApproval"
  | "closePendingApproval"
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
 * store may name its own), a finite token and a valid expiry. For `renewLease` (`renewed` the lease
 * given to it) the same, and the token must be the renewed one's (a renewal keeps it).
 * @throws InvalidOptionError naming the method and the field otherwise.
 */
export function checkLease(answer: unknown, key: string, renewed?: Lease): Lease {
  const op = renewed ? "renewLease" : "acquireLease";
  if (typeof answer !== "object" || answer === null || Array.isArray(answer))
    throw malformed(op, "", `must be a lease object, got ${describe(answer)}`);
  const lease = answer as Partial<Record<keyof Lease, unknown>>;
  if (lease.target !== key)
    throw malformed(op, "target", `must be the key asked for, ${JSON.stringify(key)}, got ${describe(lease.target)}`);
  // The owner may differ from the one asked for: a store may take leases under an owner of its own
  // (a fleet's workers share one), so only its shape is checked.
  if (typeof lease.owner !== "string" || lease.owner === "")
    throw malformed(op, "owner", `must be a non-empty string, got ${describe(lease.owner)}`);
  if (typeof lease.token !== "number" || !Number.isFinite(lease.token))
    throw malformed(op, "token", `must be a finite number, got ${describe(lease.token)}`);
  if (renewed && lease.token !== renewed.token)
    throw malformed(op, "token", `must be the renewed lease's token ${renewed.token} (a renewal keeps it), got ${lease.token}`);
  if (!isDate(lease.expiresAt)) throw malformed(op, "expiresAt", `must be a valid Date, got ${describe(lease.expiresAt)}`);
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
 * A malformed answer may hide a lease the store did grant; when it still names this caller's grant
 * (the key, `owner` and a finite token) that lease is released before the error is thrown (while
 * `signal` allows, see {@link reclaimLease}); otherwise the key stays busy until `ttlMs` passes.
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
  const lease = await storeCall("acquireLease", signal, granted, (late) => void giveBack(store, key, owner, late));
  try {
    return checkLease(lease, key);
  } catch (error) {
    await storeCall("acquireLease", signal, reclaimLease(store, key, owner, lease)).catch(() => undefined);
    throw error;
  }
}

/** Gives back what `acquireLease(key, owner)` answered: a well-formed lease is released, anything else as {@link reclaimLease} does. Never rejects. */
function giveBack(store: ThreadStore, key: string, owner: string, answer: unknown): Promise<void> {
  let lease: Lease;
  try {
    lease = checkLease(answer, key);
  } catch {
    return reclaimLease(store, key, owner, answer);
  }
  return store.releaseLease(lease).catch(() => undefined);
}

/**
 * Gives back the lease a malformed `acquireLease(key, owner)` answer may hide, but only a grant
 * this caller can prove is its own: an answer for `key` naming `owner` itself and a finite token
 * is released with that owner and token (a store releases only the lease granted with both, so a
 * later holder's lease, whose token is higher, is never freed). Anything else (no object, another
 * key, another owner or the store's own, no usable token) is left to lapse at its time-to-live:
 * taking the key again to learn a token would cut the lease of whoever holds it under the same
 * owner in the store's eyes (a fleet's co-worker: its workers share one). Never rejects.
 */
export async function reclaimLease(store: ThreadStore, key: string, owner: string, answer: unknown): Promise<void> {
  if (typeof answer !== "object" || answer === null) return;
  const { target, owner: holder, token } = answer as Partial<Record<keyof Lease, unknown>>;
  if (target !== key || holder !== owner || typeof token !== "number" || !Number.isFinite(token)) return;
  // The expiry is not part of a lease's identity (the answer's may be the malformed field).
  await store.releaseLease({ target: key, owner, token, expiresAt: new Date(0) }).catch(() => undefined);
}

/**
 * The active record of `key` (`store.resolve({ key })`), checked ({@link checkRecord}), never
 * waiting past `signal`'s abort ({@link storeCall}); `undefined` when there is none.
 * @throws the store's errors; InvalidOptionError for a malformed record; the abort's verdict.
 */
export async function resolveWithin(store: ThreadStore, key: string, signal: AbortSignal | undefined): Promise<ThreadRecord | undefined> {
  return checkRecord("resolve", await storeCall("resolve", signal, store.resolve({ key }, signal)), key, true);
}

/** @throws InvalidOptionError (op, `<at>.<field>`) unless `entry[field]` is a string (non-empty where `nonEmpty`). */
function checkString(op: StoreOp, entry: Record<string, unknown>, at: string, field: string, nonEmpty = false): void {
  const value = entry[field];
  if (typeof value !== "string" || (nonEmpty && value === ""))
    throw malformed(op, `${at}${field}`, `must be a ${nonEmpty ? "non-empty " : ""}string, got ${describe(value)}`);
}

/** @throws InvalidOptionError (op, `<at>.<field>`) unless `entry[field]` is a non-negative safe integer. */
function checkCount(op: StoreOp, entry: Record<string, unknown>, at: string, field: string): void {
  const value = entry[field];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
    throw malformed(op, `${at}${field}`, `must be a non-negative integer, got ${describe(value)}`);
}

/** @throws InvalidOptionError (op, `<at>.<field>`) unless `entry[field]` is a valid Date (or absent, where `optional`). */
function checkDate(op: StoreOp, entry: Record<string, unknown>, at: string, field: string, optional = false): void {
  const value = entry[field];
  if (!(optional && value === undefined) && !isDate(value))
    throw malformed(op, `${at}${field}`, `must be a valid Date, got ${describe(value)}`);
}

/** @throws InvalidOptionError (op, `what`) unless `value` is a plain object (not null, not an array). */
function checkObject(op: StoreOp, value: unknown, field: string, what: string): asserts value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw malformed(op, field, `must be ${what}, got ${describe(value)}`);
}

/**
 * The page `listThreads({ prefix })` answered, checked: an object whose `threads` is an array
 * without holes of summaries (each with a `key` that keeps the key rules and starts with `prefix`,
 * a non-empty `recordId`, string `driverType` and `identity`, valid dates, a positive integer
 * `revision`, non-negative integer counts) and whose `nextCursor` is a string or absent.
 * @throws InvalidOptionError naming `listThreads` and the field (e.g. `threads[2].key`) otherwise.
 */
export function checkThreadPage(answer: unknown, prefix: string): ThreadPage {
  checkObject("listThreads", answer, "", "a page object");
  const { threads, nextCursor } = answer;
  if (!Array.isArray(threads)) throw malformed("listThreads", "threads", `must be an array, got ${describe(threads)}`);
  // By index: a hole in the array is an entry that is not a summary.
  for (let i = 0; i < threads.length; i++) {
    const thread: unknown = threads[i];
    const at = `threads[${i}].`;
    checkObject("listThreads", thread, `threads[${i}]`, "a thread summary");
    checkString("listThreads", thread, at, "key", true);
    const key = thread["key"] as string;
    const problem = threadKeyProblem(key);
    if (problem !== undefined) throw malformed("listThreads", `${at}key`, `must keep the thread key rules, got a key that ${problem}`);
    if (!key.startsWith(prefix))
      throw malformed("listThreads", `${at}key`, `must start with the prefix asked for, ${JSON.stringify(prefix)}, got ${describe(key)}`);
    checkString("listThreads", thread, at, "recordId", true);
    for (const field of ["driverType", "identity"]) checkString("listThreads", thread, at, field);
    for (const field of ["createdAt", "updatedAt"]) checkDate("listThreads", thread, at, field);
    const revision = thread["revision"];
    if (typeof revision !== "number" || !Number.isSafeInteger(revision) || revision < 1)
      throw malformed(
        "listThreads",
        `${at}revision`,
        `must be a positive integer (a record's first write is 1), got ${describe(revision)}`,
      );
    for (const field of ["archivedRecords", "sessionStateBytes"]) checkCount("listThreads", thread, at, field);
  }
  if (nextCursor !== undefined && typeof nextCursor !== "string")
    throw malformed("listThreads", "nextCursor", `must be a string or absent, got ${describe(nextCursor)}`);
  return answer as unknown as ThreadPage;
}

/**
 * What `deleteThread` answered, checked: an object whose `records` and `approvals` are non-negative integers.
 * @throws InvalidOptionError naming `deleteThread` and the field otherwise.
 */
export function checkDeletedThread(answer: unknown): DeletedThread {
  checkObject("deleteThread", answer, "", "an object { records, approvals }");
  for (const field of ["records", "approvals"]) checkCount("deleteThread", answer, "", field);
  return answer as unknown as DeletedThread;
}

const APPROVAL_STATUSES: readonly unknown[] = ["pending", "answered", "expired", "closed"];

/** @throws InvalidOptionError (op, `<at>decision…`) unless `value` is a stored decision: approve, deny with a string reason, or answer with a string choice. */
function checkDecision(op: StoreOp, value: unknown, at: string): void {
  checkObject(op, value, `${at}decision`, "a decision object");
  const outcome = value["outcome"];
  if (outcome === "deny") checkString(op, value, `${at}decision.`, "reason");
  else if (outcome === "answer") checkString(op, value, `${at}decision.`, "choice");
  else if (outcome !== "approve")
    throw malformed(op, `${at}decision.outcome`, `must be "approve", "deny" or "answer", got ${describe(outcome)}`);
}

/** @throws InvalidOptionError (op, `<at>choices…`) unless `value` is an array of `{ key, label, description? }` with string fields. */
function checkChoices(op: StoreOp, value: unknown, at: string): void {
  if (!Array.isArray(value)) throw malformed(op, `${at}choices`, `must be an array or absent, got ${describe(value)}`);
  for (let i = 0; i < value.length; i++) {
    const choice: unknown = value[i];
    checkObject(op, choice, `${at}choices[${i}]`, "a choice { key, label, description? }");
    checkString(op, choice, `${at}choices[${i}].`, "key");
    checkString(op, choice, `${at}choices[${i}].`, "label");
    if (choice["description"] !== undefined) checkString(op, choice, `${at}choices[${i}].`, "description");
  }
}

/**
 * One stored approval a pending-approvals method answered for thread `key`, checked: an object of
 * that key with a non-empty `id` and `kind`, a string `title`, a known `status` and `onDeadline`, a
 * valid `createdAt`, a valid or absent `deadline` and `resolvedAt`, `choices` absent or an array
 * of `{ key, label, description? }`, and a `decision` (approve; deny with a string `reason`;
 * answer with a string `choice`) when `answered` or `expired`, well-formed wherever present.
 * `at` prefixes the fields named (`[0].`).
 * @throws InvalidOptionError naming `op` and the field otherwise.
 */
export function checkApproval(op: StoreOp, answer: unknown, key: string, at = ""): PendingApproval {
  checkObject(op, answer, at.replace(/\.$/, ""), "a stored approval");
  checkString(op, answer, at, "id", true);
  if (answer["key"] !== key)
    throw malformed(op, `${at}key`, `must be the thread key asked for, ${JSON.stringify(key)}, got ${describe(answer["key"])}`);
  checkString(op, answer, at, "kind", true);
  checkString(op, answer, at, "title");
  const status = answer["status"];
  if (!APPROVAL_STATUSES.includes(status))
    throw malformed(op, `${at}status`, `must be pending, answered, expired or closed, got ${describe(status)}`);
  if (answer["onDeadline"] !== "deny" && answer["onDeadline"] !== "abort")
    throw malformed(op, `${at}onDeadline`, `must be "deny" or "abort", got ${describe(answer["onDeadline"])}`);
  checkDate(op, answer, at, "createdAt");
  checkDate(op, answer, at, "deadline", true);
  checkDate(op, answer, at, "resolvedAt", true);
  if (answer["choices"] !== undefined) checkChoices(op, answer["choices"], at);
  const decision = answer["decision"];
  if (decision === undefined && (status === "answered" || status === "expired"))
    throw malformed(op, `${at}decision`, `must be present when the status is ${String(status)} (the answer or the recorded fallback)`);
  if (decision !== undefined) checkDecision(op, decision, at);
  return answer as unknown as PendingApproval;
}

/**
 * What `listPendingApprovals(key)` answered, checked: an array without holes of approvals of
 * `key`, each as {@link checkApproval}, none `closed` (the method lists open ones only).
 * @throws InvalidOptionError naming `listPendingApprovals` and the field (e.g. `[1].key`) otherwise.
 */
export function checkApprovalList(answer: unknown, key: string): PendingApproval[] {
  if (!Array.isArray(answer)) throw malformed("listPendingApprovals", "", `must be an array of approvals, got ${describe(answer)}`);
  // By index: a hole in the array is an entry that is not an approval.
  for (let i = 0; i < answer.length; i++) {
    const approval = checkApproval("listPendingApprovals", answer[i], key, `[${i}].`);
    if (approval.status === "closed")
      throw malformed("listPendingApprovals", `[${i}].status`, "must not be closed (only open approvals are listed)");
  }
  return answer as PendingApproval[];
}
