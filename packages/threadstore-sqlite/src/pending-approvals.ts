import {
  ApprovalNotPendingError,
  DEADLINE_PASSED_REASON,
  LeaseLostError,
  checkApprovalId,
  checkLease,
  checkPendingApprovalDraft,
  checkStoredDecision,
  checkThreadKey,
  storedDeadline,
  type Lease,
  type PendingApproval,
  type PendingApprovalDraft,
  type PendingApprovalOperation,
  type PendingApprovalStatus,
  type StoredApprovalDecision,
} from "@adaptor/threadstore";
import type Database from "better-sqlite3";

/**
 * The pending-approvals table, created with the store's tables (`IF NOT EXISTS`). The draft's
 * descriptive fields travel as one JSON document (`body_json`); status, times and the decision
 * are columns so that the deadline and the answer are applied by single conditional statements.
 */
export const PENDING_APPROVALS_SCHEMA = `
CREATE TABLE IF NOT EXISTS adaptor_pending_approvals (
  id TEXT PRIMARY KEY,
  key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'expired', 'closed')),
  body_json TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  deadline_ms INTEGER,
  decision_json TEXT,
  resolved_at_ms INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS adaptor_pending_approvals_by_key ON adaptor_pending_approvals (key, created_at_ms, id);
`;

interface Row {
  id: string;
  key: string;
  status: string;
  body_json: string;
  created_at_ms: number;
  deadline_ms: number | null;
  decision_json: string | null;
  resolved_at_ms: number | null;
}

/** The fields of a draft kept in `body_json`. */
type Body = Omit<PendingApprovalDraft, "id" | "key" | "createdAt" | "deadline" | "deadlineMs">;

const COLUMNS = "id, key, status, body_json, created_at_ms, deadline_ms, decision_json, resolved_at_ms";
const EXPIRED_DECISION = JSON.stringify({ outcome: "deny", reason: DEADLINE_PASSED_REASON });

/** Runs one synchronous step with the store's closed, signal and fault checks and its error mapping. */
export type SqliteStep = <T>(operation: PendingApprovalOperation, signal: AbortSignal | undefined, body: () => T) => Promise<T>;

/** Throws unless the store may still write (see `SqliteThreadStore`): with a `lease`, a `LeaseLostError`. */
export type SqliteFileCheck = (operation: PendingApprovalOperation, lease?: Lease) => void;

/** The pending-approvals capability of `SqliteThreadStore` (see `PendingApprovalStore`); every write is one `BEGIN IMMEDIATE` transaction. */
export class SqlitePendingApprovals {
  readonly #step: SqliteStep;
  readonly #save: (draft: PendingApprovalDraft, lease: Lease) => PendingApproval;
  readonly #list: (key: string) => PendingApproval[];
  readonly #get: (id: string) => PendingApproval | undefined;
  readonly #answer: (id: string, decision: StoredApprovalDecision) => PendingApproval;
  readonly #close: (id: string, lease: Lease) => PendingApproval;

