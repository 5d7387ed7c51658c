import { DriverError, ErrCode } from "@adaptor/errors";
import type { Lease } from "../contract/lease.js";
import type { ThreadRecord } from "../contract/thread-record.js";
import type { FinalizeRequest, ResolveQuery, ThreadStore } from "../contract/thread-store.js";
import type { SessionStateStore, StoredSessionState } from "../session-state/session-state.js";
import { checksumTerm, segmentTag, SEGMENT_CHECKSUM_MODULUS, type SegmentSummary } from "../session-state/segment-summary.js";
import { SessionStateTooLargeError } from "../errors/session-state-too-large-error.js";
import { AlreadyExistsError } from "../errors/already-exists-error.js";
import { BusyError } from "../errors/busy-error.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import type { FinalizeStep, StoreFaults, StoreOperation } from "../faults/store-faults.js";
import type { PendingApproval, PendingApprovalDraft, PendingApprovalStore, StoredApprovalDecision } from "../contract/pending-approvals.js";
import { MemoryPendingApprovals } from "./memory-pending-approvals.js";
import {
  checkListThreadsQuery,
  compareKeys,
  type DeletedThread,
  type ListThreadsQuery,
  type ThreadCatalogStore,
  type ThreadPage,
  type ThreadSummary,
} from "../contract/thread-catalog.js";
import { checkThreadKey } from "../keys/thread-key.js";
import {
  checkFinalizeRequest,
  checkLease,
  checkLeaseArgs,
  checkResolveQuery,
  checkSegmentIndex,
  checkTtl,
  sessionStateBytesAfter,
} from "../contract/argument-checks.js";

/** Options of {@link MemoryThreadStore}. */
export interface MemoryThreadStoreOptions {
  /**
   * The clock that judges lease expiry and stamps `updatedAt` on archived records.
   * Default `() => new Date()`. Tests pass a manual clock (`ManualClock` from `@adaptor/threadstore/testing`).
   */
  readonly now?: () => Date;
  /** Test-only fault hooks (see {@link StoreFaults}); production code passes none. */
  readonly faults?: StoreFaults;
  /**
   * Whether the store has the session-state capability (`sessionState`, see `SessionStateStore`).
   * Default true; false gives a checkpoint-only store, as a store without the capability behaves.
   */
  readonly sessionState?: boolean;
}

/** The device name in the `DriverError`s this store throws. */
const DEVICE = "threadstore-memory";

/** One record's session state: the manifest and the segments (copies), in order. */
interface SessionRow {
  manifest: unknown;
  segments: Uint8Array[];
  /** `segmentTag` of each segment, taken when it was written. */
  tags: number[];
  bytes: number;
}

interface LeaseRow {
  /** `undefined` once released; the row stays so the token counter never resets. */
  owner: string | undefined;
  token: number;
  expiresAtMs: number;
}

/**
 * A {@link ThreadStore} held in this process's memory: for tests, single-process tools and as
 * the reference implementation of the contract (it passes the conformance kit). Safe for
 * concurrent callers in one process (every operation completes within one synchronous step);
 * several processes need a durable store (`@adaptor/threadstore-sqlite`, `-postgres`).
 *
 * Records are copied with `structuredClone` on the way in and out, so callers cannot mutate
 * stored state. A lease is live while `now() < expiresAt`.
 *
 * @example
 * ```ts
 * const store = new MemoryThreadStore();
 * const lease = await store.acquireLease("issue-42", "worker-1", 30_000);
 * await store.finalize({ leases: [lease], record });
 * await store.releaseLease(lease);
 * ```
 */
