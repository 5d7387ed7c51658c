import { checkThreadKey } from "../keys/thread-key.js";
import type { Lease } from "./lease.js";
import type { SessionStateWrite } from "../session-state/session-state.js";
import type { FinalizeRequest, ResolveQuery } from "./thread-store.js";

// Argument checks every store runs first (the conformance kit pins them), exported so custom
// stores reject bad input the same way, before their backend sees it.

const LONE_SURROGATE = /\p{Surrogate}/u;

/** @throws TypeError unless `value` is a non-empty, well-formed string without NUL. */
function checkName(value: unknown, what: string): void {
  if (typeof value !== "string" || value === "") throw new TypeError(`${what} must be a non-empty string`);
  if (value.includes("\0") || LONE_SURROGATE.test(value)) throw new TypeError(`${what} must be well-formed Unicode without NUL`);
}

/**
 * Checks the arguments of `acquireLease`.
 * @throws TypeError for an empty `target` or an empty or malformed `owner` (lone surrogate, NUL);
 * InvalidThreadKeyError when `target` breaks the key rules (see `checkThreadKey`); RangeError for
 * a `ttlMs` that is not a positive finite number of milliseconds.
 */
export function checkLeaseArgs(target: string, owner: string, ttlMs: number): void {
  checkThreadKey(target, "acquireLease: target");
  checkName(owner, "acquireLease: owner");
  checkTtl(ttlMs);
}

/**
 * Checks a lease passed back to `renewLease` or `releaseLease`: a lease with such a target or
 * owner can never have been granted, so it is refused rather than looked up.
 * @throws TypeError for an empty target or a malformed owner; InvalidThreadKeyError when the
 * target breaks the key rules.
 */
export function checkLease(lease: Lease): void {
  checkThreadKey(lease?.target, "lease.target");
  checkName(lease.owner, "lease.owner");
}

/** @throws RangeError for a `ttlMs` that is not a positive finite number of milliseconds. */
export function checkTtl(ttlMs: number): void {
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`lease ttlMs must be a positive finite number of milliseconds, got ${String(ttlMs)}`);
  }
}

/**
 * Checks a `resolve` query: by key, the key rules; by id, a non-empty, well-formed string without NUL.
 * @throws TypeError for an empty or malformed id or an empty key; InvalidThreadKeyError when the key breaks the key rules.
 */
export function checkResolveQuery(query: ResolveQuery): void {
  if (typeof query !== "object" || query === null) throw new TypeError("resolve: query must be { id } or { key }");
  if ("id" in query) checkName(query.id, "resolve: id");
  else checkThreadKey(query.key, "resolve: key");
}

/**
 * Checks a `finalize` request.
 * @throws TypeError for an empty or malformed record id or `archiveId`, an empty key, an unknown
 * status, `archiveId === record.id`, a malformed lease or a `releaseLeases` that is not a boolean;
 * InvalidThreadKeyError when `record.key` or a lease target breaks the key rules.
 */
export function checkFinalizeRequest({ leases, record, archiveId, sessionState, releaseLeases }: FinalizeRequest): void {
  if (!Array.isArray(leases)) throw new TypeError("finalize: leases must be an array");
  for (const lease of leases) checkLease(lease);
  checkName(record.id, "finalize: record.id");
  checkThreadKey(record.key, "finalize: record.key");
  if (record.status !== "active" && record.status !== "archived")
    throw new TypeError(`finalize: bad record.status ${String(record.status)}`);
  if (archiveId !== undefined) checkName(archiveId, "finalize: archiveId");
  if (archiveId === record.id) throw new TypeError("finalize: archiveId must differ from record.id");
  if (sessionState !== undefined) checkSessionStateWrite(sessionState);
  if (releaseLeases !== undefined && typeof releaseLeases !== "boolean") throw new TypeError("finalize: releaseLeases must be a boolean");
}

/**
 * Checks a `finalize` request's `sessionState`.
 * @throws TypeError for an unknown `mode`, segments that are not `Uint8Array`s, or a manifest that
 * is not JSON-serialisable; RangeError for a `limitBytes` that is not a positive safe integer.
 */
export function checkSessionStateWrite(write: SessionStateWrite): void {
  if (typeof write !== "object" || write === null) throw new TypeError("finalize: sessionState must be an object");
  if (write.mode !== "append" && write.mode !== "replace") throw new TypeError(`finalize: bad sessionState.mode ${String(write.mode)}`);
  if (!Array.isArray(write.segments) || !write.segments.every((s) => s instanceof Uint8Array)) {
    throw new TypeError("finalize: sessionState.segments must be an array of Uint8Array");
  }
  if (!Number.isSafeInteger(write.limitBytes) || write.limitBytes <= 0) {
    throw new RangeError(`finalize: sessionState.limitBytes must be a positive safe integer, got ${String(write.limitBytes)}`);
  }
  if (write.manifest === undefined || JSON.stringify(write.manifest) === undefined)
    throw new TypeError("finalize: sessionState.manifest must be JSON");
}

/** @throws RangeError unless `from` (a first segment index for `segmentsFrom`) is a non-negative safe integer. */
export function checkSegmentIndex(from: number): void {
  if (!Number.isSafeInteger(from) || from < 0)
    throw new RangeError(`sessionState.segmentsFrom: from must be a non-negative safe integer, got ${String(from)}`);
}

/** Bytes a record's session state holds after `write`, given the `storedBytes` it holds now. */
export function sessionStateBytesAfter(storedBytes: number, write: SessionStateWrite): number {
  const added = write.segments.reduce((sum, segment) => sum + segment.byteLength, 0);
  return (write.mode === "replace" ? 0 : storedBytes) + added;
}
