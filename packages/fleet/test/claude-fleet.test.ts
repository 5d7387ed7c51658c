import { afterAll, describe, expect, it } from "vitest";
import { Agent, Result, type Prompt, type RunOptions, type Stream } from "adaptor";
import { claude } from "@adaptor/claude";
import { claudeTestEnv, startAnthropicServer, whenUserSays, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, type AttemptStartedEvent, type FleetEvent } from "@adaptor/fleet";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { readResult } from "./support/result-members.js";

/** An Agent that keeps the Result of each run it streams: the worker's own Result of a fleet run. */
class KeepingAgent extends Agent {
  readonly results: Promise<Result>[] = [];
  override stream(prompt: Prompt, options?: RunOptions): Stream {
    const stream = super.stream(prompt, options);
    const result = stream.result();
    result.catch(() => {});
    this.results.push(result);
    return stream;
  }
}

// The real claude binary behind two fleet workers, each with its own CLI home and checkout: one
// thread's three turns run on worker A, then B, then A again (each worker drained and closed after
// its turn), the conversation carried by the PostgreSQL store's portable sessions. The model is the
// testkit's scripted server on 127.0.0.1.
if (!PG_URL) {
  skipWithoutServer("fleet on the real claude binary");
} else {
  const url = PG_URL;
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  describe("fleet on the real claude binary", () => {
    it("a run with runOptions.schemaJSON: the fleet's Result is the worker's member by member (structuredOutput included) and reads as a local run's of the same scripted turn", async () => {
      const server = await startAnthropicServer({
        rules: [{ name: "answer", when: whenUserSays("STRUCT"), reply: { toolUse: { name: "StructuredOutput", input: { answer: 42 } } } }],
      });
      cleanups.push(() => server.close());
      const env = await claudeTestEnv({ server });
      cleanups.push(() => env.cleanup());
      const driver = claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
      cleanups.push(() => driver.close());
      const schemaJSON = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] };

      const local = new Agent(driver);
      cleanups.push(() => local.close());
      const mine = await local.run("STRUCT please", { schemaJSON });
      expect(mine.structuredOutput).toMatchObject({ source: "native", valid: true, value: { answer: 42 } });

      const schema = freshSchema("fleetclaude");
      const fleet = new Fleet({ connectionString: url, schema });
      await fleet.start();
      cleanups.push(() => fleet.close());
      const worker = new KeepingAgent(driver);
      cleanups.push(() => worker.close());
      await fleet.worker(worker);
      const fromFleet = await (await fleet.submit("STRUCT please", { runOptions: { schemaJSON } })).result();
      expect(worker.results).toHaveLength(1);
      const workers = await worker.results[0]!;

      expect(fromFleet.structuredOutput).toMatchObject({ source: "native", valid: true, value: { answer: 42 }, errors: [] });
      expect(fromFleet.decode()).toEqual({ answer: 42 });
      const got = readResult(fromFleet);
      // The worker's own Result of the same run: every member equal.
      const want = readResult(workers);
      for (const member of Object.keys(want)) expect({ [member]: got[member] }).toStrictEqual({ [member]: want[member] });
      // A local run of the same scripted turn: every member equal but those naming this run or
      // timing it (its id, the CLI session, the wall and API times, the CLI's output, which quotes them; the
      // scripted model numbers its tool calls, so the transcript is compared without their ids).
      const perRun = new Set(["runId", "sessionId", "durationMs", "durationApiMs", "raw()"]);
      const withoutCallIds = (read: Record<string, unknown>): Record<string, unknown> => ({
        ...read,
        "transcript()": (read["transcript()"] as { returns: object[] }).returns.map((item) => ({ ...item, toolCallId: "id" })),
      });
      const localRead = withoutCallIds(readResult(mine));
      const fleetRead = withoutCallIds(got);
      for (const member of Object.keys(localRead)) {
        if (perRun.has(member)) expect(typeof fleetRead[member]).toBe(typeof localRead[member]);
        else expect({ [member]: fleetRead[member] }).toStrictEqual({ [member]: localRead[member] });
      }
    });

    it("a 3-turn thread served by alternating workers on separate CLI homes continues the conversation each turn", async () => {
      const server: AnthropicServer = await startAnthropicServer({ rules: [] });
      cleanups.push(() => server.close());
      const envs: ClaudeTestEnv[] = [];
      for (let i = 0; i < 2; i++) {
        const env = await claudeTestEnv({ server });
        envs.push(env);
        cleanups.push(() => env.cleanup());
      }
      const schema = freshSchema("fleetclaude");
      const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
      await store.migrate();
      cleanups.push(() => store.close());
      const front = new Fleet({ connectionString: url, schema });
      await front.start();
      cleanups.push(() => front.close());

      const texts: string[] = [];
      const workers: string[] = [];
      for (const [turn, side] of [0, 1, 0].entries()) {
        const env = envs[side]!;
        const fleet = new Fleet({ connectionString: url, schema, threadStore: store });
        const driver = claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
        let agent: Agent | undefined;
        await fleet.worker(({ threadStore }) => (agent = new Agent(driver, { threadStore: threadStore!, workspace: "the-repo" })), {
          name: side === 0 ? "A" : "B",
        });
        const handle = await front.submit(`turn ${turn + 1} of the thread`, { threadKey: "release-notes" });
        texts.push((await handle.result()).text);
        const events: FleetEvent[] = [];
        for await (const e of handle.events()) events.push(e);
        for (const { event } of events) if (event.type === "attempt-started") workers.push((event as AttemptStartedEvent).worker);
        await fleet.drain();
        await fleet.close();
        await agent?.close();
        await driver.close();
      }
      expect(workers).toEqual(["A", "B", "A"]);
      const seen = texts.map((text) => Number(/I saw (\d+) message/.exec(text)?.[1]));
      // Each turn's request carries the history of the turns before it, whichever home it ran in:
      // the scripted model counts the messages it was sent and quotes the first user text.
      expect(seen).toEqual([1, 3, 5]);
      for (const text of texts) expect(text).toContain('first user text: "turn 1 of the thread"');
      expect((await store.resolve({ key: "release-notes" }))?.revision).toBe(3);
    });
  });
}
