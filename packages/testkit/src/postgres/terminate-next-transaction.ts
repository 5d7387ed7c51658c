/** The parts of a `pg` client {@link terminateNextTransaction} patches and reads. */
export interface TerminableClient {
  readonly processID?: number;
  query(...args: never[]): unknown;
  emit(name: string | symbol, ...args: unknown[]): boolean;
  listenerCount(name: string | symbol): number;
  once(name: "end", listener: () => void): unknown;
}

/** The part of a `pg` pool {@link terminateNextTransaction} patches. */
export interface TerminablePool<C extends TerminableClient> {
  connect(): Promise<C>;
}

/** What {@link terminateNextTransaction} reports. */
export interface TerminatedConnection {
  /** Resolves with the backend pid once the server ended that connection. */
  readonly terminated: Promise<number>;
  /** `'error'` events the client emitted while nobody listened: each one would end a host process. */
  readonly unheard: readonly unknown[];
}

/**
 * Fault injection for code that runs transactions on a `pg` pool: the next client `pool.connect()`
 * checks out has its backend ended by the server (through `terminate(pid)`, e.g.
 * `admin.query("SELECT pg_terminate_backend($1)", [pid])`) just before the client's second query,
 * so the client is idle inside a transaction when it learns the connection is gone: exactly when
 * no query of its own can take the error. Later checkouts are the pool's own. Waits up to 10 s
 * for the client's `end` event after the termination (no `'error'` listener is added: one would
 * hide the fault under test).
 */
export function terminateNextTransaction<C extends TerminableClient>(
  pool: TerminablePool<C>,
  terminate: (pid: number) => Promise<unknown>,
): TerminatedConnection {
  const unheard: unknown[] = [];
  let report!: (pid: number) => void;
  const terminated = new Promise<number>((resolve) => (report = resolve));
  const original = pool.connect;
  pool.connect = async () => {
    // Once only: later calls (also pool.query's, which passes a callback) get the pool's own.
    pool.connect = original;
    const client = await original.call(pool);
    const emit = client.emit.bind(client);
    client.emit = (name: string | symbol, ...args: unknown[]): boolean => {
      if (name === "error" && client.listenerCount("error") === 0) unheard.push(args[0]);
      return emit(name, ...args);
    };
    const query = (client.query as (...args: unknown[]) => unknown).bind(client);
    let calls = 0;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = async (...args: unknown[]) => {
      if (++calls === 2) {
        const pid = client.processID ?? 0;
        const ended = new Promise<void>((resolve) => client.once("end", () => resolve()));
        await terminate(pid);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
        clearTimeout(timer);
        report(pid);
      }
      return query(...args);
    };
    return client;
  };
  return { terminated, unheard };
}
