import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import type { Message } from "@ag-ui/core";
import { afterEach, describe, expect, it } from "vitest";
import type { RunOptions } from "adaptor";
import { fakeCodexSteps, fakeRun } from "../../fleet/test/support/fake-codex.js";
import { PG_URL, skipWithoutServer } from "../../fleet/test/support/pg.js";
import { processesWith, until } from "../../fleet/test/support/processes.js";
import { AG_UI_CUSTOM_EVENTS, AG_UI_FRAMES_PER_EVENT, type BridgeRunContext } from "../src/index.js";
import { postJson, readUntil, sseMessages, type SseMessage } from "./support.js";
import { fleetPair, type FleetPair } from "./support/fleet-pair.js";

// The bridge over a fleet: two front-ends (each a Bridge on its own Fleet instance) and a worker on
// the testkit's fake codex CLI, all on one PostgreSQL schema. What one front-end starts, the other
// follows, answers and cancels; the streams come from the fleet's stored events.

function userMessage(content: string): Message {
  return { id: randomUUID(), role: "user", content };
}

/** The fake CLI's script for a prompt: `slow`, `ask`, `late` (sleeps past a short timeout), else a reply quoting it. */
function scriptFor(context: BridgeRunContext, marker: string, turns: Map<string, number>): RunOptions {
  const key = context.threadKey ?? "";
  const turn = turns.get(key) ?? 0;
  if (context.threadKey !== undefined) turns.set(key, turn + 1);
  const resume = turn > 0;
  const prompt = context.prompt;
  const steps =
    prompt === "slow"
      ? fakeCodexSteps("slow reply", { sleepMs: 120_000, resume })
      : prompt === "ask"
        ? fakeCodexSteps("after the approval", { ask: "npm test", resume })
        : prompt === "late"
          ? fakeCodexSteps("too late", { sleepMs: 60_000, resume })
          : fakeCodexSteps(`reply to ${prompt}`, { sleepMs: 300, resume });
  return { env: { ...fakeRun(steps).env, [marker]: "1" }, ...(prompt === "late" ? { timeoutMs: 1_500 } : {}) };
}