  constructor(db: Database.Database, step: SqliteStep, checkFile: SqliteFileCheck) {
    this.#step = step;
    const sql = {
      lease: db.prepare<[string], { owner: string | null; token: number; expires_at_ms: number }>(
        "SELECT owner, token, expires_at_ms FROM adaptor_thread_leases WHERE target = ?",
      ),
      insert: db.prepare<[Row]>(
        `INSERT INTO adaptor_pending_approvals (${COLUMNS})
         VALUES (@id, @key, @status, @body_json, @created_at_ms, @deadline_ms, @decision_json, @resolved_at_ms)`,
      ),
      byId: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM adaptor_pending_approvals WHERE id = ?`),
      byKey: db.prepare<[string], Row>(
        `SELECT ${COLUMNS} FROM adaptor_pending_approvals WHERE key = ? AND status <> 'closed' ORDER BY created_at_ms, id`,
      ),
      expireKey: db.prepare<[string, number, string, number]>(
        `UPDATE adaptor_pending_approvals SET status = 'expired', decision_json = ?, resolved_at_ms = ?
         WHERE key = ? AND status = 'pending' AND deadline_ms IS NOT NULL AND deadline_ms <= ?`,
      ),
      expireId: db.prepare<[string, number, string, number]>(
        `UPDATE adaptor_pending_approvals SET status = 'expired', decision_json = ?, resolved_at_ms = ?
         WHERE id = ? AND status = 'pending' AND deadline_ms IS NOT NULL AND deadline_ms <= ?`,
      ),
      answer: db.prepare<[string, number, string]>(
        "UPDATE adaptor_pending_approvals SET status = 'answered', decision_json = ?, resolved_at_ms = ? WHERE id = ? AND status = 'pending'",
      ),
      close: db.prepare<[string]>("UPDATE adaptor_pending_approvals SET status = 'closed' WHERE id = ?"),
    };
    const holds = (lease: Lease, now: number): boolean => {
      const row = sql.lease.get(lease.target);
      return row !== undefined && row.owner === lease.owner && row.token === lease.token && now < row.expires_at_ms;
    };
    const expireId = (id: string, now: number): void => void sql.expireId.run(EXPIRED_DECISION, now, id, now);
    this.#save = db.transaction((draft: PendingApprovalDraft, lease: Lease): PendingApproval => {
      checkFile("savePendingApproval", lease);
      if (lease.target !== draft.key || !holds(lease, Date.now())) throw new LeaseLostError(lease.target);
      if (sql.byId.get(draft.id)) throw new TypeError(`savePendingApproval: id ${draft.id} is already stored`);
      const row = rowOf(draft, Date.now());
      sql.insert.run(row);
      return approvalOf(row);
    }).immediate;
    this.#list = db.transaction((key: string): PendingApproval[] => {
      const now = Date.now();
      sql.expireKey.run(EXPIRED_DECISION, now, key, now);
      return sql.byKey.all(key).map(approvalOf);
    }).immediate;
    this.#get = db.transaction((id: string): PendingApproval | undefined => {
      expireId(id, Date.now());
      const row = sql.byId.get(id);
      return row && approvalOf(row);
    }).immediate;
    this.#answer = db.transaction((id: string, decision: StoredApprovalDecision): PendingApproval => {
      checkFile("answerPendingApproval");
      const now = Date.now();
      expireId(id, now);
      if (sql.answer.run(JSON.stringify(decision), now, id).changes !== 1) {
        const row = sql.byId.get(id);
        throw new ApprovalNotPendingError(id, row ? (row.status as PendingApprovalStatus) : "unknown");
      }
      return approvalOf(sql.byId.get(id) as Row);
    }).immediate;
    this.#close = db.transaction((id: string, lease: Lease): PendingApproval => {
      checkFile("closePendingApproval", lease);
      const now = Date.now();
      const row = sql.byId.get(id);
      if (!row) throw new ApprovalNotPendingError(id, "unknown");
      if (lease.target !== row.key || !holds(lease, now)) throw new LeaseLostError(lease.target);
      expireId(id, now);
      sql.close.run(id);
      return approvalOf(sql.byId.get(id) as Row);
    }).immediate;
  }

  async save(draft: PendingApprovalDraft, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    checkPendingApprovalDraft(draft);
    checkLease(lease);
    return this.#step("savePendingApproval", signal, () => this.#save(draft, lease));
  }

  async list(key: string, signal?: AbortSignal): Promise<PendingApproval[]> {
    checkThreadKey(key, "listPendingApprovals: key");
    return this.#step("listPendingApprovals", signal, () => this.#list(key));
  }

  async get(id: string, signal?: AbortSignal): Promise<PendingApproval | undefined> {
    checkApprovalId(id);
    return this.#step("getPendingApproval", signal, () => this.#get(id));
  }

  async answer(id: string, decision: StoredApprovalDecision, signal?: AbortSignal): Promise<PendingApproval> {
    checkApprovalId(id);
    checkStoredDecision(decision);
    return this.#step("answerPendingApproval", signal, () => this.#answer(id, decision));
  }

  async close(id: string, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    checkApprovalId(id);
    checkLease(lease);
    return this.#step("closePendingApproval", signal, () => this.#close(id, lease));
  }
}

/** True for the errors the pending-approvals contract throws (passed through, never wrapped as backend failures). */
export function isPendingApprovalError(err: unknown): boolean {
  return err instanceof ApprovalNotPendingError;
}

function rowOf(draft: PendingApprovalDraft, now: number): Row {
  const { id, key, createdAt, deadline: _hostDeadline, deadlineMs: _ms, ...body } = draft;
  const deadline = storedDeadline(draft, now);
  return {
    id,
    key,
    status: "pending",
    body_json: JSON.stringify(body satisfies Body),
    created_at_ms: createdAt.getTime(),
    deadline_ms: deadline ? deadline.getTime() : null,
    decision_json: null,
    resolved_at_ms: null,
  };
}

function approvalOf(row: Row): PendingApproval {
  const body = JSON.parse(row.body_json) as Body;
  return {
    id: row.id,
    key: row.key,
    ...body,
    createdAt: new Date(row.created_at_ms),
    ...(row.deadline_ms !== null ? { deadline: new Date(row.deadline_ms) } : {}),
    status: row.status as PendingApprovalStatus,
    ...(row.decision_json !== null ? { decision: JSON.parse(row.decision_json) as StoredApprovalDecision } : {}),
    ...(row.resolved_at_ms !== null ? { resolvedAt: new Date(row.resolved_at_ms) } : {}),
  };
}
