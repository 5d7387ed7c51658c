import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrFeatureUnsupported, isError } from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";
import { drain, drainApproving, pidOf } from "../support/turn-events.js";

// What a host does during a running turn, on the real codex app-server: interrupt it (the thread
// and the process stay), steer it with another message; what the app-server cannot do is refused.

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

describe("during a turn on the real codex app-server", { timeout: 120_000 }, () => {
  it("interrupt stops a slow turn, resolves status interrupted, and the next turn reuses the process with the history", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver, { threadStore: new MemoryThreadStore() });
    const thread = agent.thread("chat");
    await drain(thread.stream("first turn"));
    const slow = thread.stream("SLOW_MS 60000 slow question");
    const events = drain(slow);
    await vi.waitFor(() => expect(h!.server.responses().some((r) => r.view.lastUserText.includes("slow question"))).toBe(true), {
      timeout: 60_000,
      interval: 100,
    });
    await expect(slow.interrupt()).resolves.toBe(true);
    const slowEvents = await events;
    const interrupted = await slow.result();
    expect(interrupted.status).toBe("interrupted");
    // No model response of the turn completed: zeros, as on Claude Code.
    expect(interrupted.usage).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
    expect(interrupted.numTurns).toBe(0);
    expect(slowEvents.at(-1)).toMatchObject({ type: "run-finished", ok: true, interrupted: true });
    const next = thread.stream("after the interrupt");
    const nextEvents = await drain(next);
    const result = await next.result();
    expect(result.status).toBe("completed");
    expect(pidOf(nextEvents)).toBe(pidOf(slowEvents));
    // The thread's history keeps the interrupted prompt as a user message of its own.
    expect(h.server.responses().at(-1)!.view.userTexts).toEqual(["first turn", "SLOW_MS 60000 slow question", "after the interrupt"]);
    expect(result.text).toContain("3 user message(s)");
    await expect(slow.interrupt()).resolves.toBe(false);
  });

  it("interrupt called right after stream() waits until codex started the turn: resolves true, the turn ends interrupted", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    // The model request is held for a minute: only the interrupt ends this turn.
    const stream = agent.stream("SLOW_MS 60000 slow question");
    // Called before codex answered turn/start: codex refuses turn/interrupt until the turn is active.
    const taken = stream.interrupt();
    const events = drain(stream);
    expect(await taken).toBe(true);
    expect((await events).at(-1)).toMatchObject({ type: "run-finished", ok: true, interrupted: true });
    expect((await stream.result()).status).toBe("interrupted");
  });

  it("send called right after stream() waits until codex started the turn: the message reaches the turn", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const stream = agent.stream("SHELL_CMD echo hi", { policy: { approvals: { permission: "ask" } } });
    const sent = stream.send("also mention bananas");
    // The command's approval waits for the answer: the turn is still running when codex takes it.
    const events = await drainApproving(stream, () => sent);
    expect(await sent).toBe(true);
    expect((await stream.result()).status).toBe("completed");
    expect(h.server.responses().at(-1)!.view.userTexts).toEqual(["SHELL_CMD echo hi", "also mention bananas"]);
    expect(events.filter((e) => e.type === "notice" && e.kind === "input.accepted")).toHaveLength(1);
  });

  it("send steers the running turn: the message is in the turn's next model request", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const stream = agent.stream("SHELL_CMD echo hi", { policy: { approvals: { permission: "ask" } } });
    const events = await drainApproving(stream, () => expect(stream.send("also mention bananas")).resolves.toBe(true));
    const result = await stream.result();
    expect(result.status).toBe("completed");
    // One turn, two model requests: the steered message is in the second, after the command's output.
    const views = h.server.responses().map((r) => r.view);
    expect(views.map((v) => v.userTexts)).toEqual([["SHELL_CMD echo hi"], ["SHELL_CMD echo hi", "also mention bananas"]]);
    const marks = events.flatMap((e) =>
      e.type === "notice" && ["approval.resolved", "input.accepted", "model.response"].includes(e.kind) ? [e.kind] : [],
    );
    expect(marks.slice(0, 2)).toEqual(["input.accepted", "approval.resolved"]);
    expect(events.find((e) => e.type === "notice" && e.kind === "input.accepted")).toMatchObject({
      data: { text: "also mention bananas" },
    });
  });

  it("send asks onPromptSubmit about the message first: its additionalContext reaches the model as a developer message right before it", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const prompts: string[] = [];
    const stream = agent.stream("SHELL_CMD echo hi", {
      policy: { approvals: { permission: "ask" } },
      hooks: {
        onPromptSubmit: ({ prompt }) => {
          prompts.push(prompt);
          return prompt === "also mention bananas" ? { additionalContext: "bananas are yellow" } : undefined;
        },
      },
    });
    await drainApproving(stream, () => expect(stream.send("also mention bananas")).resolves.toBe(true));
    expect((await stream.result()).status).toBe("completed");
    expect(prompts).toEqual(["SHELL_CMD echo hi", "also mention bananas"]);
    const input = (h.server.responses().at(-1)!.body as { input: { type?: string; role?: string; content?: { text?: string }[] }[] }).input;
    const messages = input.filter((item) => item.type === "message").map((item) => [item.role, item.content!.map((part) => part.text)]);
    expect(messages.slice(-2)).toEqual([
      ["developer", ["bananas are yellow"]],
      ["user", ["also mention bananas"]],
    ]);
  });

  it("send with an image steers the running turn: the image bytes are in the turn's next model request", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const stream = agent.stream("SHELL_CMD echo hi", { policy: { approvals: { permission: "ask" } } });
    const message = [{ type: "image" as const, data: PNG }, "what is in this picture"];
    await drainApproving(stream, () => expect(stream.send(message)).resolves.toBe(true));
    expect((await stream.result()).status).toBe("completed");
    const bodies = h.server.requests.map((r) => JSON.stringify(r.body));
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).not.toContain(PNG.toString("base64"));
    // The steered message: its image, labelled as a prompt's (a copy of the bytes for the run), before its text, in the second request.
    const input = (
      h.server.requests[1]!.body as { input: { role?: string; content?: { type: string; text?: string; image_url?: string }[] }[] }
    ).input;
    const steered = input.filter((item) => item.role === "user").at(-1)!.content!;
    expect(steered.map((part) => part.type)).toEqual(["input_text", "input_image", "input_text", "input_text"]);
    expect(steered[0]!.text).toMatch(/^<image name=\[Image #1\] path=".*\.png">$/);
    expect(steered[1]!.image_url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    expect(steered.slice(2).map((part) => part.text)).toEqual(["</image>", "what is in this picture"]);
  });

  it("setApprovalMode is refused before it takes effect: under ask the command is still asked; under auto_approve a switch to ask asks nothing and fails nothing", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const asked: string[] = [];
    const underAsk = agent.stream("SHELL_CMD echo asked > asked.txt", { policy: { approvals: { permission: "ask" } } });
    await expect(underAsk.setApprovalMode({ permission: "auto_approve" })).rejects.toMatchObject({
      driver: "codex",
      feature: "setApprovalMode",
    });
    for await (const event of underAsk)
      if (event.type === "approval-request") {
        asked.push(event.request.toolName ?? "");
        event.request.approve();
      }
    expect((await underAsk.result()).status).toBe("completed");
    expect(asked).toHaveLength(1);
    const underAuto = agent.stream("SHELL_CMD echo auto > auto.txt", { policy: { approvals: { permission: "auto_approve" } } });
    await expect(underAuto.setApprovalMode({ permission: "ask" })).rejects.toMatchObject({ driver: "codex", feature: "setApprovalMode" });
    const events = await drain(underAuto);
    expect((await underAuto.result()).status).toBe("completed");
    expect(events.filter((e) => e.type === "approval-request" || (e.type === "notice" && e.kind === "approval.unasked"))).toEqual([]);
  });

  it("what codex cannot do during a turn is refused with FeatureUnsupportedError: setModel; everything on exec", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const stream = agent.stream("hello");
    const refused = await stream.setModel("gpt-5.5").catch((error: unknown) => error);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(refused).toMatchObject({ driver: "codex", feature: "setModel" });
    // codex fixes at thread start which commands it asks about (approval policy never/untrusted).
    const modes = await stream.setApprovalMode({ permission: "auto_approve" }).catch((error: unknown) => error);
    expect(modes).toMatchObject({ driver: "codex", feature: "setApprovalMode" });
    await drain(stream);
    await stream.result();
    const exec = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, transport: "exec" }));
    try {
      const batch = exec.stream("hello");
      for (const call of [
        () => batch.interrupt(),
        () => batch.send("more"),
        () => batch.send([{ type: "image", data: PNG }, "more"]),
        () => batch.setModel("gpt-5.5"),
      ]) {
        expect(isError(await call().catch((error: unknown) => error), ErrFeatureUnsupported)).toBe(true);
      }
      await drain(batch);
      expect((await batch.result()).status).toBe("completed");
    } finally {
      await exec.close();
    }
  });
});
