import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { startOpenAIServer, whenPromptSays, type OpenAIServer } from "@adaptor/testkit";
import { mcpFixtureCommand } from "@adaptor/testkit/mcp-fixtures";
import { Agent, ErrAgentFailed, ErrMCPTransportUnsupported, RunError, isError, mcpSse, mcpStdio } from "adaptor";
import {
  alive,
  expectCancelLeavesNothing,
  killOnceStarted,
  threeTurns,
  codexAcp,
  codexAcpEnv,
  codexAcpHarness,
  collect,
  processesWith,
  spawnedPids,
  type AdapterHarness,
  streamedText,
} from "./support.js";

// Codex through its ACP adapter (@zed-industries/codex-acp 0.16.0, a native binary) against the
// testkit's scripted OpenAI Responses server on 127.0.0.1.

let h: AdapterHarness<OpenAIServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("codex-acp on the real adapter", () => {
  it("text turn: deltas, the final text and a session checkpoint", async () => {
    h = await codexAcpHarness([{ when: whenPromptSays("say hello"), reply: { text: "Hello from the scripted model." } }]);
    const stream = h.agent.stream("please say hello");
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.text).toBe("Hello from the scripted model.");
    expect(streamedText(events)).toBe(result.text);
  });

  it("a run's model is selected through the agent's model config option", async () => {
    h = await codexAcpHarness();
    await h.agent.run("which model?", { model: "gpt-5.4" });
    expect(h.server.responses().map((r) => r.view.model)).toEqual(["gpt-5.4"]);
  });

  it("a model the agent does not offer is refused with a DriverError INVALID before any model call", async () => {
    h = await codexAcpHarness();
    const error = await h.agent.run("which model?", { model: "no-such-model" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const refusal = findError(error, DriverError);
    expect([refusal?.code, refusal?.op]).toEqual([ErrCode.Invalid, "model selection"]);
    expect(String(refusal?.cause)).toContain("gpt-5.4");
    expect(h.server.responses()).toEqual([]);
  });

  it("tool approved: the shell command is asked about once, runs, and its output reaches the model", async () => {
    h = await codexAcpHarness();
    // Outside codex's Linux sandbox: where bubblewrap is missing, codex runs the approved command in
    // it first, which fails at once (exit 101), and retries it unsandboxed only when it read that
    // failure's output in time (a loaded machine: not always; the run then completes without the file).
    const config = join(h.env.home, ".codex", "config.toml");
    await writeFile(config, `sandbox_mode = "danger-full-access"\n${await readFile(config, "utf8")}`);
    const file = join(h.env.workDir, "approved.txt");
    const asked: string[] = [];
    const result = await h.agent.run(`SHELL_CMD touch ${file}`, {
      onApproval: (request) => {
        asked.push(request.kind);
        request.approve();
      },
    });
    expect(asked).toEqual(["permission"]);
    expect(existsSync(file)).toBe(true);
    expect(h.server.responses().at(-1)?.view.lastToolOutput?.output).toContain("Process exited with code 0");
    expect(result.text).toMatch(/^Done: /);
  });

  it("tool denied: the command does not run; codex-acp's only reject option ends the turn, and the model is told on the next turn", async () => {
    h = await codexAcpHarness();
    const file = join(h.env.workDir, "denied.txt");
    const thread = h.agent.thread("denial");
    const stream = thread.stream(`SHELL_CMD touch ${file}`, { onApproval: (request) => request.deny("not today") });
    const events = await collect(stream);
    await stream.result();
    expect(existsSync(file)).toBe(false);
    expect(events.some((e) => e.type === "tool-result" && e.isError)).toBe(true);
    expect(events.some((e) => e.type === "notice" && e.message === "the agent ended the turn at the denied tool call")).toBe(true);
    await thread.run("what happened?");
    const next = JSON.stringify(h.server.responses().at(-1)?.body);
    expect(next).toContain("turn_aborted");
  });

  it("cancel mid-turn: session/cancel, then no process is left; the verdict is the abort", async () => {
    h = await codexAcpHarness([{ when: whenPromptSays("slow"), reply: { text: "too late", delayMs: 30_000 } }]);
    await expectCancelLeavesNothing(h.agent, "slow one", h.env.home);
  });

  it("MCP server: the model calls the stdio fixture's tool and its result comes back; required, it is found running after the turn", async () => {
    const fixture = mcpFixtureCommand();
    h = await codexAcpHarness([
      {
        when: whenPromptSays("CALL_ECHO"),
        // Codex offers an MCP server's tools as one namespace tool, `mcp__<server>`.
        reply: { functionCall: { name: "echo", namespace: "mcp__fixture", arguments: { text: "ping" } } },
      },
    ]);
    const result = await h.agent.run("CALL_ECHO please", {
      mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args, required: true })],
      onApproval: (request) => request.approve(),
    });
    expect(h.server.responses()[0]?.view.toolNames).toContain("mcp__fixture");
    expect(h.server.responses().at(-1)?.view.lastToolOutput?.output).toContain("echo: ping (MCP_FIXTURE_OK)");
    expect(result.text).toContain("MCP_FIXTURE_OK");
  });

  it("three-turn thread: one process serves every turn and the model sees the whole history", async () => {
    h = await codexAcpHarness();
    expect(await threeTurns(h.agent)).toHaveLength(1);
    expect(h.server.responses().at(-1)?.view.userTexts.slice(-3)).toEqual(["first turn", "second turn", "third turn"]);
  });

  it("a thread continues in a new process through session/load", async () => {
    h = await codexAcpHarness();
    const thread = h.agent.thread("loaded");
    await thread.run("first turn");
    const stream = thread.stream("second turn", { spawn: true });
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.some((e) => e.type === "notice" && e.message === "session loaded")).toBe(true);
    // The history session/load replays is not this turn's output: only the new answer streams.
    const replayed = events.find((e) => e.type === "notice" && e.data?.["replayed"] !== undefined);
    expect(replayed?.type === "notice" ? replayed.data?.["replayed"] : 0).toBeGreaterThan(0);
    const streamed = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
    expect(streamed).toBe(result.text);
    expect(result.transcript().filter((item) => item.kind === "user")).toEqual([{ kind: "user", text: "second turn" }]);
    expect(h.server.responses().at(-1)?.view.userTexts.slice(-2)).toEqual(["first turn", "second turn"]);
  });

  it("a thread turn launched otherwise (another env) does not take the parked process: a new one loads the session", async () => {
    h = await codexAcpHarness();
    const thread = h.agent.thread("changed");
    const first = spawnedPids(await collect(thread.stream("first turn")));
    const stream = thread.stream("second turn", { env: { ADAPTOR_TEST_MARK: "changed" } });
    const events = await collect(stream);
    await stream.result();
    const second = spawnedPids(events);
    expect(second).toHaveLength(1);
    expect(second[0]).not.toBe(first[0]);
    expect(alive(first[0]!)).toBe(false);
    expect(events.some((e) => e.type === "notice" && e.message === "session loaded")).toBe(true);
    expect(h.server.responses().at(-1)?.view.userTexts.slice(-2)).toEqual(["first turn", "second turn"]);
  });

  it("agent.prewarm(): the first turn takes the pre-warmed, initialized process", async () => {
    h = await codexAcpHarness();
    expect(await h.agent.prewarm()).toBe(1);
    const stream = h.agent.stream("hello after prewarm");
    const events = await collect(stream);
    await stream.result();
    expect(spawnedPids(events)).toEqual([]);
    expect(events.some((e) => e.type === "notice" && e.message === "process reused" && e.data?.["prewarmed"] === true)).toBe(true);
  });

  it("an MCP transport the agent's initialize answer does not offer (sse) fails the run before its session opens", async () => {
    const server = await startOpenAIServer();
    const env = await codexAcpEnv(server);
    await using agent = new Agent(codexAcp(env, { mcpTransports: ["stdio", "http", "sse"] }));
    const err = await agent.run("hello", { mcpServers: [mcpSse("remote", "http://127.0.0.1:9/sse")] }).catch((e: unknown) => e);
    await server.close();
    await env.cleanup();
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).reason).toBe("agent_error");
    expect(isError(err, ErrMCPTransportUnsupported)).toBe(true);
    expect(server.responses()).toEqual([]);
  });

  it("HTTP 400 from the model: RunError agent_error with the API's message", async () => {
    h = await codexAcpHarness([
      { when: whenPromptSays("fail please"), reply: { error: { status: 400, message: "scripted bad request" } } },
    ]);
    const err = await h.agent.run("fail please").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(isError(err, ErrAgentFailed)).toBe(true);
    expect((err as RunError).message).toContain("scripted bad request");
  });
});

describe("codex-acp faults", () => {
  it("an agent killed from outside mid-turn: RunError agent_error naming the signal, nothing left running", async () => {
    h = await codexAcpHarness([{ when: whenPromptSays("slow"), reply: { text: "too late", delayMs: 30_000 } }]);
    const err = await killOnceStarted(h.agent, "slow one");
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).reason).toBe("agent_error");
    expect((err as RunError).details).toMatchObject({ exitSignal: "SIGKILL" });
    expect(await processesWith(h.env.home)).toEqual([]);
  });
});
