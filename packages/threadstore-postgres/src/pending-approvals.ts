import {
  ApprovalNotPendingError,
  DEADLINE_PASSED_REASON,
  LeaseLostError,
  checkApprovalId,
  checkLease,
  checkPendingApprovalDraft,
  checkStoredDecision,
  checkThreadKey,
  type Lease,
  type PendingApproval,
  type PendingApprovalDraft,
  type PendingApprovalOperation,
  type PendingApprovalStatus,
  type StoredApprovalDecision,
} from "@adaptor/threadstore";
import type pg from "pg";

/**
 * DDL of the pending-approvals table in schema `s` (already quoted), every statement idempotent;
 * `migrate()` runs it after the store's other tables. The draft's descriptive fields travel as
 * one JSON document (`body`); status, times and the decision are columns.
 */
export function pendingApprovalsDdl(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.adaptor_pending_approvals (
      id text PRIMARY KEY,
      key text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'answered', 'expired', 'closed')),
      body json NOT NULL,
      created_at timestamptz NOT NULL,
      deadline timestamptz,
      decision json,
      resolved_at timestamptz
    )`,
    `CREATE INDEX IF NOT EXISTS adaptor_pending_approvals_by_key ON ${s}.adaptor_pending_approvals (key, created_at, id)`,
  ];
}

interface Row {
  id: string;
  key: string;
  status: string;
  body_json: string;
  created_at: Date;
  deadline: Date | null;
  decision_json: string | null;
  resolved_at: Date | null;
}

/** The fields of a draft kept in `body`. */
type Body = Omit<PendingApprovalDraft, "id" | "key" | "createdAt" | "deadline" | "deadlineMs">;

/** Runs `body` in one BEGIN … COMMIT with the store's closed, signal and fault checks and its error mapping. */
export type PostgresStep = <T>(
  operation: PendingApprovalOperation,
  signal: AbortSignal | undefined,
  body: (client: pg.PoolClient) => Promise<T>,
) => Promise<T>;

const EXPIRED_DECISION = JSON.stringify({ outcome: "deny", reason: DEADLINE_PASSED_REASON });

/**
 * The pending-approvals capability of `PostgresThreadStore` (see `PendingApprovalStore`). Every
 * call is one transaction; deadlines are judged by the database clock (`now()`), and the expiry
 * and the answer are conditional updates (`WHERE status = 'pending'`), so exactly one of them, and
 * one answer, wins across workers.
 */
export class PostgresPendingApprovals {
  readonly #step: PostgresStep;
  readonly #t: string;
  readonly #leases: string;

  constructor(schema: string, step: PostgresStep) {
    this.#step = step;
    this.#t = `${schema}.adaptor_pending_approvals`;
    this.#leases = `${schema}.adaptor_thread_leases`;
  }

  async save(draft: PendingApprovalDraft, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    checkPendingApprovalDraft(draft);
    checkLease(lease);
    const { id, key, createdAt, deadline, deadlineMs, ...body } = draft;
    return this.#step("savePendingApproval", signal, async (client) => {
      const held = await client.query(
        `SELECT 1 FROM ${this.#leases} WHERE target = $1 AND owner = $2 AND token = $3::bigint AND expires_at > clock_timestamp() FOR UPDATE`,
        [lease.target, lease.owner, String(lease.token)],
      );
      if (lease.target !== key || held.rowCount !== 1) throw new LeaseLostError(lease.target);
      const rows = await client.query<Row>(
        // A draft's deadlineMs is judged by the database's clock; its deadline is the host's estimate.
        `INSERT INTO ${this.#t} (id, key, status, body, created_at, deadline)
         VALUES ($1, $2, 'pending', $3::json, $4, CASE WHEN $6::float8 IS NULL THEN $5::timestamptz ELSE now() + $6::float8 * interval '1 millisecond' END)
         RETURNING ${COLUMNS}`,
        [id, key, JSON.stringify(body satisfies Body), createdAt, deadline ?? null, deadlineMs ?? null],
      );
      return approvalOf(rows.rows[0] as Row);
    });
  }

  async list(key: string, signal?: AbortSignal): Promise<PendingApproval[]> {
    checkThreadKey(key, "listPendingApprovals: key");
    return this.#step("listPendingApprovals", signal, async (client) => {
      await client.query(
        `UPDATE ${this.#t} SET status = 'expired', decision = $2::json, resolved_at = now()
         WHERE key = $1 AND status = 'pending' AND deadline <= now()`,
        [key, EXPIRED_DECISION],
      );
      const rows = await client.query<Row>(
        `SELECT ${COLUMNS} FROM ${this.#t} WHERE key = $1 AND status <> 'closed' ORDER BY created_at, id`,
        [key],
      );
      return rows.rows.map(approvalOf);
    });
  }

  async get(id: string, signal?: AbortSignal): Promise<PendingApproval | undefined> {
    checkApprovalId(id);
    return this.#step("getPendingApproval", signal, async (client) => {
      await this.#expire(client, id);
      const row = await this.#byId(client, id);
      return row && approvalOf(row);
    });
  }

  async answer(id: string, decision: StoredApprovalDecision, signal?: AbortSignal): Promise<PendingApproval> {
    checkApprovalId(id);
    checkStoredDecision(decision);
    return this.#step("answerPendingApproval", signal, async (client) => {
      await this.#expire(client, id);
      const rows = await client.query<Row>(
        `UPDATE ${this.#t} SET status = 'answered', decision = $2::json, resolved_at = now() WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
        [id, JSON.stringify(decision)],
      );
      if (rows.rowCount === 1) return approvalOf(rows.rows[0] as Row);
      const row = await this.#byId(client, id);
      throw new ApprovalNotPendingError(id, row ? (row.status as PendingApprovalStatus) : "unknown");
    });
  }

  async close(id: string, lease: Lease, signal?: AbortSignal): Promise<PendingApproval> {
    checkApprovalId(id);
    checkLease(lease);
    return this.#step("closePendingApproval", signal, async (client) => {
      const row = await this.#byId(client, id);
      if (!row) throw new ApprovalNotPendingError(id, "unknown");
      const held = await client.query(
        `SELECT 1 FROM ${this.#leases} WHERE target = $1 AND owner = $2 AND token = $3::bigint AND expires_at > clock_timestamp() FOR UPDATE`,
        [lease.target, lease.owner, String(lease.token)],
      );
      if (lease.target !== row.key || held.rowCount !== 1) throw new LeaseLostError(lease.target);
      await this.#expire(client, id);
      const closed = await client.query<Row>(`UPDATE ${this.#t} SET status = 'closed' WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
      return approvalOf(closed.rows[0] as Row);
    });
  }

  async #expire(client: pg.PoolClient, id: string): Promise<void> {
    await client.query(
      `UPDATE ${this.#t} SET status = 'expired', decision = $2::json, resolved_at = now() WHERE id = $1 AND status = 'pending' AND deadline <= now()`,
      [id, EXPIRED_DECISION],
    );
  }

  async #byId(client: pg.PoolClient, id: string): Promise<Row | undefined> {
    return (await client.query<Row>(`SELECT ${COLUMNS} FROM ${this.#t} WHERE id = $1`, [id])).rows[0];
  }
}

/** Columns selected for an approval; JSON comes back as text. */
const COLUMNS = "id, key, status, body::text AS body_json, created_at, deadline, decision::text AS decision_json, resolved_at";

/** True for the errors the pending-approvals contract throws (passed through, never wrapped as backend failures). */
export function isPendingApprovalError(err: unknown): boolean {
  return err instanceof ApprovalNotPendingError;
}

function approvalOf(row: Row): PendingApproval {
  const body = JSON.parse(row.body_json) as Body;
  return {
    id: row.id,
    key: row.key,
    ...body,
    createdAt: row.created_at,
    ...(row.deadline !== null ? { deadline: row.deadline } : {}),
    status: row.status as PendingApprovalStatus,
    ...(row.decision_json !== null ? { decision: JSON.parse(row.decision_json) as StoredApprovalDecision } : {}),
    ...(row.resolved_at !== null ? { resolvedAt: row.resolved_at } : {}),
  };
}
