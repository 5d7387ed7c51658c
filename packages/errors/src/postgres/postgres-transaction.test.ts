import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { postgresTransaction } from "./postgres-transaction.js";

/** A client that records its statements and release, failing the statements named in `fail`. */
class RecordingClient extends EventEmitter {
  readonly statements: string[] = [];
  released: { destroy: Error | boolean | undefined } | undefined;
  constructor(readonly fail: Readonly<Record<string, Error>> = {}) {
    super();
  }
  query(text: string): Promise<unknown> {
    this.statements.push(text);
    const error = this.fail[text];
    return error ? Promise.reject(error) : Promise.resolve({ rows: [] });
  }
  release(destroy?: Error | boolean): void {
    this.released = { destroy };
  }
}

describe("postgresTransaction", () => {
  it("runs the body between BEGIN and COMMIT and returns the client to the pool", async () => {
    const client = new RecordingClient();
    const out = await postgresTransaction(
      () => Promise.resolve(client),
      async (c) => {
        await c.query("SELECT 1");
        return 42;
      },
    );
    expect(out).toBe(42);
    expect(client.statements).toEqual(["BEGIN", "SELECT 1", "COMMIT"]);
    expect(client.released).toEqual({ destroy: undefined });
    expect(client.listenerCount("error")).toBe(0);
  });

  it("rolls back a failed body and rejects with what failure makes of it", async () => {
    const client = new RecordingClient();
    const boom = new Error("boom");
    const failure = (error: unknown): unknown => new Error("mapped", { cause: error });
    const rejection = postgresTransaction(
      () => Promise.resolve(client),
      () => Promise.reject(boom),
      { failure },
    );
    await expect(rejection).rejects.toMatchObject({ message: "mapped", cause: boom });
    expect(client.statements).toEqual(["BEGIN", "ROLLBACK"]);
    expect(client.released).toEqual({ destroy: undefined });
  });

  it("passes a checkout failure through failure without touching a client", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    await expect(
      postgresTransaction(
        () => Promise.reject(refused),
        () => Promise.resolve(),
        { failure: (error) => ({ wrapped: error }) },
      ),
    ).rejects.toEqual({ wrapped: refused });
  });

  it("keeps an error event of a connection lost mid-transaction from going unheard, and destroys that client", async () => {
    const client = new RecordingClient();
    const lost = new Error("Connection terminated unexpectedly");
    await postgresTransaction(
      () => Promise.resolve(client),
      async () => {
        // Without a listener, emit("error") throws: the host process would crash.
        client.emit("error", lost);
      },
    );
    expect(client.released).toEqual({ destroy: lost });
    expect(client.listenerCount("error")).toBe(0);
  });

  it("destroys the client when ROLLBACK fails", async () => {
    const rollbackFailed = new Error("not queryable");
    const client = new RecordingClient({ ROLLBACK: rollbackFailed });
    await expect(
      postgresTransaction(
        () => Promise.resolve(client),
        () => Promise.reject(new Error("body")),
      ),
    ).rejects.toThrow("body");
    expect(client.released).toEqual({ destroy: rollbackFailed });
  });

  it("rolls back instead of committing when the signal aborted during the body", async () => {
    const client = new RecordingClient();
    const controller = new AbortController();
    const reason = new Error("stop");
    await expect(
      postgresTransaction(
        () => Promise.resolve(client),
        async () => controller.abort(reason),
        { signal: controller.signal },
      ),
    ).rejects.toBe(reason);
    expect(client.statements).toEqual(["BEGIN", "ROLLBACK"]);
  });
});
