import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import {
  Agent,
  DriverError,
  ErrFeatureUnsupported,
  ErrResumeRejected,
  FeatureUnsupportedError,
  InvalidOptionError,
  findError,
  isError,
  type SessionMessage,
} from "adaptor";
import { acp, claudeAgentAcp, geminiAcpConfig } from "../src/index.js";
import { hostileAcp, type HostileStep } from "./hostile-agent/hostile.js";

// Reading an ACP agent's session (`agent.getSessionMessages`) from the history it replays on
// `session/load`: on the real claude-agent-acp, and on the scripted agent for what the protocol
// leaves to the agent (message ids, late tool updates, a refused load, no loadSession).

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** The messages without their ids, which the test checks apart. */
function said(messages: readonly SessionMessage[]): Omit<SessionMessage, "id">[] {
  return messages.map(({ id: _id, ...rest }) => rest);
}

const chunk = (sessionUpdate: string, text: string, messageId?: string): HostileStep => ({
  update: { sessionUpdate, content: { type: "text", text }, ...(messageId ? { messageId } : {}) },
});

/** A history of two turns: a question, a tool call and its result, two answers; then another question and answer. */
const HISTORY: HostileStep[] = [
  chunk("user_message_chunk", "list the files"),
  chunk("agent_thought_chunk", "thinking"),
  { update: { sessionUpdate: "tool_call", toolCallId: "call-1", title: "ls", kind: "execute", status: "pending", rawInput: {} } },
  { update: { sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "in_progress", rawInput: { command: "ls" } } },
  {
    update: {
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "a\nb" } }],
    },
  },
  chunk("agent_message_chunk", "Two ", "m-2"),
  chunk("agent_message_chunk", "files.", "m-2"),
  chunk("user_message_chunk", "and now?", "m-3"),
  chunk("agent_message_chunk", "Nothing more.", "m-4"),
];

