// Every path ends: a run no worker starts (none up, or only workers of an earlier run format)
// gets a typed verdict at its queue deadline, from PostgreSQL (a pg-boss job deferred to the
// deadline), even when the host that submitted it is gone.
import { afterEach, describe, expect, it } from "vitest";
import { Agent, InvalidOptionError, isError } from "adaptor";
import { ErrFleetRunExpired, Fleet, FleetRunExpiredError, type FleetEvent } from "@adaptor/fleet";
import { ImageReferenceDriver as ImageDriver, PNG } from "./support/image-driver.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

const PICTURE = { type: "image", url: `data:image/png;base64,${PNG.toString("base64")}` } as const;
/** The deadline the tests give: 1 s (its verdict comes within it plus one deadline poll, 5 s). */
const DEADLINE_MS = 1_000;

describe("queue deadline option", () => {
  it("a queue deadline out of its domain is refused at submit, naming the field, before anything is stored", async () => {
    const fleet = new Fleet({ connectionString: "postgres://127.0.0.1:1/none" });
    for (const queueDeadlineMs of [999, 1.5, -1, "60000"]) {
      const error = await fleet.submit("hi", { queueDeadlineMs: queueDeadlineMs as number }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).subject).toBe("fleet submit");
      expect((error as InvalidOptionError).field).toBe("queueDeadlineMs");
    }
    await fleet.close();
  });

  it("the Fleet option queueDeadlineMs must be an integer from 1 s to 365 days", () => {
    for (const queueDeadlineMs of [0, 999, 2.5, 365 * 24 * 3_600_000 + 1])
      expect(() => new Fleet({ connectionString: "postgres://127.0.0.1:1/none", queueDeadlineMs })).toThrow(
        /queueDeadlineMs must be an integer from 1000 to 31536000000/,
      );
  });
});

if (!PG_URL) {
  skipWithoutServer("fleet queue deadlines");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function host(schema: string, options: { runFormat?: number; queueDeadlineMs?: number } = {}): Promise<Fleet> {
    const fleet = new Fleet({ connectionString: url, schema, ...options });
    await fleet.start();
    closers.push(() => fleet.close());
    return fleet;
  }

  async function allEvents(fleet: Fleet, id: string): Promise<FleetEvent[]> {
    const events: FleetEvent[] = [];
    for await (const event of fleet.handle(id).events()) events.push(event);
    return events;
  }

  /** The expired verdict as every reader meets it: result(), events and info, on `reader`. */
  async function expectExpired(reader: Fleet, id: string): Promise<void> {
    const error = await reader
      .handle(id)
      .result()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetRunExpiredError);
    expect(isError(error, ErrFleetRunExpired)).toBe(true);
    expect(error).toMatchObject({ name: "FleetRunExpiredError", runId: id, queueDeadlineMs: DEADLINE_MS, code: "TIMEOUT" });
    const events = await allEvents(reader, id);
    // Nothing started: the verdict is the run's one event.
    expect(events.map((e) => e.event.type)).toEqual(["verdict"]);
    expect(events[0]!.attempt).toBe(0);
    expect(events[0]!.event).toMatchObject({ verdict: { kind: "error", expired: { queueDeadlineMs: DEADLINE_MS } } });
    expect((await reader.handle(id).info()).settled).toBe(true);
    // An ended run: a cancel settles nothing and changes nothing.
    expect(await reader.handle(id).cancel("too late")).toBe(false);
    await expect(reader.handle(id).result()).rejects.toBeInstanceOf(FleetRunExpiredError);
  }

  describe("queue deadlines", () => {
    it("a run submitted while no worker is up expires at its queue deadline, though the submitting host closed; a worker started later never runs it", async () => {
      const schema = freshSchema("fleet_deadline");
      const front = new Fleet({ connectionString: url, schema });
      const run = await front.submit("nobody is here", { queueDeadlineMs: DEADLINE_MS });
      // Another run keeps the fleet default (24 h): it is still waiting after the first expired.
      const patient = await front.submit("I can wait");
      await front.close();

      const reader = await host(schema);
      await expectExpired(reader, run.id);
      expect((await reader.handle(patient.id).info()).settled).toBe(false);

      const driver = new ImageDriver({ latencyMs: 0 });
      await reader.worker(new Agent(driver), { name: "late" });
      await reader.handle(patient.id).result();
      expect(driver.turns.map((t) => t.prompt)).toEqual(["I can wait"]);
      await expectExpired(reader, run.id);
    });

    it("a run of a format only earlier-format workers poll expires at its deadline (the fleet option); they never run it, nor does a worker of its format started later", async () => {
      const schema = freshSchema("fleet_deadline_format");
      const older = await host(schema, { runFormat: 1 });
      const olderDriver = new ImageDriver({ latencyMs: 0 });
      await older.worker(new Agent(olderDriver), { name: "older" });
      const newer = await host(schema, { queueDeadlineMs: DEADLINE_MS });
      const pictured = await newer.submit(["what is in this picture?", PICTURE]);

      // Read from the earlier-format host: every host reads the verdict the same way.
      await expectExpired(older, pictured.id);
      expect(olderDriver.turns).toEqual([]);

      const newerDriver = new ImageDriver({ latencyMs: 0 });
      await newer.worker(new Agent(newerDriver), { name: "newer" });
      await (await newer.submit("next")).result();
      expect(newerDriver.turns.map((t) => t.prompt)).toEqual(["next"]);
      await expectExpired(newer, pictured.id);
    });

    it("a worker that comes up after a run's deadline passed does not start it, whoever settles it first", async () => {
      const schema = freshSchema("fleet_deadline_late");
      const fleet = await host(schema);
      const run = await fleet.submit("late", { queueDeadlineMs: DEADLINE_MS });
      // Wait on PostgreSQL's clock until the deadline has passed (the safety net is vitest's timeout).
      const pool = new (await import("pg")).default.Pool({ connectionString: url, max: 1 });
      closers.push(() => pool.end());
      for (;;) {
        const { rows } = await pool.query<{ due: boolean }>(
          `SELECT now() >= submitted_at + interval '1 second' AS due FROM "${schema}".adaptor_fleet_runs WHERE id = $1`,
          [run.id],
        );
        if (rows[0]!.due) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const driver = new ImageDriver({ latencyMs: 0 });
      await fleet.worker(new Agent(driver), { name: "late worker" });
      await expectExpired(fleet, run.id);
      expect(driver.turns).toEqual([]);
    });
  });
}
