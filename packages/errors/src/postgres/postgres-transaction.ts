/**
 * The part of a `pg` `PoolClient` that {@link postgresTransaction} uses (a `pg.PoolClient` is
 * one), so this package needs no dependency on `pg`.
 */
export interface PostgresTransactionClient {
  /** Sends one statement (`BEGIN`, `COMMIT`, `ROLLBACK`). */
  query(text: string): Promise<unknown>;
  /** Adds the listener of the client's `error` event (a connection lost while checked out). */
  on(event: "error", listener: (error: Error) => void): unknown;
  /** Removes that listener. */
  off(event: "error", listener: (error: Error) => void): unknown;
  /** Returns the client to its pool; given an `Error`, destroys it instead. */
  release(destroy?: Error | boolean): void;
}

/** How {@link postgresTransaction} runs. */
export interface PostgresTransactionOptions {
  /** Checked before `COMMIT`: when aborted, the transaction rolls back and fails with `signal.reason`. */
  readonly signal?: AbortSignal | undefined;
  /**
   * What a failure becomes, given the error of the checkout, of `BEGIN`, of the body, of the
   * signal (its reason) or of `COMMIT`; it is called after the rollback, and what it returns is
   * thrown. Default: the error as it is. A store passes its classification here (a `DriverError`
   * coded by `postgresErrorCode`, its own contract errors left as they are).
   */
  readonly failure?: ((error: unknown) => unknown) | undefined;
}

/**
 * Runs `body` in one `BEGIN` … `COMMIT` on a client checked out by `connect` (e.g.
 * `() => pool.connect()`), the frame every PostgreSQL store of the SDK shares:
 *
 * - while the client is checked out, a listener takes its `error` event: a connection the server
 *   ends when no statement of ours is in flight to take the failure (a restart, a failover,
 *   `pg_terminate_backend`) emits `error` on the client, and an `error` event nobody listens to
 *   would end the host process; the next statement fails on its own;
 * - any failure (the body's, `COMMIT`'s, an aborted `signal`) rolls back, then rejects with
 *   `options.failure(error)`;
 * - the client goes back to the pool, or is destroyed when its connection broke (an `error`
 *   event, or a `ROLLBACK` that failed), so no later checkout gets a dead connection.
 *
 * @returns what `body` resolved with, once committed.
 * @throws what `options.failure` makes of the failure (default the failure itself).
 */
export async function postgresTransaction<C extends PostgresTransactionClient, T>(
  connect: () => Promise<C>,
  body: (client: C) => Promise<T>,
  options: PostgresTransactionOptions = {},
): Promise<T> {
  const failure = options.failure ?? ((error: unknown) => error);
  let client: C;
  try {
    client = await connect();
  } catch (error) {
    throw failure(error);
  }
  let broken: Error | undefined;
  const onError = (error: Error): void => void (broken ??= error);
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const out = await body(client);
    if (options.signal?.aborted) throw options.signal.reason;
    await client.query("COMMIT");
    return out;
  } catch (error) {
    try {
      await client.query("ROLLBACK");
    } catch (rollbackError) {
      // The connection is unusable: destroy it instead of returning it to the pool.
      broken ??= rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw failure(error);
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}
