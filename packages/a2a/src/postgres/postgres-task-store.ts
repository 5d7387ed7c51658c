import { Task, TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { OwnerResolver, ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import { DriverError, ErrCode } from "@adaptor/errors";
import { connectionStringProblem, postgresErrorCode, postgresTransaction } from "@adaptor/errors/internal";
import pg from "pg";
import { quoteIdent, taskStoreDdl, TASKS_TABLE } from "./schema.js";
import { mergeTask, type Superseded, type TaskJson } from "./task-merge.js";

/** Options of {@link PostgresTaskStore}: exactly one of `pool` and `connectionString`. */
export interface PostgresTaskStoreOptions {
  /** A pool the caller owns: `close()` leaves it open. */
  readonly pool?: pg.Pool;
  /** A connection string; the store makes its own pool and ends it on `close()`. */
  readonly connectionString?: string;
  /** The schema holding the table `adaptor_a2a_tasks`. Default `"public"`. */
  readonly schema?: string;
  /**
   * Who owns a task, from the request's context (tasks are scoped by tenant and owner, as in the
   * SDK's own stores). Default: the SDK's `resolveUserScope` rule, the authenticated user's name,
   * else `"unknown"`.
   */
  readonly ownerResolver?: OwnerResolver;
}

/** The device name in the `DriverError`s this store throws. */
const DEVICE = "a2a-task-store-postgres";

/** Serialises concurrent `migrate()` calls from several processes. */
const MIGRATE_LOCK = "SELECT pg_advisory_xact_lock(hashtext('adaptor.a2a.taskstore.migrate'))";

/** `ListTasks` page size when the request names none, as the SDK's stores use. */
const DEFAULT_PAGE_SIZE = 50;

interface TaskRow {
  task: TaskJson;
  superseded: Superseded;
  revision: string;
}

/**
 * An `@a2a-js/sdk` `TaskStore` in PostgreSQL (`pg`), so that A2A tasks survive a restart and
 * several servers (`a2aServer` instances on many hosts) share them.
 *
 * - Schema: created by {@link migrate} (explicit, idempotent, safe from several processes at
 *   once), table `adaptor_a2a_tasks` in `schema`.
 * - Each task is stored whole, as the protocol's JSON (`Task.toJSON`), scoped by tenant and
 *   owner like the SDK's own stores.
 * - Saves merge instead of overwriting. The SDK saves a task by loading it, changing it and saving
 *   it whole, so of two servers writing one task, the later save would undo the other's change
 *   (a message appended to the history, a status, an artifact chunk). Here a save locks the row
 *   and merges: history by `messageId` (nothing is lost, new messages are appended); the status,
 *   each artifact and each metadata key take the saved value unless it is one the task already had
 *   and has since left (the writer read it before the newer one was written), and a terminal status
 *   is never left. Two writers changing the same artifact at the same moment: the later one wins.
 * - `list` filters by context, state and status time, newest status first, with page tokens.
 *
 * Backend failures reject with a `DriverError` (device `a2a-task-store-postgres`, the `pg` error
 * as `cause`): `SERVICE_UNAVAILABLE` for connection loss (retryable), `NOT_FOUND` when the table is
 * missing (run `migrate()`), `DEVICE_DISCONNECTED` after `close()`, `INTERNAL` otherwise.
 *
 * @example
 * ```ts
 * const taskStore = new PostgresTaskStore({ connectionString: process.env.DATABASE_URL });
 * await taskStore.migrate();
 * const server = a2aServer(agent, { url, card, taskStore });
 * ```
 */
export class PostgresTaskStore implements TaskStore, AsyncDisposable {
  readonly #pool: pg.Pool;
  readonly #owned: boolean;
  readonly #schema: string;
  readonly #table: string;
  readonly #owner: OwnerResolver;
  #closed = false;

  /**
   * @throws TypeError unless exactly one of `pool` and `connectionString` is given; for a
   * `connectionString` that is not a connection URL or socket path `pg` can parse (a malformed
   * port or host; the value is never quoted); for an empty `schema`.
   */
  constructor(options: PostgresTaskStoreOptions) {
    if ((options.pool === undefined) === (options.connectionString === undefined)) {
      throw new TypeError("PostgresTaskStore: pass exactly one of `pool` and `connectionString`");
    }
    const problem = options.connectionString === undefined ? undefined : connectionStringProblem(options.connectionString);
    if (problem !== undefined) throw new TypeError(`PostgresTaskStore: connectionString ${problem}`);
    const schema = options.schema ?? "public";
    if (typeof schema !== "string" || schema === "") throw new TypeError("PostgresTaskStore: schema must be a non-empty string");
    this.#owned = options.pool === undefined;
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: 4 });
    // An idle client of our own pool that loses its connection must not crash the process.
    if (this.#owned) this.#pool.on("error", () => {});
    this.#schema = schema;
    this.#table = `${quoteIdent(schema)}.${TASKS_TABLE}`;
    this.#owner = options.ownerResolver ?? ((context) => context.user?.userName || "unknown");
  }

  /** The schema the table lives in. */
  get schema(): string {
    return this.#schema;
  }

  /**
   * Creates the schema, table and indexes if missing. Idempotent and safe to call from several
   * processes at once. Call it once before first use.
   * @throws DriverError when the database refuses (e.g. no CREATE privilege).
   */
  async migrate(): Promise<void> {
    await this.#transaction("migrate", async (client) => {
      await client.query(MIGRATE_LOCK);
      for (const ddl of taskStoreDdl(quoteIdent(this.#schema))) await client.query(ddl);
    });
  }

  /** See the SDK's `TaskStore.save`: merges `task` into the stored one (see the class). @throws DriverError. */
  async save(task: Task, context: ServerCallContext): Promise<void> {
    if (typeof task.id !== "string" || task.id === "") throw new TypeError("PostgresTaskStore.save: the task has no id");
    const { tenant, owner } = this.#scope(context);
    const incoming = Task.toJSON(task) as TaskJson;
    await this.#transaction("save", async (client) => {
      const key = [tenant, owner, task.id];
      let row = (
        await client.query<TaskRow>(
          `SELECT task, superseded, revision::text AS revision FROM ${this.#table} WHERE tenant = $1 AND owner = $2 AND id = $3 FOR UPDATE`,
          key,
        )
      ).rows[0];
      if (!row) {
        const inserted = await client.query(
          `INSERT INTO ${this.#table} (tenant, owner, id, context_id, state, status_time, task, superseded, revision)
           VALUES ($1, $2, $3, $4, $5, $6, $7, '{}', 1) ON CONFLICT DO NOTHING`,
          [...key, ...columns(incoming), JSON.stringify(incoming)],
        );
        if (inserted.rowCount === 1) return;
        // Another writer inserted it first: merge into theirs.
        row = (
          await client.query<TaskRow>(
            `SELECT task, superseded, revision::text AS revision FROM ${this.#table} WHERE tenant = $1 AND owner = $2 AND id = $3 FOR UPDATE`,
            key,
          )
        ).rows[0];
        if (!row) throw new Error("the task row vanished while saving");
      }
      const merged = mergeTask(row.task, row.superseded, incoming);
      await client.query(
        `UPDATE ${this.#table} SET context_id = $4, state = $5, status_time = $6, task = $7, superseded = $8, revision = revision + 1, updated_at = now()
         WHERE tenant = $1 AND owner = $2 AND id = $3`,
        [...key, ...columns(merged.task), JSON.stringify(merged.task), JSON.stringify(merged.superseded)],
      );
    });
  }

  /** See the SDK's `TaskStore.load`: the task in the caller's scope, or `undefined`. @throws DriverError. */
  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const { tenant, owner } = this.#scope(context);
    const rows = await this.#query<{ task: TaskJson }>(
      "load",
      `SELECT task FROM ${this.#table} WHERE tenant = $1 AND owner = $2 AND id = $3`,
      [tenant, owner, taskId],
    );
    const row = rows[0];
    return row ? Task.fromJSON(row.task) : undefined;
  }

  /**
   * See the SDK's `TaskStore.list`: the caller's tasks, filtered by `contextId`, `status` and
   * `statusTimestampAfter`, newest status first (then by id), `pageSize` (default 50) at a time;
   * artifacts only with `includeArtifacts`.
   * @throws RequestMalformedError (the SDK's) for a page token this store did not make; DriverError.
   */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const { tenant, owner } = this.#scope(context);
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    const where = ["tenant = $1", "owner = $2"];
    const values: unknown[] = [tenant, owner];
    const add = (clause: (n: string) => string, value: unknown) => {
      values.push(value);
      where.push(clause(`$${values.length}`));
    };
    if (params.contextId) add((n) => `context_id = ${n}`, params.contextId);
    if (params.status !== undefined && params.status !== TaskState.TASK_STATE_UNSPECIFIED)
      add((n) => `state = ${n}`, taskStateToJSON(params.status));
    if (params.statusTimestampAfter) add((n) => `status_time > ${n}`, Date.parse(params.statusTimestampAfter));
    const filter = where.join(" AND ");
    const filterValues = [...values];
    if (params.pageToken) {
      const cursor = decodePageToken(params.pageToken);
      values.push(cursor.time, cursor.id);
      where.push(`(status_time < $${values.length - 1} OR (status_time = $${values.length - 1} AND id < $${values.length}))`);
    }
    values.push(pageSize + 1);
    const rows = await this.#query<{ task: TaskJson; status_time: string; id: string }>(
      "list",
      `SELECT task, status_time::text AS status_time, id FROM ${this.#table} WHERE ${where.join(" AND ")} ORDER BY status_time DESC, id DESC LIMIT $${values.length}`,
      values,
    );
    const counted = await this.#query<{ total: string }>(
      "list",
      `SELECT count(*)::text AS total FROM ${this.#table} WHERE ${filter}`,
      filterValues,
    );
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((row) => {
        const task = Task.fromJSON(row.task);
        if (!params.includeArtifacts) task.artifacts = [];
        return task;
      }),
      nextPageToken: rows.length > pageSize && last ? encodePageToken(Number(last.status_time), last.id) : "",
      pageSize,
      totalSize: Number(counted[0]?.total ?? 0),
    };
  }

  /** Ends the store's own pool (a pool passed in stays open). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#owned) await this.#pool.end();
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #scope(context: ServerCallContext): { tenant: string; owner: string } {
    return { tenant: context.tenant ?? "", owner: this.#owner(context) };
  }

  #checkOpen(operation: string): void {
    if (this.#closed) throw new DriverError({ op: operation, device: DEVICE, code: ErrCode.DeviceDisconnected, cause: "store closed" });
  }

  async #query<R extends pg.QueryResultRow>(operation: string, text: string, values: unknown[]): Promise<R[]> {
    this.#checkOpen(operation);
    try {
      return (await this.#pool.query<R>(text, values)).rows;
    } catch (err) {
      throw backendError(operation, err);
    }
  }

  /** Runs `body` in BEGIN … COMMIT on one client (see `postgresTransaction`); rolls back on any error. */
  async #transaction(operation: string, body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    this.#checkOpen(operation);
    await postgresTransaction(() => this.#pool.connect(), body, { failure: (err) => backendError(operation, err) });
  }
}

/** `context_id`, `state`, `status_time` of a task's JSON. */
function columns(task: TaskJson): [string, string, number] {
  const time = task.status?.timestamp ? Date.parse(task.status.timestamp) : 0;
  return [task.contextId ?? "", task.status?.state ?? "TASK_STATE_UNSPECIFIED", Number.isNaN(time) ? 0 : time];
}

function encodePageToken(time: number, id: string): string {
  return Buffer.from(`${time}|${id}`).toString("base64url");
}

function decodePageToken(token: string): { time: number; id: string } {
  const text = Buffer.from(token, "base64url").toString("utf8");
  const bar = text.indexOf("|");
  const time = Number(text.slice(0, bar));
  if (bar <= 0 || !Number.isSafeInteger(time)) throw new RequestMalformedError("pageToken is not a page token of this task store");
  return { time, id: text.slice(bar + 1) };
}

/** A `pg` failure as the store's `DriverError` (the code from the PostgreSQL stores' shared classification). */
function backendError(operation: string, err: unknown): unknown {
  if (err instanceof DriverError || err instanceof RequestMalformedError || err instanceof TypeError) return err;
  return new DriverError({ op: operation, device: DEVICE, code: postgresErrorCode(err), cause: err });
}
