// A verdict's bulky members (raw streams with the terminal line, transcript) are stored once, in the
// run's row; the `verdict` event leaves them there. Every reader gets the same whole verdict:
// `result()`, a replay of the events, a follower on another host, and a verdict event written whole
// by an earlier version.
import { describe, expect, it } from "vitest";
import pg from "pg";
import { Agent, RunError } from "adaptor";
import type { FleetEvent, RunHandle, StoredVerdict } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { onFakeCliFleet } from "./support/fake-cli-host.js";
import { freshSchema } from "./support/pg.js";
import { readResult } from "./support/result-members.js";
import { loadVerdict } from "../src/verdict/verdict.js";

onFakeCliFleet("fleet verdict stored once", ({ url, host }) => {
  async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  async function verdictEvent(handle: RunHandle): Promise<FleetEvent> {
    let last: FleetEvent | undefined;
    for await (const event of handle.events()) last = event;
    expect(last?.event.type).toBe("verdict");
    return last!;
  }

  /** What a host reads of a verdict: the Result member by member, or the RunError with its partial Result's members. */
  function read(runId: string, verdict: StoredVerdict): unknown {
    const loaded = loadVerdict(runId, verdict);
    if (loaded.ok) return readResult(loaded.value);
    const error = loaded.error;
    return { name: error.name, message: error.message, ...(error instanceof RunError ? { result: readResult(error.result) } : {}) };
  }

  describe("a verdict stored once", () => {
    it("the verdict event leaves the raw streams and transcript to the run's row, and result(), a replay and a follower on another host read the same whole verdict", async () => {
      const schema = freshSchema("fleet_once");
      const front = await host(schema);
      const back = await host(schema);
      const answer = "a long answer ".repeat(400).trim();
      await back.worker(({ threadStore }) => new Agent(fakeCodex(answer), { threadStore: threadStore! }), { name: "w1" });
      const handle = await front.submit("answer at length");
      // A follower on the worker's host, reading live from before the verdict.
      const followed = verdictEvent(back.handle(handle.id));
      const result = await handle.result();
      expect(result.text).toBe(answer);
      expect(result.raw().stdout).toContain("a long answer");
      expect(result.transcript().length).toBeGreaterThan(0);

      const rowVerdict = await front.handle(handle.id).verdict();
      const replayed = await verdictEvent(front.handle(handle.id));
      const live = await followed;
      for (const event of [replayed, live]) {
        expect(event.event).toEqual({ type: "verdict", verdict: rowVerdict });
        expect(read(handle.id, (event.event as { verdict: StoredVerdict }).verdict)).toEqual(readResult(result));
      }

      // Stored once: the row holds the bulky members, the event none of them (the text stays in both).
      const [stored] = await sql<{ row_raw: boolean; row_transcript: boolean; event: Record<string, unknown> }>(
        `SELECT r.verdict->'result' ? 'raw' AS row_raw, r.verdict->'result' ? 'transcript' AS row_transcript, e.event
         FROM "${schema}".adaptor_fleet_runs r JOIN "${schema}".adaptor_fleet_events e ON e.run_id = r.id AND e.seq = r.last_seq WHERE r.id = $1`,
        [handle.id],
      );
      expect(stored).toMatchObject({ row_raw: true, row_transcript: true });
      expect(stored!.event.inRow).toEqual(["result.raw", "result.transcript"]);
      const eventResult = (stored!.event.verdict as { result: Record<string, unknown> }).result;
      expect(eventResult.text).toBe(answer);
      expect(Object.keys(eventResult)).not.toContain("raw");
      expect(Object.keys(eventResult)).not.toContain("transcript");
    });

    it("a RunError's partial result reads the same from result() and from the events", async () => {
      const schema = freshSchema("fleet_once_error");
      const front = await host(schema);
      const back = await host(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.submit("exits early", { runOptions: fakeRun(fakeCodexSteps("partial", { exitEarly: true })) });
      const error = await handle.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunError);
      const event = await verdictEvent(back.handle(handle.id));
      const verdict = (event.event as { verdict: StoredVerdict }).verdict;
      expect(verdict.kind).toBe("run-error");
      expect(read(handle.id, verdict)).toEqual({
        name: (error as RunError).name,
        message: (error as RunError).message,
        result: readResult((error as RunError).result),
      });
    });

    it("a verdict event an earlier version wrote whole is read as it was stored", async () => {
      const schema = freshSchema("fleet_once_older");
      const front = await host(schema);
      const back = await host(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("from before"), { threadStore: threadStore! }));
      const handle = await front.submit("as an earlier version stored it");
      const result = await handle.result();
      // Rewrite the verdict event as an earlier version wrote it: the whole verdict, no `inRow`.
      await sql(
        `UPDATE "${schema}".adaptor_fleet_events e SET event = jsonb_build_object('type', 'verdict', 'verdict', r.verdict)
         FROM "${schema}".adaptor_fleet_runs r WHERE e.run_id = r.id AND e.seq = r.last_seq AND r.id = $1`,
        [handle.id],
      );
      // And the row's verdict emptied of its raw streams, so a read that took the row's would show it.
      await sql(`UPDATE "${schema}".adaptor_fleet_runs SET verdict = verdict #- '{result,raw}' WHERE id = $1`, [handle.id]);
      const event = await verdictEvent(front.handle(handle.id));
      expect(read(handle.id, (event.event as { verdict: StoredVerdict }).verdict)).toEqual(readResult(result));
    });
  });
});
