import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import { Fleet, type RecordedAgentEvent, type RunHandle } from "@adaptor/fleet";
import { fakeCliHost, onFakeCliFleet } from "./support/fake-cli-host.js";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { freshSchema } from "./support/pg.js";
import { until } from "./support/processes.js";
import { TcpProxy } from "./support/tcp-proxy.js";

/** The id of the first approval the run asks (waits for it). */
async function askedId(handle: RunHandle): Promise<string> {
  for await (const { event } of handle.events())
    if (event.type === "approval-request") return ((event as RecordedAgentEvent).request as { id: string }).id;
  throw new Error("no approval-request event");
}

/**
 * A worker host on `workerUrl` and a front host on `url` (both in `schema`); the front submits a run
 * (a thread turn when `threadKey` is given) that asks one approval (deadline 60 s) and, approved,
 * answers "after the approval". Resolves once the approval is asked, with its id.
 */
async function waitingRun(
  url: string,
  workerUrl: string,
  schema: string,
  closers: (() => Promise<void>)[],
  threadKey: string | undefined,
): Promise<{ front: Fleet; handle: RunHandle; id: string }> {
  const back = await fakeCliHost(workerUrl, schema, closers);
  await back.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
  const front = await fakeCliHost(url, schema, closers);
  const runOptions = {
    ...fakeRun(fakeCodexSteps("after the approval", { ask: "npm test" })),
    policy: { approvals: { timeoutMs: 60_000 } },
  };
  const handle = await front.submit("run the tests", { runOptions, ...(threadKey !== undefined ? { threadKey } : {}) });
  return { front, handle, id: await askedId(handle) };
}

onFakeCliFleet("fleet approval connection loss", ({ url, closers }) => {
  describe("fleet approval connection loss", () => {
    it.each([
      ["a run without a thread key", undefined],
      ["a thread turn (its thread store's connections ended too)", "conn-loss"],
    ])(
      "every connection of the worker's host ended while an approval of %s waits: the worker reconnects, the approval stays pending, and an answer from another host is applied",
      async (_, threadKey) => {
        const schema = freshSchema("connloss");
        // The worker's host names its connections, so that only they are ended.
        const name = `worker_${randomBytes(4).toString("hex")}`;
        const workerUrl = `${url}${url.includes("?") ? "&" : "?"}application_name=${name}`;
        const { front, handle, id } = await waitingRun(url, workerUrl, schema, closers, threadKey);
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          const ended = await admin.query<{ pid: number }>(
            "SELECT pid, pg_terminate_backend(pid) FROM (SELECT pid FROM pg_stat_activity WHERE application_name = $1 OFFSET 0) AS host",
            [name],
          );
          expect(ended.rowCount).toBeGreaterThan(0);
          const before = new Set(ended.rows.map((r) => r.pid));
          // The worker's LISTEN connection is back (a backend of its host that was not ended runs LISTEN):
          // the worker has read the approval again since.
          await until(async () => {
            const { rows } = await admin.query<{ pid: number }>(
              "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE 'LISTEN%'",
              [name],
            );
            return rows.some((r) => !before.has(r.pid));
          }, "the worker host LISTENs again");
        } finally {
          await admin.end();
        }
        expect((await front.approval(id))?.status).toBe("pending");
        expect((await handle.info()).settled).toBe(false);
        await front.answer(id, { outcome: "approve" });
        expect((await handle.result()).text).toBe("after the approval");
      },
    );

    const refusedWhileWaiting = async (threadKey: string | undefined): Promise<void> => {
      const schema = freshSchema("connrefused");
      // The worker's host reaches the server through a Unix socket the test removes: its connects
      // then fail ENOENT, as with a local server that is stopped.
      const proxy = new TcpProxy(url);
      closers.push(() => proxy.close());
      const through = await proxy.listenSocket(url);
      const { front, handle, id } = await waitingRun(url, through, schema, closers, threadKey);
      await proxy.cut();
      // The outage lasts a few seconds (the heartbeat is 10 s): the worker's LISTEN connection,
      // its approval reads and (for a thread turn) its lease renewals are refused meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await proxy.restore(url);
      expect((await front.approval(id))?.status).toBe("pending");
      expect((await handle.info()).settled).toBe(false);
      await front.answer(id, { outcome: "approve" });
      expect((await handle.result()).text).toBe("after the approval");
      // The attempt that asked applied the answer: no other attempt ran the turn.
      const attempts = new Set<number>();
      for await (const { attempt } of handle.events({ after: 0 })) attempts.add(attempt);
      expect([...attempts]).toEqual([1]);
    };

    it(
      "the database refuses the worker's host's connections for a few seconds (well within heartbeatSeconds) while an approval of a run without a thread key waits: the worker waits it out, the approval stays pending, and an answer from another host is applied by the attempt that asked",
      () => refusedWhileWaiting(undefined),
      60_000,
    );

    // Not yet held, so not run: for a thread turn whose thread store's connections are refused too,
    // a second attempt sometimes re-runs the turn (about one run in four under load).
    it.skip(
      "the database refuses the worker's host's connections for a few seconds (well within heartbeatSeconds) while an approval of a thread turn (its thread store's connections refused too) waits: the worker waits it out, the approval stays pending, and an answer from another host is applied by the attempt that asked",
      () => refusedWhileWaiting("conn-refused"),
      60_000,
    );

    it("the run ends its question unanswered (its timeoutMs) while the database refuses the worker's host: once the database is back the worker closes the approval, and an answer is refused instead of recorded for an attempt that can no longer apply it", async () => {
      const schema = freshSchema("connrefused_end");
      const proxy = new TcpProxy(url);
      closers.push(() => proxy.close());
      const through = await proxy.listenSocket(url);
      // A heartbeat far longer than the test: the attempt's job stays active meanwhile, so only the
      // worker's own close ends the approval.
      const back = new Fleet({ connectionString: through, schema, heartbeatSeconds: 300 });
      await back.start();
      closers.push(() => back.close());
      await back.worker(new Agent(fakeCodex("unused")));
      const front = await fakeCliHost(url, schema, closers);
      const runOptions = {
        ...fakeRun(fakeCodexSteps("never", { ask: "make" })),
        timeoutMs: 6000,
        policy: { approvals: { timeoutMs: 120_000 } },
      };
      const handle = await front.submit("build", { runOptions });
      const id = await askedId(handle);
      await proxy.cut();
      // Cut until well past the run's timeoutMs, which ends the question unanswered meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 8000));
      await proxy.restore(url);
      await until(async () => (await front.approval(id))?.status !== "pending", "the approval no longer pending", 30_000);
      expect((await front.approval(id))?.status).toBe("closed");
      expect(await front.answer(id, { outcome: "approve" }).catch((error: unknown) => error)).toMatchObject({ status: "closed" });
    }, 90_000);
  });
});
