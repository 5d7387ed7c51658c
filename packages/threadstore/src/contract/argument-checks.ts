import type { FinalizeRequest } from "./thread-store.js";

/**
 * Argument checks every store runs first (the conformance kit pins them), exported so custom
 * stores reject bad input the same way.
 * @throws TypeError for an empty `target` or `owner`; RangeError for a `ttlMs` that is not a
 * positive finite number of milliseconds.
 */
export function checkLeaseArgs(target: string, owner: string, ttlMs: number): void {
  if (typeof target !== "string" || target === "") throw new TypeError("acquireLease: target must be a non-empty string");
  if (typeof owner !== "string" || owner === "") throw new TypeError("acquireLease: owner must be a non-empty string");
  checkTtl(ttlMs);
}

/** @throws RangeError for a `ttlMs` that is not a positive finite number of milliseconds. */
export function checkTtl(ttlMs: number): void {
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`lease ttlMs must be a positive finite number of milliseconds, got ${String(ttlMs)}`);
  }
}

/** @throws TypeError for an empty record id or key, an unknown status, or `archiveId === record.id`. */
export function checkFinalizeRequest({ record, archiveId }: FinalizeRequest): void {
  if (typeof record.id !== "string" || record.id === "") throw new TypeError("finalize: record.id must be a non-empty string");
  if (typeof record.key !== "string" || record.key === "") throw new TypeError("finalize: record.key must be a non-empty string");
  if (record.status !== "active" && record.status !== "archived") throw new TypeError(`finalize: bad record.status ${String(record.status)}`);
  if (archiveId === record.id) throw new TypeError("finalize: archiveId must differ from record.id");
}
