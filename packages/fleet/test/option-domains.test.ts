// Every number or string a fleet call takes is checked before any query: a legal value (a
// fraction, a huge number) works, an illegal one is refused with InvalidOptionError, and no value
// reaches PostgreSQL raw (where it would fail with a bare SQLSTATE such as 22P02 or 22008).
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import { InvalidOptionError } from "@adaptor/errors";
import { Fleet } from "@adaptor/fleet";
import { fakeCodex } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

/** A port nobody listens on: a refusal that comes before any query shows here as InvalidOptionError, not SERVICE_UNAVAILABLE. */
const NOWHERE = "postgres://127.0.0.1:1/none";

async function refusal(run: () => unknown): Promise<InvalidOptionError> {
  let error: unknown;
  try {
    await run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InvalidOptionError);
  return error as InvalidOptionError;
}

const ILLEGAL_DURATIONS: unknown[] = [-1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, "60000", null, {}];

describe("fleet option domains, before any query", () => {
  it("prune refuses a negative, NaN, infinite or non-number olderThanMs with InvalidOptionError (field olderThanMs)", async () => {
    const fleet = new Fleet({ connectionString: NOWHERE });
    try {
      for (const olderThanMs of ILLEGAL_DURATIONS) {
        // An object is the options form ({} asks for the retention), so the direct form is tried with the others.
        if (typeof olderThanMs !== "object" || olderThanMs === null) {
          const error = await refusal(() => fleet.prune(olderThanMs as number));
          expect([error.subject, error.field], String(olderThanMs)).toEqual(["fleet prune", "olderThanMs"]);
        }
        // The options form, as drain takes them.
        const given = await refusal(() => fleet.prune({ olderThanMs: olderThanMs as number }));
        expect([given.subject, given.field], String(olderThanMs)).toEqual(["fleet prune", "olderThanMs"]);
      }
      const misspelt = await refusal(() => fleet.prune({ olderThan: 5 } as never));
      expect([misspelt.field, misspelt.suggestion]).toEqual(["olderThan", "olderThanMs"]);
    } finally {
      await fleet.close();
    }
  });

  it("drain refuses a timeoutMs that is not a number from 0 to 2^31 - 1 ms, and an unknown key", async () => {
    for (const options of [...ILLEGAL_DURATIONS.map((timeoutMs) => ({ timeoutMs })), { timeoutMs: 2 ** 31 }, { timeout: 5 }]) {
      const fleet = new Fleet({ connectionString: NOWHERE });
      try {
        const error = await refusal(() => fleet.drain(options as { timeoutMs?: number }));
        expect(error.subject, JSON.stringify(options)).toBe("fleet drain");
      } finally {
        await fleet.close();
      }
    }
  });

  it("worker refuses a concurrency that is not an integer >= 1, a name that is not a non-empty string, and an unknown key, before connecting", async () => {
    const fleet = new Fleet({ connectionString: NOWHERE });
    try {
      const agent = () => new Agent(fakeCodex("x"));
      for (const [options, field] of [
        [{ concurrency: 0 }, "concurrency"],
        [{ concurrency: 1.5 }, "concurrency"],
        [{ concurrency: Number.NaN }, "concurrency"],
        [{ concurrency: "2" }, "concurrency"],
        [{ name: "" }, "name"],
        [{ name: 42 }, "name"],
        [{ concurency: 2 }, "concurency"],
      ] as const) {
        const error = await refusal(() => fleet.worker(agent, options as never));
        expect([error.subject, error.field]).toEqual(["fleet worker", field]);
      }
    } finally {
      await fleet.close();
    }
  });

  it("answer refuses an approval id that is not a non-empty string before connecting", async () => {
    const fleet = new Fleet({ connectionString: NOWHERE });
    try {
      for (const id of ["", 42, null]) {
        const error = await refusal(() => fleet.answer(id as string, { outcome: "approve" }));
        expect([error.subject, error.field]).toEqual(["fleet answer", "approvalId"]);
      }
      const error = await refusal(() => fleet.approval(7 as unknown as string));
      expect([error.subject, error.field]).toEqual(["fleet approval", "approvalId"]);
    } finally {
      await fleet.close();
    }
  });

  it("answer, approval and a submitted resume refuse an approval id holding U+0000 (PostgreSQL's text cannot hold it; no asked approval has one)", async () => {
    const fleet = new Fleet({ connectionString: NOWHERE });
    try {
      expect((await refusal(() => fleet.answer("a\0b", { outcome: "approve" }))).field).toBe("approvalId");
      expect((await refusal(() => fleet.approval("a\0b"))).field).toBe("approvalId");
      for (const approvalId of ["a\0b", 42, ""]) {
        const error = await refusal(() =>
          fleet.submit("", { threadKey: "t", resume: { approvalId: approvalId as string, decision: { outcome: "approve" } } }),
        );
        expect([error.subject, error.field]).toEqual(["fleet submit", "resume.approvalId"]);
      }
    } finally {
      await fleet.close();
    }
  });

  it("cancel refuses a reason that is not a string before connecting", async () => {
    const fleet = new Fleet({ connectionString: NOWHERE });
    try {
      const handle = fleet.handle("5f0c3f6e-8f7a-4a4e-9a57-0c6d3b1f2a10");
      for (const reason of [42, null, {}, "stop\0now"]) {
        const error = await refusal(() => handle.cancel(reason as string));
        expect([error.subject, error.field]).toEqual(["fleet cancel", "reason"]);
      }
    } finally {
      await fleet.close();
    }
  });

  it("the constructor refuses a number option out of what pg-boss and PostgreSQL keep, with InvalidOptionError naming it", () => {
    for (const [field, value] of [
      ["heartbeatSeconds", 86_401],
      ["heartbeatSeconds", 9],
      ["monitorIntervalSeconds", 86_401],
      ["monitorIntervalSeconds", 0.5],
      ["maxAttempts", 1_001],
      ["maxAttempts", Number.NaN],
      ["retentionMs", 2 ** 31 * 1000],
      ["retentionMs", -1],
      ["maxQueued", 2 ** 31],
      ["queueDeadlineMs", "60000"],
      ["retryRuns", "yes"],
    ] as const) {
      let error: unknown;
      try {
        new Fleet({ connectionString: NOWHERE, [field]: value });
      } catch (e) {
        error = e;
      }
      expect(error, `${field}: ${String(value)}`).toBeInstanceOf(InvalidOptionError);
      expect([(error as InvalidOptionError).subject, (error as InvalidOptionError).field]).toEqual(["Fleet options", field]);
    }
    // The largest legal values construct.
    const largest = new Fleet({
      connectionString: NOWHERE,
      heartbeatSeconds: 86_400,
      monitorIntervalSeconds: 86_400,
      maxAttempts: 1_000,
      retentionMs: (2 ** 31 - 1) * 1000,
      maxQueued: 2 ** 31 - 1,
    });
    void largest.close();
  });

  it("the constructor refuses an unknown option with the closest known name, and a queue or schema that is not a string with a TypeError naming it", () => {
    let error: unknown;
    try {
      new Fleet({ connectionString: NOWHERE, maxQueud: 5 } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ subject: "Fleet options", field: "maxQueud", suggestion: "maxQueued" });
    for (const field of ["queue", "schema"] as const)
      expect(() => new Fleet({ connectionString: NOWHERE, [field]: 5 } as never), field).toThrow(
        new TypeError(`Fleet options: ${field} must match ${field === "queue" ? "[\\w.-/]{1,100}" : "[a-z_][a-z0-9_]{0,40}"}, got number`),
      );
  });

  it("worker refuses an agent that is neither an Agent nor a function making one, before connecting", async () => {
    const fleet = new Fleet({ connectionString: NOWHERE });
    try {
      for (const agent of [null, 5, "agent", {}])
        await expect(fleet.worker(agent as never), String(agent)).rejects.toThrow(
          /^fleet worker: agent must be an Agent or a function making one, got /,
        );
    } finally {
      await fleet.close();
    }
  });

  it("answer refuses a deny whose reason is not a string saying so, and an edited input that is not a plain object, before connecting", async () => {
    const fleet = new Fleet({ connectionString: NOWHERE });
    try {
      const deny = await fleet.answer("some-approval", { outcome: "deny", reason: 5 } as never).catch((e: unknown) => e);
      expect(deny).toBeInstanceOf(TypeError);
      expect((deny as TypeError).message).toBe("fleet answer: decision.reason of deny must be a string, got number");
      for (const updatedInput of [[], "rm -rf x", null]) {
        const error = await refusal(() => fleet.answer("some-approval", { outcome: "approve", updatedInput } as never));
        expect([error.subject, error.field], JSON.stringify(updatedInput)).toEqual(["fleet answer", "updatedInput"]);
      }
    } finally {
      await fleet.close();
    }
  });

  it("a handle's events refuse an unknown option with the closest known name, before any query", async () => {
    const fleet = new Fleet({ connectionString: NOWHERE });
    try {
      const handle = fleet.handle("01a24ea2-0000-7000-8000-000000000000");
      const events = handle.events({ aftr: 0 } as never);
      const error = await refusal(() => events.next());
      expect([error.subject, error.field, error.suggestion]).toEqual(["fleet events", "aftr", "after"]);
    } finally {
      await fleet.close();
    }
  });

  it("the constructor refuses a malformed connectionString or listenConnectionString without quoting it, as the PostgreSQL stores do", () => {
    const secret = "s3cr3t-password";
    for (const [field, value] of [
      ["connectionString", `postgres://user:${secret}@host:notaport/db`],
      ["connectionString", `postgres://user:${secret}@[::1/db`],
      ["listenConnectionString", `postgres://user:${secret}@host:notaport/db`],
      ["connectionString", ""],
    ] as const) {
      const options = { connectionString: NOWHERE, [field]: value };
      expect(() => new Fleet(options), value).toThrow(TypeError);
      expect(() => new Fleet(options)).toThrow(
        new RegExp(`^Fleet options: ${field} (is not a valid connection URL|must be a non-empty string)`),
      );
      expect(() => new Fleet(options)).not.toThrow(new RegExp(secret));
    }
    // A socket path and a URL without a host are connection strings pg takes.
    for (const connectionString of ["/var/run/postgresql mydb", "postgres:///mydb", "postgres://u:p%20w@localhost/db"])
      void new Fleet({ connectionString }).close();
  });
});

