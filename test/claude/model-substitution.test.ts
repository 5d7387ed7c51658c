import { afterEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import type { AgentEvent } from "adaptor";
import { drainApproving } from "../support/turn-events.js";
import { harness, type Harness } from "./support.js";

// Real claude binary (pinned 2.1.332) against the testkit's scripted Anthropic server: which
// `model` the CLI sends for the run's `model` option, and what the run reports.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Runs "say hi" with the run option `model` (the driver's config says claude-sonnet-4-5). */
async function runWithModel(model: string): Promise<{ events: AgentEvent[]; resultModel: string | undefined; sent: string[] }> {
  h = await harness([{ when: whenUserSays("say hi"), reply: { text: "hi" } }]);
  const stream = h.agent.stream("say hi", { model });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const result = await stream.result();
  const sent = h.server.requests.filter((request) => request.rule !== undefined).map((request) => request.view.model);
  return { events, resultModel: result.model, sent };
}

function modelNotices(events: readonly AgentEvent[]): { kind: string; data: unknown }[] {
  return events.flatMap((event) =>
    event.type === "notice" && event.kind.startsWith("model.") && event.kind !== "model.response"
      ? [{ kind: event.kind, data: event.data }]
      : [],
  );
}

describe("claude model option on the real binary", () => {
  it("a retired model id the CLI replaces: result.model and a model.substituted notice name the model it sent", async () => {
    const { events, resultModel, sent } = await runWithModel("claude-opus-4-1");
    expect(sent).toEqual(["claude-opus-5-5"]);
    expect(resultModel).toBe("claude-opus-5-5");
    expect(modelNotices(events)).toEqual([{ kind: "model.substituted", data: { requested: "claude-opus-4-1", used: "claude-opus-5-5" } }]);
    expect(events.find((event) => event.type === "run-started")).toMatchObject({ model: "claude-opus-4-1" });
  });

  it("an alias the CLI resolves: result.model is the resolved id and a model.resolved notice says so", async () => {
    const { events, resultModel, sent } = await runWithModel("opus");
    expect(sent).toEqual(["claude-opus-5-5"]);
    expect(resultModel).toBe("claude-opus-5-5");
    expect(modelNotices(events)).toEqual([{ kind: "model.resolved", data: { requested: "opus", used: "claude-opus-5-5" } }]);
  });

  it.each([
    ["an unknown id", "claude-made-up-9", "claude-made-up-9", "claude-made-up-9"],
    ["an older id the CLI keeps", "claude-3-opus-20240229", "claude-3-opus-20240229", "claude-3-opus-20240229"],
    ["an id with a context suffix", "claude-sonnet-4-5[1m]", "claude-sonnet-4-5", "claude-sonnet-4-5[1m]"],
  ])("%s is sent as given over the driver's default, with no model notice", async (_what, model, wire, reported) => {
    const { events, resultModel, sent } = await runWithModel(model);
    expect(sent).toEqual([wire]);
    expect(resultModel).toBe(reported);
    expect(modelNotices(events)).toEqual([]);
  });

  it("a primary model the server refuses, with --fallback-model: claude's model_fallback line is a model.substituted notice (with its trigger) and result.model is the fallback", async () => {
    h = await harness(
      [
        {
          name: "primary",
          when: (view) => view.model === "claude-opus-4-5",
          reply: { error: { status: 404, type: "not_found_error", message: "model: claude-opus-4-5" } },
        },
        { name: "fallback", when: whenUserSays("say hi"), reply: { text: "hi from the fallback" } },
      ],
      { extraArgs: ["--fallback-model", "claude-sonnet-4-5"] },
    );
    const stream = h.agent.stream("say hi", { model: "claude-opus-4-5" });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    const turnRequests = h.server.requests.filter((request) => request.rule === "primary" || request.rule === "fallback");
    expect(turnRequests.map((request) => [request.rule, request.view.model])).toEqual([
      ["primary", "claude-opus-4-5"],
      ["fallback", "claude-sonnet-4-5"],
    ]);
    expect(result.text).toBe("hi from the fallback");
    expect(result.model).toBe("claude-sonnet-4-5");
    expect(modelNotices(events)).toEqual([
      { kind: "model.substituted", data: { requested: "claude-opus-4-5", used: "claude-sonnet-4-5", trigger: "model_not_found" } },
    ]);
    // Reported once, as that notice, not also as a generic runtime line.
    expect(events.filter((event) => event.type === "notice" && event.message === "model_fallback")).toEqual([]);
  });

  it("setModel to a retired id: the turn's next request names the model the CLI switched to, and a model.substituted notice and result.model say so", async () => {
    h = await harness([
      { name: "tool", when: whenUserSays("make a folder"), reply: { toolUse: { name: "Bash", input: { command: "mkdir made" } } } },
      { name: "after-tool", when: whenToolResult("Bash"), reply: { text: "made it" } },
    ]);
    const stream = h.agent.stream("make a folder", { model: "claude-sonnet-4-5", policy: { approvals: { permission: "ask" } } });
    const events = await drainApproving(stream, () => expect(stream.setModel("claude-opus-4-1")).resolves.toBe(true));
    const result = await stream.result();
    const turnRequests = h.server.requests.filter((request) => request.rule !== "directive");
    expect(turnRequests.map((request) => [request.rule, request.view.model])).toEqual([
      ["tool", "claude-sonnet-4-5"],
      ["after-tool", "claude-opus-5-5"],
    ]);
    expect(modelNotices(events)).toEqual([{ kind: "model.substituted", data: { requested: "claude-opus-4-1", used: "claude-opus-5-5" } }]);
    expect(result.model).toBe("claude-opus-5-5");
  });

  it("setModel before the turn: a switch the CLI makes as asked gives no model notice, and one it replaces gives one notice naming the model asked for", async () => {
    h = await harness([{ name: "turn", when: whenUserSays("say hi"), reply: { text: "hi" } }]);
    const runs: { notices: { kind: string; data: unknown }[]; model: string | undefined }[] = [];
    for (const target of ["claude-haiku-4-5", "claude-opus-4-1"]) {
      const stream = h.agent.stream("say hi");
      const switched = stream.setModel(target);
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      await expect(switched).resolves.toBe(true);
      runs.push({ notices: modelNotices(events), model: (await stream.result()).model });
    }
    expect(h.server.requests.filter((request) => request.rule === "turn").map((request) => request.view.model)).toEqual([
      "claude-haiku-4-5",
      "claude-opus-5-5",
    ]);
    expect(runs).toEqual([
      { notices: [], model: "claude-haiku-4-5" },
      {
        notices: [{ kind: "model.substituted", data: { requested: "claude-opus-4-1", used: "claude-opus-5-5" } }],
        model: "claude-opus-5-5",
      },
    ]);
  });
});