if (!PG_URL) {
  skipWithoutServer("bridge over a fleet");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** Two front-ends and a worker on a fresh schema. */
  async function fleetOf(marker: string): Promise<FleetPair> {
    const turns = new Map<string, number>();
    const pair = await fleetPair(url, marker, (context) => scriptFor(context, marker, turns));
    closers.push(() => pair.close());
    return pair;
  }

  describe("bridge over a fleet", () => {
    it("raw: a run started on front-end A is resumed on front-end B with Last-Event-ID, ids are the fleet's sequences, nothing lost or repeated", async () => {
      const marker = `BRIDGE_FLEET_${randomUUID()}`;
      const { a, b, fleets } = await fleetOf(marker);
      const controller = new AbortController();
      const started = await postJson(`${a.url}/runs`, { prompt: "one", threadKey: "raw-1" }, { signal: controller.signal });
      expect(started.status).toBe(200);
      const key = started.headers.get("x-adaptor-run-id")!;
      const first = await readUntil(sseMessages(started), (m) => m.data.type === "run-started");
      controller.abort();
      const lastId = first.at(-1)!.id!;
      const resumed = await fetch(`${b.url}/runs/${key}/events`, { headers: { "last-event-id": lastId } });
      expect(resumed.status).toBe(200);
      const rest: SseMessage[] = [];
      for await (const message of sseMessages(resumed)) rest.push(message);
      const all = [...first, ...rest];
      expect(all[0]?.data).toMatchObject({ type: "attempt-started", attempt: 1, worker: "w1" });
      const ids = all.map((m) => Number(m.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      const last = all.at(-1)!;
      expect(last.data).toMatchObject({ type: "run-finished", ok: true });
      expect(all.filter((m) => m.data.type === "text-delta").map((m) => m.data.text)).toEqual(["reply to one"]);
      // The ids are the fleet's sequence numbers: the last one is the verdict's.
      const stored: number[] = [];
      for await (const e of fleets[0]!.handle(key).events()) stored.push(e.sequence);
      expect(Number(last.id)).toBe(stored.at(-1));
      // A full replay from B is what A and B sent together.
      const replay: SseMessage[] = [];
      for await (const message of sseMessages(await fetch(`${b.url}/runs/${key}/events`))) replay.push(message);
      expect(replay).toEqual(all);
      // A client reconnecting after the last frame of the settled run gets a stream that ends at once, empty.
      const after = await fetch(`${b.url}/runs/${key}/events`, {
        headers: { "last-event-id": last.id! },
        signal: AbortSignal.timeout(20_000),
      });
      expect(after.status).toBe(200);
      const none: SseMessage[] = [];
      for await (const message of sseMessages(after)) none.push(message);
      expect(none).toEqual([]);
      // The front-end that submitted the run reports its verdict although its client left.
      expect((await a.settledRun(key)).result?.text).toBe("reply to one");
    });

    it("ag-ui: @ag-ui/client's HttpAgent runs on A; B replays the same frames from any Last-Event-ID", async () => {
      const marker = `BRIDGE_FLEET_${randomUUID()}`;
      const { a, b } = await fleetOf(marker);
      const threadId = randomUUID();
      const agent = new HttpAgent({ url: `${a.url}/ag-ui`, threadId, initialMessages: [userMessage("hello fleet")] });
      const types: string[] = [];
      const runId = randomUUID();
      const { result, newMessages } = await agent.runAgent({ runId }, { onEvent: ({ event }) => void types.push(event.type) });
      expect(types[0]).toBe("RUN_STARTED");
      expect(types.at(-1)).toBe("RUN_FINISHED");
      expect(newMessages).toEqual([expect.objectContaining({ role: "assistant", content: "reply to hello fleet" })]);
      expect(result).toEqual({ text: "reply to hello fleet" });
      expect(agent.state).toEqual({ adaptor: { approvals: {} } });

      const full: SseMessage[] = [];
      for await (const message of sseMessages(await fetch(`${b.url}/runs/${runId}/events`))) full.push(message);
      expect(full.map((m) => m.data.type)).toEqual(types);
      expect(full[0]?.data).toMatchObject({ type: "RUN_STARTED", threadId, runId });
      for (const m of full) expect(Number(m.id) % AG_UI_FRAMES_PER_EVENT).toBeLessThan(AG_UI_FRAMES_PER_EVENT);
      const middle = Math.floor(full.length / 2);
      const tail: SseMessage[] = [];
      for await (const message of sseMessages(
        await fetch(`${a.url}/runs/${runId}/events`, { headers: { "last-event-id": full[middle]!.id! } }),
      ))
        tail.push(message);
      expect(tail).toEqual(full.slice(middle + 1));
      // A second run of the thread is its next turn; the same runId again is refused.
      agent.addMessage(userMessage("second"));
      const second = await agent.runAgent({ runId: randomUUID() });
      expect(second.result).toEqual({ text: "reply to second" });
      const again = await postJson(`${b.url}/ag-ui`, {
        threadId,
        runId,
        messages: [userMessage("again")],
        state: {},
        tools: [],
        context: [],
        forwardedProps: {},
      });
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: { code: string } }).error.code).toBe("run_id_in_use");
    });

    it("an approval asked on the worker is answered through front-end B while A streams the run (raw and ag-ui), exactly once", async () => {
      const marker = `BRIDGE_FLEET_${randomUUID()}`;
      const { a, b } = await fleetOf(marker);
      // raw
      const started = await postJson(`${a.url}/runs`, { prompt: "ask", threadKey: "ask-raw" });
      const messages = sseMessages(started);
      const asked = await readUntil(messages, (m) => m.data.type === "approval-request");
      const request = asked.at(-1)!.data.request as { id: string; kind: string; inputEditable: boolean };
      expect(request.kind).toBe("permission");
      const mismatch = await postJson(`${b.url}/approvals/${request.id}`, { decision: "answer", choice: "x" });
      expect(mismatch.status).toBe(422);
      // The codex ask lists its decisions: "x" is none of them.
      expect(await mismatch.json()).toMatchObject({ error: { code: "approval_invalid_choice" } });
      const answer = await postJson(`${b.url}/approvals/${request.id}`, { decision: "approve" });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ id: request.id, status: "approved" });
      const twice = await postJson(`${a.url}/approvals/${request.id}`, { decision: "deny" });
      expect(twice.status).toBe(409);
      // It says how the approval was answered, as a local bridge does.
      expect(await twice.json()).toMatchObject({ error: { code: "approval_resolved", status: "approved" } });
      const rest = await readUntil(messages, (m) => m.data.type === "run-finished");
      expect(rest.at(-1)?.data).toMatchObject({ type: "run-finished", ok: true });
      expect(rest.filter((m) => m.data.type === "text-delta").map((m) => m.data.text)).toEqual(["after the approval"]);
      const late = await postJson(`${b.url}/approvals/${request.id}`, { decision: "deny" });
      expect(late.status).toBe(409);
      expect(await late.json()).toMatchObject({ error: { code: "approval_resolved", status: "approved" } });
      const unknown = await postJson(`${b.url}/approvals/no-such-approval`, { decision: "deny" });
      expect(unknown.status).toBe(404);

      // ag-ui: the CUSTOM event's approval answered on B.
      const agent = new HttpAgent({ url: `${a.url}/ag-ui`, threadId: randomUUID(), initialMessages: [userMessage("ask")] });
      const statuses: string[] = [];
      const { result } = await agent.runAgent(
        { runId: randomUUID() },
        {
          onCustomEvent: async ({ event }) => {
            if (event.name !== AG_UI_CUSTOM_EVENTS.approvalRequest) return;
            const id = (event.value as { id: string }).id;
            expect((await postJson(`${b.url}/approvals/${id}`, { decision: "approve" })).status).toBe(200);
          },
          onStateChanged: ({ state }) => {
            for (const approval of Object.values(
              (state as { adaptor: { approvals: Record<string, { status: string }> } }).adaptor.approvals,
            ))
              statuses.push(approval.status);
          },
        },
      );
      expect(result).toEqual({ text: "after the approval" });
      expect(statuses[0]).toBe("pending");
      expect(statuses.at(-1)).toBe("approved");
    });

    it("a Last-Event-ID beyond the run's newest stored event is 400 bad_request on another front-end, while the run waits and after its verdict (raw and ag-ui)", async () => {
      const marker = `BRIDGE_FLEET_${randomUUID()}`;
      const { a, b } = await fleetOf(marker);
      /** Reconnects on B from `id`: the response. */
      const from = (key: string, id: number) => fetch(`${b.url}/runs/${key}/events`, { headers: { "last-event-id": String(id) } });
      /** Expects B to refuse `id` as beyond the run's newest frame. */
      const refused = async (key: string, id: number) => {
        const answer = await from(key, id);
        expect([id, answer.status]).toEqual([id, 400]);
        expect(await answer.json()).toMatchObject({
          error: { code: "bad_request", message: expect.stringContaining(`Last-Event-ID ${id} is beyond run ${key}'s newest frame`) },
        });
      };

      // raw: frame ids are the fleet's sequences; the run waits on its approval, its newest event.
      const started = await postJson(`${a.url}/runs`, { prompt: "ask", threadKey: "ahead-raw" });
      const key = started.headers.get("x-adaptor-run-id")!;
      const messages = sseMessages(started);
      const asked = await readUntil(messages, (m) => m.data.type === "approval-request");
      const head = Number(asked.at(-1)!.id);
      for (const ahead of [head + 1, head + 20]) await refused(key, ahead);
      // A client at the head gets every later frame, from the next event on.
      const atHead = sseMessages(await from(key, head));
      const request = asked.at(-1)!.data.request as { id: string };
      expect((await postJson(`${b.url}/approvals/${request.id}`, { decision: "approve" })).status).toBe(200);
      const rest = await readUntil(atHead, (m) => m.data.type === "run-finished");
      expect(rest.map((m) => m.data.type)).toContain("text-delta");
      expect(Number(rest[0]!.id)).toBeGreaterThan(head);
      expect(rest.at(-1)!.data).toMatchObject({ type: "run-finished", ok: true });
      await readUntil(messages, (m) => m.data.type === "run-finished");
      // The run has its verdict: one past its last frame is refused too.
      await refused(key, Number(rest.at(-1)!.id) + 1);

      // ag-ui: frames are numbered AG_UI_FRAMES_PER_EVENT per stored event.
      const runId = randomUUID();
      const agUi = await postJson(`${a.url}/ag-ui`, {
        threadId: randomUUID(),
        runId,
        messages: [userMessage("ask")],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      });
      expect(agUi.status).toBe(200);
      const frames = sseMessages(agUi);
      const waiting = await readUntil(frames, (m) => m.data.type === "CUSTOM" && m.data.name === AG_UI_CUSTOM_EVENTS.approvalRequest);
      const newest = Math.floor(Number(waiting.at(-1)!.id) / AG_UI_FRAMES_PER_EVENT);
      await refused(runId, (newest + 1) * AG_UI_FRAMES_PER_EVENT);
      const fromHead = sseMessages(await from(runId, Number(waiting.at(-1)!.id)));
      const approval = (waiting.at(-1)!.data.value as { id: string }).id;
      expect((await postJson(`${b.url}/approvals/${approval}`, { decision: "approve" })).status).toBe(200);
      const tail = await readUntil(fromHead, (m) => m.data.type === "RUN_FINISHED");
      expect(tail.map((m) => m.data.type)).toContain("TEXT_MESSAGE_CONTENT");
      await readUntil(frames, (m) => m.data.type === "RUN_FINISHED");
      const verdict = Math.floor(Number(tail.at(-1)!.id) / AG_UI_FRAMES_PER_EVENT);
      await refused(runId, (verdict + 1) * AG_UI_FRAMES_PER_EVENT);
    });

    it("a front-end followed by many clients at once raises no listener-leak warning, and every follower sees the run's verdict", async () => {
      const marker = `BRIDGE_FLEET_${randomUUID()}`;
      const { a, b } = await fleetOf(marker);
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(warning.name);
      process.on("warning", onWarning);
      try {
        const slow = await postJson(`${a.url}/runs`, { prompt: "slow", threadKey: "many-followers" });
        const key = slow.headers.get("x-adaptor-run-id")!;
        await readUntil(sseMessages(slow), (m) => m.data.type === "run-started");
        // Sixteen clients follow the run on B at once: each holds a listener on B's close signal.
        const followers = await Promise.all(
          Array.from({ length: 16 }, async () => {
            const messages = sseMessages(await fetch(`${b.url}/runs/${key}/events`));
            await readUntil(messages, (m) => m.data.type === "run-started");
            return messages;
          }),
        );
        await until(() => processesWith(marker).length > 0, "the fake CLI");
        expect((await postJson(`${b.url}/runs/${key}/cancel`, {})).status).toBe(200);
        const ends = await Promise.all(
          followers.map(async (messages) => (await readUntil(messages, (m) => m.data.type === "run-finished")).at(-1)?.data),
        );
        expect(ends).toEqual(
          Array.from({ length: 16 }, () => expect.objectContaining({ type: "run-finished", ok: false, reason: "cancelled" })),
        );
        // A warning is emitted on a later tick than the listener that passed the limit.
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings).not.toContain("MaxListenersExceededWarning");
      } finally {
        process.off("warning", onWarning);
      }
    });

    it("a client that leaves does not cancel the run; an explicit cancel on the other front-end does (raw: reason cancelled, ag-ui: outcome cancelled)", async () => {
      const marker = `BRIDGE_FLEET_${randomUUID()}`;
      const { a, b, fleets } = await fleetOf(marker);
      // The client leaves mid-run: the run goes on and its verdict is the turn's Result.
      const controller = new AbortController();
      const leaving = await postJson(`${a.url}/runs`, { prompt: "leave", threadKey: "leave" }, { signal: controller.signal });
      const leavingKey = leaving.headers.get("x-adaptor-run-id")!;
      await readUntil(sseMessages(leaving), (m) => m.data.type === "run-started");
      controller.abort();
      expect((await fleets[0]!.handle(leavingKey).result()).text).toBe("reply to leave");

      // raw cancel through B of a run A streams.
      const slow = await postJson(`${a.url}/runs`, { prompt: "slow", threadKey: "slow-raw" });
      const key = slow.headers.get("x-adaptor-run-id")!;
      const messages = sseMessages(slow);
      await readUntil(messages, (m) => m.data.type === "run-started");
      await until(() => processesWith(marker).length > 0, "the fake CLI");
      const cancel = await postJson(`${b.url}/runs/${key}/cancel`, { reason: "changed my mind" });
      expect(cancel.status).toBe(200);
      expect(await cancel.json()).toEqual({ key, cancelled: true });
      const end = await readUntil(messages, (m) => m.data.type === "run-finished");
      expect(end.at(-1)?.data).toMatchObject({ type: "run-finished", ok: false, reason: "cancelled", code: "cancelled" });
      expect((await a.settledRun(key)).error).toMatchObject({ name: "FleetRunCancelledError" });
      const none = await postJson(`${b.url}/runs/${randomUUID()}/cancel`, {});
      expect(none.status).toBe(404);

      // ag-ui cancel through B.
      const runId = randomUUID();
      const agent = new HttpAgent({ url: `${a.url}/ag-ui`, threadId: randomUUID(), initialMessages: [userMessage("slow")] });
      const outcome: unknown[] = [];
      const running = agent.runAgent(
        { runId },
        {
          onRunStartedEvent: () => {
            void until(() => processesWith(marker).length > 0, "the fake CLI").then(() => postJson(`${b.url}/runs/${runId}/cancel`, {}));
          },
          onRunFinishedEvent: ({ event }) => void outcome.push((event as { outcome?: unknown }).outcome),
        },
      );
      await running;
      expect(outcome).toEqual([{ type: "cancelled" }]);
    });

    it("a failed verdict maps to the wire error a local run gets: the worker's ErrCode (TIMEOUT) on both protocols", async () => {
      const marker = `BRIDGE_FLEET_${randomUUID()}`;
      const { a, b } = await fleetOf(marker);
      const started = await postJson(`${a.url}/runs`, { prompt: "late", threadKey: "late-raw" });
      const key = started.headers.get("x-adaptor-run-id")!;
      const all: SseMessage[] = [];
      for await (const message of sseMessages(started)) all.push(message);
      expect(all.at(-1)?.data).toMatchObject({ type: "run-finished", ok: false, code: "TIMEOUT" });
      const replayed: SseMessage[] = [];
      for await (const message of sseMessages(await fetch(`${b.url}/runs/${key}/events`))) replayed.push(message);
      expect(replayed.at(-1)).toEqual(all.at(-1));

      const agent = new HttpAgent({ url: `${b.url}/ag-ui`, threadId: randomUUID(), initialMessages: [userMessage("late")] });
      const errors: unknown[] = [];
      await agent.runAgent({ runId: randomUUID() }, { onRunErrorEvent: ({ event }) => void errors.push(event) }).catch(() => undefined);
      expect(errors).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "TIMEOUT" })]);
    });
  });
}