describe("acp: reading a session's messages (session/load's replay)", { timeout: 240_000 }, () => {
  it("claude-agent-acp: a session of two turns with a tool call reads back as its prompts, replies, tool call and result", async () => {
    const server = await startAnthropicServer({ rules: [] });
    const env = await claudeTestEnv({ server });
    const agent = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }), {
      threadStore: new MemoryThreadStore(),
    });
    try {
      const thread = agent.thread("shown");
      const first = await thread.run("SHELL_CMD echo fine", { policy: { approvals: { permission: "auto_approve" } } });
      await thread.run("the second turn");
      const call = first.transcript().find((item) => item.kind === "tool-call")!;
      const page = await agent.getSessionMessages(first.sessionId!);
      // The adapter replays the CLI's own entries of each turn (its /model command and their caveat)
      // as chunks of the user's message, before the prompt.
      expect(said(page.messages)).toEqual([
        { role: "user", text: expect.stringMatching(/<command-name>\/model<\/command-name>[\s\S]*SHELL_CMD echo fine$/) },
        {
          role: "assistant",
          text: "",
          toolCalls: [{ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input }],
          toolResults: [{ toolCallId: call.toolCallId, output: expect.stringContaining("fine"), isError: false }],
        },
        { role: "assistant", text: "Done: fine" },
        { role: "user", text: expect.stringMatching(/the second turn$/) },
        { role: "assistant", text: expect.stringMatching(/^Fake reply\. I saw 5 message\(s\)/) },
      ]);
      expect(page.nextCursor).toBeUndefined();
      const two = await agent.getSessionMessages(first.sessionId!, { limit: 2 });
      expect(two.messages).toEqual(page.messages.slice(0, 2));
      const rest = await agent.getSessionMessages(first.sessionId!, { limit: 3, cursor: two.nextCursor! });
      expect(rest.messages).toEqual(page.messages.slice(2));
      expect(rest.nextCursor).toBeUndefined();
      expect(isError(await failure(agent.getSessionMessages("no-such-session")), ErrResumeRejected)).toBe(true);
    } finally {
      await agent.close();
      await server.close();
      await env.cleanup();
    }
  });

  it("the scripted agent's replay: chunks of one message id joined, a tool call's input and result from its later updates, pages of it", async () => {
    await using agent = new Agent(hostileAcp({ "session/load": [...HISTORY, { respond: {} }] }));
    const page = await agent.getSessionMessages("hostile-session");
    expect(page).toEqual({
      messages: [
        { role: "user", text: "list the files" },
        {
          role: "assistant",
          text: "",
          toolCalls: [{ toolCallId: "call-1", toolName: "ls", input: { command: "ls" } }],
          toolResults: [{ toolCallId: "call-1", output: "a\nb", isError: false }],
        },
        { role: "assistant", text: "Two files.", id: "m-2" },
        { role: "user", text: "and now?", id: "m-3" },
        { role: "assistant", text: "Nothing more.", id: "m-4" },
      ],
    });
    const pages: SessionMessage[][] = [];
    let cursor: string | undefined;
    do {
      const next = await agent.getSessionMessages("hostile-session", { limit: 2, ...(cursor ? { cursor } : {}) });
      pages.push(next.messages);
      cursor = next.nextCursor;
    } while (cursor);
    expect(pages.map((messages) => messages.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(page.messages);
    expect(findError(await failure(agent.getSessionMessages("hostile-session", { cursor: "nope" })), InvalidOptionError)).toMatchObject({
      subject: "getSessionMessages query",
      field: "cursor",
    });
  });

  it("the session is loaded in the Agent's cwd, by an agent started there; without one, in the driver's cwd", async () => {
    const [agentDir, driverDir] = await Promise.all([
      mkdtemp(join(tmpdir(), "acp-agent-cwd-")),
      mkdtemp(join(tmpdir(), "acp-driver-cwd-")),
    ]);
    try {
      const echo = { "session/load": [{ echoParams: true }, { respond: {} }] };
      const loadedIn = async (agent: Agent): Promise<unknown> => JSON.parse((await agent.getSessionMessages("s-1")).messages[0]!.text);
      await using withCwd = new Agent(hostileAcp(echo, { cwd: driverDir }), { cwd: agentDir });
      expect(await loadedIn(withCwd)).toEqual({ params: { sessionId: "s-1", cwd: agentDir, mcpServers: [] }, cwd: agentDir });
      await using withoutCwd = new Agent(hostileAcp(echo, { cwd: driverDir }));
      expect(await loadedIn(withoutCwd)).toEqual({ params: { sessionId: "s-1", cwd: driverDir, mcpServers: [] }, cwd: driverDir });
    } finally {
      await Promise.all([rm(agentDir, { recursive: true }), rm(driverDir, { recursive: true })]);
    }
  });

  it("a load the agent answers resource-not-found, or invalid params naming the session, is ErrResumeRejected; any other error answer rejects with the agent's error as cause", async () => {
    await using notFound = new Agent(hostileAcp({ "session/load": [{ error: { code: -32002, message: "Resource not found: gone" } }] }));
    expect(isError(await failure(notFound.getSessionMessages("gone")), ErrResumeRejected)).toBe(true);
    await using unknownId = new Agent(
      hostileAcp({ "session/load": [{ error: { code: -32602, message: "Invalid params: Unknown sessionId: gone" } }] }),
    );
    expect(isError(await failure(unknownId.getSessionMessages("gone")), ErrResumeRejected)).toBe(true);
    // As pi-acp sends it: RequestError.invalidParams("Unknown sessionId: <id>"), the text in data.
    await using unknownInData = new Agent(
      hostileAcp({ "session/load": [{ error: { code: -32602, message: "Invalid params", data: "Unknown sessionId: gone" } }] }),
    );
    expect(isError(await failure(unknownInData.getSessionMessages("gone")), ErrResumeRejected)).toBe(true);
    // Invalid params about another parameter is the agent's error, not a session it lacks.
    await using badCwd = new Agent(
      hostileAcp({ "session/load": [{ error: { code: -32602, message: "Invalid params", data: "cwd must be an absolute path: x" } }] }),
    );
    const invalid = await failure(badCwd.getSessionMessages("s-1"));
    expect(isError(invalid, ErrResumeRejected)).toBe(false);
    expect(findError(invalid, DriverError)).toMatchObject({ op: "session/load", device: "hostile", code: "DRIVER" });
    expect(findError(invalid, DriverError)!.message).toContain("cwd must be an absolute path");
    expect(findError(invalid, DriverError)!.cause).toMatchObject({ code: -32602 });

    await using unauthenticated = new Agent(
      hostileAcp({ "session/load": [{ error: { code: -32000, message: "Authentication required" } }] }),
    );
    const refused = await failure(unauthenticated.getSessionMessages("s-1"));
    expect(isError(refused, ErrResumeRejected)).toBe(false);
    expect(findError(refused, DriverError)).toMatchObject({ op: "session/load", device: "hostile", code: "DRIVER" });
    expect(findError(refused, DriverError)!.message).toContain("Authentication required");
    const cause = findError(refused, DriverError)!.cause;
    expect(cause).toBeInstanceOf(RequestError);
    expect(cause).toMatchObject({ code: -32000, message: "Authentication required" });
  });

  it("a load or its fence unanswered within handshakeTimeoutMs is TIMEOUT naming the request waiting; an agent ending under it is DEVICE_DISCONNECTED", async () => {
    const timeout = { handshakeTimeoutMs: 1_000 };
    await using never = new Agent(hostileAcp({ "session/load": [{ hang: true }] }, timeout));
    const load = await failure(never.getSessionMessages("s-1"));
    expect(findError(load, DriverError)).toMatchObject({ op: "session/load", device: "hostile", code: "TIMEOUT" });

    await using fenceNever = new Agent(hostileAcp({ "session/load": [{ respond: {} }], "_adaptor/fence": [{ hang: true }] }, timeout));
    const fence = await failure(fenceNever.getSessionMessages("s-1"));
    expect(findError(fence, DriverError)).toMatchObject({ op: "_adaptor/fence", device: "hostile", code: "TIMEOUT" });

    await using crash = new Agent(hostileAcp({ "session/load": [{ stderr: "load failed: disk gone\n" }, { exit: 3 }] }));
    const crashed = await failure(crash.getSessionMessages("s-1"));
    expect(findError(crashed, DriverError)).toMatchObject({ op: "session/load", device: "hostile", code: "DEVICE_DISCONNECTED" });
    const cause = findError(crashed, DriverError)!.cause as Error;
    expect(cause.message).toContain("exit code 3");
    expect(cause.message).toContain("load failed: disk gone");
  });

  it("an agent without loadSession refuses after initialize; loadSession off refuses before any process", async () => {
    await using noLoad = new Agent(
      hostileAcp({ initialize: [{ respond: { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [] } }] }),
    );
    const err = await failure(noLoad.getSessionMessages("s"));
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "hostile", feature: "getSessionMessages" });

    // Gemini CLI's preset turns session/load off: refused before anything starts (no such executable is looked for).
    await using gemini = new Agent(acp({ ...geminiAcpConfig({}), command: "/nonexistent/gemini" }));
    expect(findError(await failure(gemini.getSessionMessages("s")), FeatureUnsupportedError)).toMatchObject({
      feature: "getSessionMessages",
    });
  });

  it("an agent that replays nothing: the empty page is marked unconfirmed unless its session/list lists the session; one it does not list is ErrResumeRejected", async () => {
    // As @sudocode-ai/claude-code-acp 0.13.10 answers: session/load of any id succeeds, no history replayed, no session/list.
    await using silent = new Agent(hostileAcp({}));
    expect(await silent.getSessionMessages("00000000-0000-0000-0000-000000000000")).toEqual({ messages: [], unconfirmed: true });
    // A replayed history is the sign itself.
    await using replaying = new Agent(hostileAcp({ "session/load": [...HISTORY, { respond: {} }] }));
    expect((await replaying.getSessionMessages("hostile-session", { limit: 1 })).unconfirmed).toBeUndefined();
    // With session/list the host confirms the session (an empty one) or rejects the id.
    const listing = {
      initialize: [
        { respond: { protocolVersion: 1, agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } }, authMethods: [] } },
      ],
      "session/list:": [{ respond: { sessions: [{ sessionId: "empty-session", cwd: "/w" }] } }],
    };
    await using listed = new Agent(hostileAcp(listing));
    expect(await listed.getSessionMessages("empty-session")).toEqual({ messages: [] });
    expect(isError(await failure(listed.getSessionMessages("made-up")), ErrResumeRejected)).toBe(true);
  });
});
