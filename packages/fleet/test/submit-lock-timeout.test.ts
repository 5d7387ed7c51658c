// A submission of a thread key waits for the key's lock (held by another submission of the key
// until it commits) only up to the lock timeout: a host frozen mid-submission does not hold every
// other host's submissions of the key, each on a pool connection, without bound.
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { DriverError, ErrCode } from "@adaptor/errors";
import { Fleet } from "@adaptor/fleet";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

/** `url` whose connections set `lock_timeout` to `value`. */
function withLockTimeout(url: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set("options", `-c lock_timeout=${value}`);
  return u.toString();
}

if (!PG_URL) skipWithoutServer("fleet submit lock timeout");
else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A client whose open transaction holds thread key `key`'s submit lock in `schema`'s fleet, as a host frozen mid-submission. */
  async function frozenSubmission(schema: string, key: string): Promise<pg.Client> {
    const frozen = new pg.Client({ connectionString: url });
    await frozen.connect();
    closers.push(() => frozen.end());
    await frozen.query("BEGIN");
    await frozen.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`adaptor_fleet:"${schema}":thread:${key}`]);
    return frozen;
  }

  describe("fleet submit lock timeout", () => {
    it(
      "without a lock_timeout of the connection's own, a submission waits 30 s for a key's lock, then is refused SERVICE_UNAVAILABLE",
      { timeout: 120_000 },
      async () => {
        const schema = freshSchema("submit_lock_default");
        const fleet = new Fleet({ connectionString: url, schema });
        closers.push(() => fleet.close());
        await fleet.start();
        const frozen = await frozenSubmission(schema, "held");
        const startedAt = Date.now();
        const refused = await fleet.submit("waits for the lock", { threadKey: "held" }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(DriverError);
        expect(refused).toMatchObject({ code: ErrCode.ServiceUnavailable, cause: { code: "55P03" } });
        // The default, not a shorter wait (a lower bound only: the machine may be slow).
        expect(Date.now() - startedAt).toBeGreaterThanOrEqual(29_000);
        await frozen.query("ROLLBACK");
      },
    );

    it("a submission waits for a key's lock up to the connection's own lock_timeout, then is refused SERVICE_UNAVAILABLE, nothing stored", async () => {
      const schema = freshSchema("submit_lock");
      const fleet = new Fleet({ connectionString: withLockTimeout(url, "1s"), schema });
      closers.push(() => fleet.close());
      await fleet.start();
      // A host frozen mid-submission: its transaction holds the key's lock and never commits.
      const frozen = await frozenSubmission(schema, "held");
      const refused = await fleet.submit("waits for the lock", { threadKey: "held" }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DriverError);
      expect(refused).toMatchObject({ code: ErrCode.ServiceUnavailable, cause: { code: "55P03" } });
      expect((await frozen.query("SELECT count(*)::int AS n FROM " + `"${schema}".adaptor_fleet_runs`)).rows[0].n).toBe(0);
      // Another key is not held up, and the key is free again once the frozen transaction ends.
      await fleet.submit("another key", { threadKey: "free" });
      await frozen.query("ROLLBACK");
      await fleet.submit("the key again", { threadKey: "held" });
    });
  });
}
