import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenUserSays, type LoggedRequest, type ScriptRule } from "@adaptor/testkit";
import { Agent, RunError, type AgentEvent, type Stream } from "adaptor";
import { claude } from "@adaptor/claude";
import { alive, harness, type Harness } from "./support.js";

// A failed turn leaves no trace in the conversation, on the real claude binary: the CLI appends
// every prompt to its session transcript, failed or not; each thread turn starts from the last
// committed checkpoint (`--resume-session-at` its last message), never from what the CLI appended
// since, and a parked process whose conversation went past the checkpoint is never reused.

let h: Harness | undefined;
let extra: Agent | undefined;
afterEach(async () => {
  await extra?.close();
  await h?.close();
  h = extra = undefined;
});

function threadAgent(harnessed: Harness, store: MemoryThreadStore): Agent {
  return new Agent(claude({ cwd: harnessed.env.workDir, env: harnessed.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: store,
  });
}

/** Every request the model server got for a turn whose prompt contains `marker`. */
function requestsFor(server: Harness["server"], marker: string): LoggedRequest[] {
  return server.requests.filter((request) => request.view.lastUserText.includes(marker));
}

function mentions(request: LoggedRequest, text: string): boolean {
  return JSON.stringify(request.body).includes(text);
}

async function drain(stream: Stream): Promise<{ events: AgentEvent[]; pid: number | undefined; reused: boolean }> {
  const events: AgentEvent[] = [];
  let pid: number | undefined;
  let reused = false;
  for await (const event of stream) {
    events.push(event);
    if (event.type === "process" && event.kind === "spawn") pid = event.pid;
    if (event.type === "notice" && event.message === "process reused") {
      reused = true;
      pid = event.data?.pid as number;
    }
  }
  return { events, pid, reused };
}

describe("a failed turn leaves no trace in the conversation (real binary)", { timeout: 180_000 }, () => {
  it("HTTP 400 on turn 2: turn 3 and a fork after a second failure see only committed turns", async () => {
    h = await harness();
    const store = new MemoryThreadStore();
    extra = threadAgent(h, store);
    const thread = extra.thread("chat");
    expect((await thread.run("turn one")).text).toMatch(/I saw 1 message/);
    const committed = await thread.checkpoint();
    expect(committed?.checkpoint.data).toMatchObject({ lastMessageId: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const failed = await thread.run("HTTP_ERROR 400 poison-one").catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(RunError);
    expect((failed as RunError).reason).toBe("agent_error");
    expect(requestsFor(h.server, "poison-one").length).toBeGreaterThan(0); // the CLI did send it
    expect((await thread.checkpoint())?.checkpoint).toEqual(committed?.checkpoint);

    const third = await thread.run("turn three");
    expect(third.text).toMatch(/I saw 3 message/); // turn one, its reply, turn three
    const thirdRequests = requestsFor(h.server, "turn three");
    expect(thirdRequests).toHaveLength(1);
    expect(mentions(thirdRequests[0]!, "poison-one")).toBe(false);
    expect(mentions(thirdRequests[0]!, "turn one")).toBe(true);

    await expect(thread.run("HTTP_ERROR 400 poison-two")).rejects.toBeInstanceOf(RunError);
    const forked = await thread.fork("branch").run("fork turn");
    expect(forked.text).toMatch(/I saw 5 message/);
    const forkRequests = requestsFor(h.server, "fork turn");
    expect(forkRequests).toHaveLength(1);
    expect(mentions(forkRequests[0]!, "poison-one")).toBe(false);
    expect(mentions(forkRequests[0]!, "poison-two")).toBe(false);
    expect(mentions(forkRequests[0]!, "turn three")).toBe(true);

    // The parent continues from its own checkpoint too, after the fork.
    const parentAgain = await thread.run("turn four");
    expect(parentAgain.text).toMatch(/I saw 5 message/);
    expect(requestsFor(h.server, "turn four").some((request) => mentions(request, "poison-two"))).toBe(false);
  });

  it("a turn the CLI finished but the SDK refused is not committed: its parked process is never reused", async () => {
    const rules: ScriptRule[] = [
      { when: whenUserSays("valid-answer"), reply: { toolUse: { name: "StructuredOutput", input: { answer: "a@b.co" } } } },
      { when: whenUserSays("bad-answer"), reply: { toolUse: { name: "StructuredOutput", input: { answer: "not-an-email" } } } },
    ];
    h = await harness(rules);
    extra = threadAgent(h, new MemoryThreadStore());
    const thread = extra.thread("typed");
    const schema = { schemaJSON: { type: "object", properties: { answer: { type: "string", format: "email" } }, required: ["answer"] } };
    const first = await drain(thread.stream("valid-answer one", schema));
    const second = thread.stream("bad-answer refused", schema);
    const refused = await drain(second);
    expect(refused.reused).toBe(true);
    expect(refused.pid).toBe(first.pid);
    expect(await second.result().catch((e: unknown) => (e as RunError).reason)).toBe("policy_violation");

    const third = await drain(thread.stream("valid-answer three", schema));
    expect(third.reused).toBe(false);
    expect(third.pid).not.toBe(first.pid);
    expect(alive(first.pid!)).toBe(false);
    const requests = requestsFor(h.server, "valid-answer three");
    expect(requests).toHaveLength(1);
    expect(mentions(requests[0]!, "bad-answer refused")).toBe(false);
    expect(mentions(requests[0]!, "valid-answer one")).toBe(true);
  });
});