if (!PG_URL) {
  skipWithoutServer("fleet option domains");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe("fleet option domains on PostgreSQL", () => {
    it("prune takes odd but legal ages, as a number or as { olderThanMs }: 1 ms, a fraction, 0, a huge number and Number.MAX_VALUE", async () => {
      const fleet = new Fleet({ connectionString: url, schema: freshSchema("fleet_prune_domain") });
      closers.push(() => fleet.close());
      await fleet.start();
      for (const olderThanMs of [1, 0.5, 0, 1e12, 1e15, 1e300, Number.MAX_VALUE, Number.MIN_VALUE]) {
        expect(await fleet.prune(olderThanMs), String(olderThanMs)).toBe(0);
        expect(await fleet.prune({ olderThanMs }), String(olderThanMs)).toBe(0);
      }
      expect(await fleet.prune({})).toBe(0);
    });

    it("prune of 1 ms removes a run finished before it, of a huge age keeps it", async () => {
      const schema = freshSchema("fleet_prune_finished");
      const fleet = new Fleet({ connectionString: url, schema });
      closers.push(() => fleet.close());
      await fleet.start();
      const handle = await fleet.submit("never served");
      expect(await handle.cancel()).toBe(true);
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      closers.push(() => db.end());
      // The run finished a second ago on PostgreSQL's clock (no wait for the clock to move).
      await db.query(`UPDATE "${schema}".adaptor_fleet_runs SET finished_at = now() - interval '1 second' WHERE id = $1`, [handle.id]);
      expect(await fleet.prune({ olderThanMs: 1e300 })).toBe(0);
      expect(await fleet.prune(Number.MAX_VALUE)).toBe(0);
      expect(await fleet.prune({ olderThanMs: 1 })).toBe(1);
    });
  });
}
