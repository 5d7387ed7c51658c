import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenUserSays } from "@adaptor/testkit";
import { Agent, type AgentEvent, type Stream } from "adaptor";
import { drain } from "../support/turn-events.js";
import { harness, type Harness } from "./support.js";

// Requests of the host that reach a claude turn at its edges, on the real binary: a model switch
// asked for before the turn started, and a message or model switch that comes as the turn's last
// model response is already streaming (the CLI makes no further model request in that turn).

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** Drains `stream`, calling `act` once at its first text delta (the turn's last response streams). */
async function drainActingAtFirstDelta(stream: Stream, act: () => void): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  let acted = false;
  for await (const event of stream) {
    events.push(event);
    if (event.type === "text-delta" && !acted) {
      acted = true;
      act();
    }
  }
  return events;
}

function notices(events: readonly AgentEvent[], kind: string): Extract<AgentEvent, { type: "notice" }>[] {
  return events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e] : []));
}

describe("host requests at a claude turn's edges", { timeout: 120_000 }, () => {
  it("send() as the turn's last response streams: the CLI answers it right after, and that answer, its usage and cost are the run's", async () => {
    h = await harness(
      [
        {
          name: "late",
          when: whenUserSays("LATE-MSG"),
          reply: { text: "REPLY-TO-LATE", usage: { input_tokens: 1000, output_tokens: 100 } },
        },
        { name: "turn", when: whenUserSays("go"), reply: { text: "ok", usage: { input_tokens: 1000, output_tokens: 100 } } },
      ],
      {},
      { threadStore: new MemoryThreadStore() },
    );
    const thread = h.agent.thread("chat");
    const stream = thread.stream("go");
    let sent: Promise<boolean> | undefined;
    const events = await drainActingAtFirstDelta(stream, () => (sent = stream.send("LATE-MSG one")));
    const result = await stream.result();
    expect(await sent).toBe(true);
    expect(h.server.requests.filter((r) => r.rule !== "directive").map((r) => r.rule)).toEqual(["turn", "late"]);
    // The message's answer reaches the host: streamed, in the result, counted in usage and cost.
    expect(notices(events, "input.accepted").map((n) => n.data)).toEqual([{ text: "LATE-MSG one" }]);
    const streamed = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
    expect(streamed).toContain("ok");
    expect(streamed).toContain("REPLY-TO-LATE");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("REPLY-TO-LATE");
    expect(result.usage?.inputTokens).toBe(2000);
    expect(result.usage?.outputTokens).toBe(200);
    // Two model calls of equal usage: twice the cost of the next turn's one call.
    const next = await thread.run("go on");
    expect(next.usage?.inputTokens).toBe(1000);
    expect(result.costUsd).toBeCloseTo(2 * next.costUsd!, 9);
    // The thread's history holds the exchange the host saw.
    expect(JSON.stringify(h.server.requests.at(-1)!.body)).toContain("REPLY-TO-LATE");
  });

  it("a plain run agrees: a message sent as its last response streams is answered within the run, then the process ends", async () => {
    h = await harness([
      { name: "late", when: whenUserSays("LATE-MSG"), reply: { text: "REPLY-TO-LATE" } },
      { name: "turn", when: whenUserSays("go"), reply: { text: "ok" } },
    ]);
    const stream = h.agent.stream("go");
    let sent: Promise<boolean> | undefined;
    const events = await drainActingAtFirstDelta(stream, () => (sent = stream.send("LATE-MSG two")));
    const result = await stream.result();
    expect(await sent).toBe(true);
    expect(result.text).toBe("REPLY-TO-LATE");
    expect(notices(events, "input.accepted").map((n) => n.data)).toEqual([{ text: "LATE-MSG two" }]);
    expect(events.some((e) => e.type === "process" && e.kind === "exit")).toBe(true);
    expect(h.server.requests.filter((r) => r.rule !== "directive").map((r) => r.rule)).toEqual(["turn", "late"]);
    await expect(stream.send("after the end")).resolves.toBe(false);
  });

  it("setModel asked before the turn started applies to the whole turn: its model request and result.model name the new model", async () => {
    h = await harness(
      [{ name: "turn", when: whenUserSays("slow one"), reply: { text: "answered" } }],
      {},
      { threadStore: new MemoryThreadStore() },
    );
    const stream = h.agent.thread("chat").stream("slow one", { model: "claude-sonnet-4-5" });
    const switched = stream.setModel("claude-haiku-4-5"); // before the turn started: it waits for it
    const events = await drain(stream);
    await expect(switched).resolves.toBe(true);
    const result = await stream.result();
    expect(h.server.requests.filter((r) => r.rule === "turn").map((r) => r.view.model)).toEqual(["claude-haiku-4-5"]);
    expect(result.model).toBe("claude-haiku-4-5");
    expect(notices(events, "model.response").map((n) => (n.data as { model?: string }).model)).toEqual(["claude-haiku-4-5"]);
  });

  it("result.model names the model that answered: a switch as the turn's last response streams reaches only later turns", async () => {
    h = await harness(
      [{ name: "turn", when: whenUserSays("question"), reply: { text: "answered" } }],
      {},
      { threadStore: new MemoryThreadStore() },
    );
    const thread = h.agent.thread("chat");
    const stream = thread.stream("first question", { model: "claude-sonnet-4-5" });
    let switched: Promise<boolean> | undefined;
    const events = await drainActingAtFirstDelta(stream, () => (switched = stream.setModel("claude-haiku-4-5")));
    const result = await stream.result();
    expect(typeof (await switched)).toBe("boolean");
    expect(h.server.requests.filter((r) => r.rule === "turn").map((r) => r.view.model)).toEqual(["claude-sonnet-4-5"]);
    expect(result.model).toBe("claude-sonnet-4-5");
    expect(notices(events, "model.response").map((n) => (n.data as { model?: string }).model)).toEqual(["claude-sonnet-4-5"]);
    // The process's next turn (naming no model) runs on the model switched to, and says so.
    const next = await thread.run("second question");
    expect(h.server.requests.filter((r) => r.rule === "turn").map((r) => r.view.model)).toEqual(["claude-sonnet-4-5", "claude-haiku-4-5"]);
    expect(next.model).toBe("claude-haiku-4-5");
  });

  it("a thread turn naming the model its process was launched with runs on it after setModel switched that process, with no model notice; a turn naming none keeps the switch", async () => {
    h = await harness(
      [{ name: "turn", when: whenUserSays("question"), reply: { text: "answered" } }],
      {},
      { threadStore: new MemoryThreadStore() },
    );
    const thread = h.agent.thread("chat");
    const first = thread.stream("first question");
    const switched = first.setModel("claude-haiku-4-5"); // before the turn started: the whole turn
    await drain(first);
    await expect(switched).resolves.toBe(true);
    expect((await first.result()).model).toBe("claude-haiku-4-5");
    const named = thread.stream("second question", { model: "claude-sonnet-4-5" });
    const namedEvents = await drain(named);
    const second = await named.result();
    // The same process served it (no spawn), on the model the turn named.
    expect(namedEvents.some((e) => e.type === "process" && e.kind === "spawn")).toBe(false);
    expect(notices(namedEvents, "lifecycle").map((n) => n.message)).toContain("process reused");
    expect(second.model).toBe("claude-sonnet-4-5");
    expect(namedEvents.filter((e) => e.type === "notice" && (e.kind === "model.substituted" || e.kind === "model.resolved"))).toEqual([]);
    // Switched again, a turn that names no model stays on the switch.
    const third = thread.stream("third question");
    const again = third.setModel("claude-haiku-4-5");
    await drain(third);
    await expect(again).resolves.toBe(true);
    const fourth = await thread.run("fourth question");
    expect(h.server.requests.filter((r) => r.rule === "turn").map((r) => r.view.model)).toEqual([
      "claude-haiku-4-5",
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
      "claude-haiku-4-5",
    ]);
    expect(fourth.model).toBe("claude-haiku-4-5");
  });
});