export class MemoryThreadStore implements ThreadStore, PendingApprovalStore, ThreadCatalogStore, AsyncDisposable {
  readonly #now: () => Date;
  readonly #faults: StoreFaults | undefined;
  readonly #records = new Map<string, ThreadRecord>();
  readonly #leases = new Map<string, LeaseRow>();
  readonly #sessions = new Map<string, SessionRow>();
  #closed = false;
  readonly #approvals = new MemoryPendingApprovals({
    now: () => this.#nowMs(),
    holds: (lease) => {
      const row = this.#leases.get(lease.target);
      return row !== undefined && holds(row, lease, this.#nowMs());
    },
    enter: (operation, signal) => this.#enter(operation, signal),
  });

  /**
   * Session state kept with each record (see `SessionStateStore`): the segments are copied in and
   * out, so callers cannot change stored bytes.
   */
  readonly sessionState: SessionStateStore | undefined = {
    read: async (recordId: string, signal?: AbortSignal): Promise<StoredSessionState | undefined> => {
      this.#enter("sessionState", signal);
      const row = this.#sessions.get(recordId);
      return row && { manifest: structuredClone(row.manifest), segments: row.segments.length, bytes: row.bytes };
    },
    segments: async (recordId: string, signal?: AbortSignal): Promise<Uint8Array[]> => {
      this.#enter("sessionState", signal);
      return (this.#sessions.get(recordId)?.segments ?? []).map((segment) => segment.slice());
    },
    segmentsFrom: async (recordId: string, from: number, signal?: AbortSignal): Promise<Uint8Array[]> => {
      checkSegmentIndex(from);
      this.#enter("sessionState", signal);
      return (this.#sessions.get(recordId)?.segments ?? []).slice(from).map((segment) => segment.slice());
    },
    summary: async (recordId: string, signal?: AbortSignal): Promise<SegmentSummary> => {
      this.#enter("sessionState", signal);
      // From the held segments (their lengths, the tag kept with each), never from the row's `bytes` counter.
      const row = this.#sessions.get(recordId);
      let bytes = 0;
      let checksum = 0;
      for (const [i, segment] of (row?.segments ?? []).entries()) {
        bytes += segment.byteLength;
        checksum = (checksum + checksumTerm(i, row!.tags[i]!)) % SEGMENT_CHECKSUM_MODULUS;
      }
      return { segments: row?.segments.length ?? 0, bytes, checksum };
    },
  };

  constructor(options: MemoryThreadStoreOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#faults = options.faults;
    if (options.sessionState === false) this.sessionState = undefined;
  }

  /** See `PendingApprovalStore.savePendingApproval`. */
  savePendingApproval(approval: PendingApprovalDraft, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    return this.#approvals.save(approval, lease, signal);
  }

  /** See `PendingApprovalStore.listPendingApprovals`. */
  listPendingApprovals(key: string, signal?: AbortSignal): Promise<PendingApproval[]> {
    return this.#approvals.list(key, signal);
  }

  /** See `PendingApprovalStore.getPendingApproval`. */
  getPendingApproval(id: string, signal?: AbortSignal): Promise<PendingApproval | undefined> {
    return this.#approvals.get(id, signal);
  }

  /** See `PendingApprovalStore.answerPendingApproval`. */
  answerPendingApproval(id: string, decision: StoredApprovalDecision, signal?: AbortSignal): Promise<PendingApproval> {
    return this.#approvals.answer(id, decision, signal);
  }

  /** See `PendingApprovalStore.closePendingApproval`. */
  closePendingApproval(id: string, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    return this.#approvals.close(id, lease, signal);
  }

  /** See {@link ThreadStore.resolve}: by key, the active record, else (with `includeArchived`) the archived one created last. */
  async resolve(query: ResolveQuery, signal?: AbortSignal): Promise<ThreadRecord | undefined> {
    checkResolveQuery(query);
    this.#enter("resolve", signal);
    if ("id" in query) {
      const found = this.#records.get(query.id);
      return found && structuredClone(found);
    }
    const found = this.#activeOf(query.key) ?? (query.includeArchived ? this.#newestArchivedOf(query.key) : undefined);
    return found && structuredClone(found);
  }

  /** See {@link ThreadStore.acquireLease}. @throws BusyError; TypeError / RangeError for a bad argument. */
  async acquireLease(target: string, owner: string, ttlMs: number, signal?: AbortSignal): Promise<Lease> {
    checkLeaseArgs(target, owner, ttlMs);
    this.#enter("acquireLease", signal);
    const now = this.#nowMs();
    const row = this.#leases.get(target);
    if (row && row.owner !== undefined && row.owner !== owner && now < row.expiresAtMs)
      throw new BusyError(target, { owner: row.owner, expiresAt: new Date(row.expiresAtMs) });
    const next: LeaseRow = { owner, token: (row?.token ?? 0) + 1, expiresAtMs: now + ttlMs };
    this.#leases.set(target, next);
    return { target, owner, token: next.token, expiresAt: new Date(next.expiresAtMs) };
  }

  /** See {@link ThreadStore.renewLease}. @throws LeaseLostError; RangeError for a bad `ttlMs`. */
  async renewLease(lease: Lease, ttlMs: number, signal?: AbortSignal): Promise<Lease> {
    checkLease(lease);
    checkTtl(ttlMs);
    this.#enter("renewLease", signal);
    const now = this.#nowMs();
    const row = this.#leases.get(lease.target);
    if (!row || !holds(row, lease, now)) throw new LeaseLostError(lease.target);
    row.expiresAtMs = now + ttlMs;
    return { target: lease.target, owner: lease.owner, token: lease.token, expiresAt: new Date(row.expiresAtMs) };
  }

  /** See {@link ThreadStore.releaseLease}: a stale, expired-and-taken or unknown lease is a no-op. */
  async releaseLease(lease: Lease, signal?: AbortSignal): Promise<void> {
    checkLease(lease);
    this.#enter("releaseLease", signal);
    const row = this.#leases.get(lease.target);
    if (!row || row.owner !== lease.owner || row.token !== lease.token) return;
    release(row);
  }

  /**
   * See {@link ThreadStore.finalize}. Steps, all or nothing: every lease valid (else
   * `LeaseLostError`); with `requireKeyAbsent`, no other active record under `record.key` (else
   * `AlreadyExistsError`); archive `archiveId` if it is active; write `record`; with
   * `releaseLeases`, release the leases. Writing an active record while another active record of
   * the key remains (not named by `archiveId`) is refused with `AlreadyExistsError` rather than
   * leaving two.
   */
  async finalize(request: FinalizeRequest, signal?: AbortSignal): Promise<ThreadRecord> {
    checkFinalizeRequest(request);
    if (request.sessionState && !this.sessionState)
      throw new TypeError("finalize: this store was made without the session-state capability");
    this.#enter("finalize", signal);
    const now = this.#nowMs();
    const { record, archiveId } = request;
    for (const lease of request.leases) {
      const row = this.#leases.get(lease.target);
      if (!row || !holds(row, lease, now)) throw new LeaseLostError(lease.target);
    }
    this.#step("leases-checked");
    const other = this.#activeOf(record.key, record.id);
    if (request.requireKeyAbsent && other) throw new AlreadyExistsError(record.key);
    // Stage every change, run the fault hooks, then commit in one synchronous step.
    let archived: ThreadRecord | undefined;
    const previous = archiveId === undefined ? undefined : this.#records.get(archiveId);
    if (previous?.status === "active")
      archived = { ...previous, status: "archived", updatedAt: new Date(now), revision: previous.revision + 1 };
    this.#step("archived");
    if (record.status === "active" && other && other.id !== archived?.id) throw new AlreadyExistsError(record.key);
    const written: ThreadRecord = { ...structuredClone(record), revision: (this.#records.get(record.id)?.revision ?? 0) + 1 };
    const session = this.#stageSession(request);
    this.#step("record-written");
    if (archived) this.#records.set(archived.id, archived);
    this.#records.set(written.id, written);
    if (session) this.#sessions.set(written.id, session);
    if (request.releaseLeases) {
      for (const lease of request.leases) {
        const row = this.#leases.get(lease.target);
        if (row) release(row);
      }
    }
    return structuredClone(written);
  }

  /** See `ThreadCatalogStore.listThreads`. */
  async listThreads(query?: ListThreadsQuery, signal?: AbortSignal): Promise<ThreadPage> {
    const { prefix, limit, cursor } = checkListThreadsQuery(query);
    this.#enter("listThreads", signal);
    const archived = new Map<string, number>();
    const active: ThreadRecord[] = [];
    for (const r of this.#records.values()) {
      if (!r.key.startsWith(prefix) || (cursor !== undefined && compareKeys(r.key, cursor) <= 0)) continue;
      if (r.status === "active") active.push(r);
      else archived.set(r.key, (archived.get(r.key) ?? 0) + 1);
    }
    active.sort((a, b) => compareKeys(a.key, b.key));
    const page = active.slice(0, limit).map((r): ThreadSummary => ({
      key: r.key,
      recordId: r.id,
      driverType: r.driverType,
      identity: r.identity,
      createdAt: new Date(r.createdAt),
      updatedAt: new Date(r.updatedAt),
      revision: r.revision,
      archivedRecords: archived.get(r.key) ?? 0,
      sessionStateBytes: this.#sessions.get(r.id)?.bytes ?? 0,
    }));
    const last = page.at(-1);
    return active.length > limit && last ? { threads: page, nextCursor: last.key } : { threads: page };
  }

  /** See `ThreadCatalogStore.deleteThread`. @throws BusyError while a live lease is held on `key`. */
  async deleteThread(key: string, signal?: AbortSignal): Promise<DeletedThread> {
    checkThreadKey(key, "deleteThread: key");
    this.#enter("deleteThread", signal);
    const lease = this.#leases.get(key);
    if (lease?.owner !== undefined && this.#nowMs() < lease.expiresAtMs)
      throw new BusyError(key, { owner: lease.owner, expiresAt: new Date(lease.expiresAtMs) });
    let records = 0;
    for (const [id, r] of this.#records) {
      if (r.key !== key) continue;
      this.#records.delete(id);
      this.#sessions.delete(id);
      records += 1;
    }
    return { records, approvals: this.#approvals.deleteKey(key) };
  }

  /** Marks the store closed; later calls reject with a `DriverError` (`DEVICE_DISCONNECTED`). Idempotent. Keeps the data. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #enter(operation: StoreOperation, signal: AbortSignal | undefined): void {
    signal?.throwIfAborted();
    if (this.#closed) {
      throw new DriverError({ op: operation, device: DEVICE, code: ErrCode.DeviceDisconnected, cause: "store closed" });
    }
    const hook = this.#faults?.beforeOperation;
    if (!hook) return;
    try {
      hook.call(this.#faults, operation);
    } catch (cause) {
      throw new DriverError({ op: operation, device: DEVICE, code: ErrCode.Internal, cause });
    }
  }

  #step(step: FinalizeStep): void {
    const hook = this.#faults?.afterFinalizeStep;
    if (!hook) return;
    try {
      hook.call(this.#faults, step);
    } catch (cause) {
      throw new DriverError({ op: "finalize", device: DEVICE, code: ErrCode.Internal, cause });
    }
  }

  /** The session row `request.sessionState` leaves, copied; @throws SessionStateTooLargeError over its limit. */
  #stageSession(request: FinalizeRequest): SessionRow | undefined {
    const write = request.sessionState;
    if (!write) return undefined;
    const stored = this.#sessions.get(request.record.id);
    const bytes = sessionStateBytesAfter(stored?.bytes ?? 0, write);
    if (bytes > write.limitBytes) throw new SessionStateTooLargeError(request.record.key, bytes, write.limitBytes);
    const added = write.segments.map((segment) => segment.slice());
    const tags = added.map(segmentTag);
    const append = write.mode === "append";
    return {
      manifest: structuredClone(write.manifest),
      segments: append ? [...(stored?.segments ?? []), ...added] : added,
      tags: append ? [...(stored?.tags ?? []), ...tags] : tags,
      bytes,
    };
  }

  #nowMs(): number {
    return this.#now().getTime();
  }

  #activeOf(key: string, exceptId?: string): ThreadRecord | undefined {
    for (const r of this.#records.values()) if (r.key === key && r.status === "active" && r.id !== exceptId) return r;
    return undefined;
  }

  #newestArchivedOf(key: string): ThreadRecord | undefined {
    let best: ThreadRecord | undefined;
    for (const r of this.#records.values()) {
      if (r.key !== key || r.status !== "archived") continue;
      if (!best || newer(r, best)) best = r;
    }
    return best;
  }
}

/** Order of "newest archived": later `createdAt`, then the larger `id`. */
function newer(a: ThreadRecord, b: ThreadRecord): boolean {
  const d = a.createdAt.getTime() - b.createdAt.getTime();
  return d !== 0 ? d > 0 : a.id > b.id;
}

/** Releases a lease row; the row and its token stay, so tokens never reset. */
function release(row: LeaseRow): void {
  row.owner = undefined;
  row.expiresAtMs = 0;
}

function holds(row: LeaseRow, lease: Lease, nowMs: number): boolean {
  return row.owner === lease.owner && row.token === lease.token && nowMs < row.expiresAtMs;
}
