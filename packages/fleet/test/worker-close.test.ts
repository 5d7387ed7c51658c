// A worker host's close() without drain(): the runs it stops get the verdicts a drain gives (a run
// that is not retried settled on the spot, a thread run handed back to another worker), and the
// Agents its worker's factory made are closed with it; an Agent given itself stays the host's.
import { describe, expect, it } from "vitest";
import pg from "pg";
import { Agent, ErrAgentClosed } from "adaptor";
import { isError } from "@adaptor/errors";
import { FleetAttemptsExhaustedError } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { onFakeCliFleet } from "./support/fake-cli-host.js";
import { freshSchema } from "./support/pg.js";
import { processesWith, until } from "./support/processes.js";

/** The state of run `id`'s pg-boss job in `schema`'s fleet. */
async function jobState(url: string, schema: string, id: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ state: string }>(`SELECT state FROM ${schema}_boss.job WHERE id = $1`, [id]);
    return rows[0]?.state;
  } finally {
    await client.end();
  }
}

onFakeCliFleet("fleet worker close", ({ url, host }) => {
  describe("fleet worker close", () => {
    it("close() without drain() gives the runs it stops a drain's verdicts: a run that is not retried is settled drained at once, a thread run is handed back", async () => {
      const schema = freshSchema("close_mid");
      const marker = `FLEET_CLOSE_${schema}`;
      const front = await host(schema);
      const closing = await host(schema);
      await closing.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }), { concurrency: 2 });
      const runOptions = { env: { ...fakeRun(fakeCodexSteps("never reached", { sleepMs: 60_000 })).env, [marker]: "1" } };
      const plain = await front.submit("long, no key", { runOptions });
      const turn = await front.submit("long, a thread turn", { threadKey: "close-mid", runOptions });
      await until(() => processesWith(marker).length === 2, "both runs' CLIs");
      await closing.close();
      // No worker is left anywhere: the verdict was written by the closing host itself.
      expect((await plain.info()).settled).toBe(true);
      const error = await plain.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FleetAttemptsExhaustedError);
      expect(error).toMatchObject({ runId: plain.id, attempts: 1, drained: true });
      // The thread turn waits for another worker, its job handed back rather than held by a closed host.
      expect((await turn.info()).settled).toBe(false);
      expect(await jobState(url, schema, turn.id)).toBe("retry");
      await until(() => processesWith(marker).length === 0, "no CLI left");
    });

    it("a job a fetch under way hands over after close() began goes back to the queue unstarted, and another worker runs it as its first attempt", async () => {
      const schema = freshSchema("close_fetch");
      const front = await host(schema);
      const plain = await front.submit("fetched while closing");
      // Holds every fetch of the job table until released: the closing host's first fetch waits in it.
      const lock = new pg.Client({ connectionString: url });
      await lock.connect();
      try {
        await lock.query("BEGIN");
        await lock.query(`LOCK TABLE ${schema}_boss.job IN EXCLUSIVE MODE`);
        const closing = await host(schema);
        await closing.worker(new Agent(fakeCodex("never run here")));
        await until(async () => {
          const { rows } = await lock.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1 AND query LIKE '%started_on%'",
            [`%${schema}_boss.%`],
          );
          return rows[0]!.n > 0;
        }, "the closing host's fetch waiting on the lock");
        // close() stops its runs at once; the fetch then returns the job to a stopping host.
        const closed = closing.close();
        await lock.query("ROLLBACK");
        await closed;
      } finally {
        await lock.end();
      }
      expect((await plain.info()).settled).toBe(false);
      expect(await jobState(url, schema, plain.id)).toBe("created");
      const runner = await host(schema);
      await runner.worker(new Agent(fakeCodex("run by the next worker")));
      expect((await plain.result()).text).toBe("run by the next worker");
      const started: number[] = [];
      for await (const e of plain.events({ follow: false })) if (e.event.type === "attempt-started") started.push(e.attempt);
      expect(started).toEqual([1]);
    });

    it("a second close() while the first is under way settles only once the close is done: the factory's Agent closed", async () => {
      const schema = freshSchema("close_twice");
      const closing = await host(schema);
      let made: Agent | undefined;
      await closing.worker(({ threadStore }) => (made = new Agent(fakeCodex("unused"), { threadStore: threadStore! })));
      let firstDone = false;
      const first = closing.close().then(() => (firstDone = true));
      await closing.close();
      expect(firstDone).toBe(true);
      const refused = await made!.run("after close").catch((e: unknown) => e);
      expect(isError(refused, ErrAgentClosed)).toBe(true);
      await first;
    });

    it("close() closes the Agent the worker's factory made, and leaves an Agent given itself to its host", async () => {
      const schema = freshSchema("close_agent");
      const front = await host(schema);
      const factoryHost = await host(schema);
      const givenHost = await host(schema);
      let made: Agent | undefined;
      await factoryHost.worker(
        ({ threadStore }) => (made = new Agent(fakeCodex("from the factory's agent"), { threadStore: threadStore! })),
      );
      const given = new Agent(fakeCodex("from the given agent"));
      await givenHost.worker(given);
      expect((await (await front.submit("hello")).result()).text).toMatch(/^from the (factory's|given) agent$/);
      await factoryHost.close();
      await givenHost.close();
      const refused = await made!.run("after close").catch((e: unknown) => e);
      expect(isError(refused, ErrAgentClosed)).toBe(true);
      expect((await given.run("still the host's")).text).toBe("from the given agent");
      await given.close();
    });
  });
});
