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
 * Where `value` first stops being JSON, as `"<path> is <what>"` (`path` built on `at`, e.g.
 * `record.checkpoint.data.when`), or `undefined` when it is JSON: `null`, booleans, finite
 * numbers, strings, arrays without holes, and plain objects (prototype `Object.prototype` or
 * `null`) of such values. An object property whose value is `undefined` counts as absent, as
 * `JSON.stringify` treats it; anything else (a function, symbol, bigint, `NaN` or infinity, a
 * `Date` or other class instance, an `undefined` array element, a cycle) is not JSON.
 */
export function jsonProblem(value: unknown, at: string): string | undefined {
  const seen = new Set<object>();
  const walk = (v: unknown, path: string): string | undefined => {
    if (v === null || typeof v === "string" || typeof v === "boolean") return undefined;
    if (typeof v === "number") return Number.isFinite(v) ? undefined : `${path} is ${String(v)}`;
    if (typeof v !== "object") return `${path} is a ${typeof v}`;
    if (seen.has(v)) return `${path} is a cycle back to an enclosing value`;
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          if (!(i in v) || v[i] === undefined) return `${path}[${i}] is undefined`;
          const problem = walk(v[i], `${path}[${i}]`);
          if (problem) return problem;
        }
        return undefined;
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null)
        return `${path} is ${v instanceof Date ? "a Date" : `an instance of ${(v as { constructor?: { name?: string } }).constructor?.name || "a class"}`}`;
      if (Object.getOwnPropertySymbols(v).length > 0) return `${path} has a symbol key`;
      for (const [key, item] of Object.entries(v)) {
        if (item === undefined) continue;
        const problem = walk(item, /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);
        if (problem) return problem;
      }
      return undefined;
    } finally {
      seen.delete(v);
    }
  };
  return walk(value, at);
}

/**
 * Checks a `finalize` request.
 * @throws TypeError for an empty or malformed record id or `archiveId`, an empty key, an unknown
 * status, `archiveId === record.id`, a `checkpoint.data` that is not JSON (the message names the
 * path of the first value that is not: a function, symbol, bigint, NaN or infinity, a Date or other class
 * instance, an undefined array element or a cycle), a malformed lease or a
 * `releaseLeases` that is not a boolean;
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
  if (typeof record.checkpoint !== "object" || record.checkpoint === null)
    throw new TypeError("finalize: record.checkpoint must be an object");
  const problem = record.checkpoint.data === undefined ? undefined : jsonProblem(record.checkpoint.data, "record.checkpoint.data");
  if (problem) throw new TypeError(`finalize: ${problem}: checkpoint data must be JSON (every store keeps it as JSON text)`);
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
