// The user-input paths of the codex app-server on the real binary (0.171.0): an MCP server's own
// elicitation (`mcpServer/elicitation/request`, from the testkit's stdio MCP fixture calling
// `elicitInput`) reaches the host as an approval of kind `elicitation`, and the model's
// `request_user_input` (`item/tool/requestUserInput`) as `question` asks, one per question.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, type ResponsesScriptRule } from "@adaptor/testkit";
import { mcpFixtureCommand, readMcpFixtureLog } from "@adaptor/testkit/mcp-fixtures";
import {
  Agent,
  ErrHumanDecisionModeUnsupported,
  InvalidOptionError,
  isError,
  mcpStdio,
  type AgentEvent,
  type ApprovalRequest,
  type Policy,
} from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CALL_ELICIT: ResponsesScriptRule = {
  when: whenPromptSays("ELICIT"),
  reply: { functionCall: { name: "elicit", namespace: "mcp__fixture", arguments: {} } },
};
const QUESTIONS = [
  {
    id: "color",
    header: "Color",
    question: "Which color?",
    options: [
      { label: "Red (Recommended)", description: "warm" },
      { label: "Blue", description: "cool" },
    ],
  },
  {
    id: "size",
    header: "Size",
    question: "Which size?",
    options: [
      { label: "S", description: "small" },
      { label: "L", description: "large" },
    ],
  },
];
const ASK_QUESTIONS: ResponsesScriptRule = {
  when: whenPromptSays("ASKQ"),
  reply: { functionCall: { name: "request_user_input", arguments: { questions: QUESTIONS } } },
};

/** The last tool output the model received. */
function lastToolOutput(harness: CodexHarness): string {
  return String(harness.server.responses().at(-1)?.view.lastToolOutput?.output ?? "");
}

/**
 * Runs `prompt` under `policy` (permission `ask`, sandbox `unrestricted` unless it says otherwise),
 * approving the MCP tool call and answering the other asks with `decide`; returns those asks, what
 * `decide` threw, the events and the fixture's elicit log entries.
 */
async function runWith(prompt: string, policy: Policy, decide: (request: ApprovalRequest) => void) {
  h ??= await codexHarness({ rules: [CALL_ELICIT, ASK_QUESTIONS] });
  const logFile = join(h.env.root, `mcp-${Date.now()}-${Math.random()}.log`);
  const command = mcpFixtureCommand({ logFile });
  const asked: ApprovalRequest[] = [];
  const thrown: unknown[] = [];
  const agent = new Agent(h.driver, {
    onApproval: (request) => {
      if (request.kind === "permission") return request.approve();
      asked.push(request);
      try {
        decide(request);
      } catch (error) {
        thrown.push(error);
        request.deny("the host gave up");
      }
    },
  });
  const stream = agent.stream(prompt, {
    policy: { sandbox: "unrestricted", ...policy, approvals: { permission: "ask", ...policy.approvals } },
    mcpServers: [mcpStdio("fixture", command.command, { args: command.args })],
  });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const verdict = await stream.result().catch((error: unknown) => error);
  await agent.close();
  const elicited = (await readMcpFixtureLog(logFile)).filter((entry) => entry.event === "elicit");
  return { asked, thrown, events, verdict, elicited };
}

const ASK: Policy = { approvals: { elicitation: "ask" } };

describe("codex app-server: an MCP server's elicitation reaches the host", () => {
  it("a form accepted with content: the ask carries the server, message and schema; the content reaches the server and its answer the model", async () => {
    const run = await runWith("ELICIT now", ASK, (request) => request.approve({ updatedInput: { name: "Ada", age: 36 } }));
    expect(run.thrown).toEqual([]);
    expect(run.asked).toHaveLength(1);
    expect(run.asked[0]).toMatchObject({
      kind: "elicitation",
      title: "fixture: Who are you?",
      inputEditable: true,
      choices: [{ key: "accept" }, { key: "decline" }, { key: "cancel" }],
      status: "approved",
    });
    expect(run.asked[0]!.details).toMatchObject({
      server: "fixture",
      mode: "form",
      message: "Who are you?",
      requestedSchema: { type: "object", required: ["name"] },
    });
    expect(run.elicited).toMatchObject([{ tool: "elicit", action: "accept", content: { name: "Ada", age: 36 } }]);
    expect(lastToolOutput(h!)).toContain('elicit: accept {"name":"Ada","age":36}');
  });

  it.each([
    ["deny() declines", (request: ApprovalRequest) => request.deny("not now"), "decline"],
    ['answer("cancel") cancels', (request: ApprovalRequest) => request.answer("cancel"), "cancel"],
  ] as const)("%s: the server reads that action and no content", async (_name, decide, action) => {
    const run = await runWith("ELICIT now", ASK, decide);
    expect(run.thrown).toEqual([]);
    expect(run.asked).toHaveLength(1);
    expect(run.elicited).toEqual([expect.objectContaining({ tool: "elicit", action })]);
    expect(run.elicited[0]).not.toHaveProperty("content");
  });

  it("form content that does not match the requested schema is refused with InvalidOptionError (field updatedInput); nothing is sent", async () => {
    const run = await runWith("ELICIT now", ASK, (request) => request.approve({ updatedInput: { name: 7 } }));
    expect(run.thrown).toHaveLength(1);
    expect(run.thrown[0]).toBeInstanceOf(InvalidOptionError);
    expect(run.thrown[0]).toMatchObject({ field: "updatedInput" });
    expect((run.thrown[0] as Error).message).toContain("/name: must be string");
    expect(run.elicited).toEqual([expect.objectContaining({ tool: "elicit", action: "decline" })]);
  });

  it("elicitation mode auto_deny declines without asking the host", async () => {
    const run = await runWith("ELICIT now", { approvals: { elicitation: "auto_deny" } }, () => {
      throw new Error("not asked");
    });
    expect(run.asked).toEqual([]);
    expect(run.elicited).toEqual([expect.objectContaining({ tool: "elicit", action: "decline" })]);
  });

  it("elicitation ask under permission auto_approve (approval policy never, where codex declines elicitations itself) is refused before launch", async () => {
    h = await codexHarness({ rules: [CALL_ELICIT] });
    const agent = new Agent(h.driver);
    const error = await agent
      .run("ELICIT now", { policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve", elicitation: "ask" } } })
      .catch((e: unknown) => e);
    await agent.close();
    expect(isError(error, ErrHumanDecisionModeUnsupported)).toBe(true);
    expect((error as Error).message).toContain("declines an MCP server's elicitation itself");
    expect(h.server.responses()).toEqual([]);
  });
});

describe("codex app-server: request_user_input reaches the host as question asks", () => {
  it("each question is one question ask, in order, with its options as choices; the answers reach the model's next request", async () => {
    const run = await runWith("ASKQ now", { approvals: { question: "ask" } }, (request) =>
      request.answer(request.details?.questionId === "color" ? "Blue" : "a medium one, please"),
    );
    expect(run.thrown).toEqual([]);
    expect(run.asked.map((request) => [request.kind, request.title, request.details?.questionId])).toEqual([
      ["question", "Which color?", "color"],
      ["question", "Which size?", "size"],
    ]);
    expect(run.asked[0]).toMatchObject({
      toolName: "request_user_input",
      choices: [
        { key: "Red (Recommended)", label: "Red (Recommended)", description: "warm" },
        { key: "Blue", label: "Blue", description: "cool" },
      ],
      details: { header: "Color", index: 0, count: 2, isOther: true, isSecret: false },
    });
    expect(run.asked[0]!.toolCallId).toBeDefined();
    const output = lastToolOutput(h!);
    expect(output).toContain("Blue");
    expect(output).toContain("a medium one, please");
    expect(run.verdict).toMatchObject({ text: expect.stringContaining("Done") });
  });

  it("a deny stops the asking: later questions are not asked, the model reads the answers given and the host's reason", async () => {
    const run = await runWith("ASKQ now", { approvals: { question: "ask" } }, (request) => request.deny("no time for questions"));
    expect(run.asked.map((request) => request.details?.questionId)).toEqual(["color"]);
    const request = h!.server.responses().at(-1)!;
    expect(JSON.stringify(request.body)).toContain("no time for questions");
  });

  it("question mode unset: the host is never asked (codex keeps request_user_input to its plan mode)", async () => {
    const run = await runWith("ASKQ now", {}, () => {
      throw new Error("not asked");
    });
    expect(run.asked).toEqual([]);
    expect(lastToolOutput(h!)).toContain("request_user_input is unavailable in Default mode");
  });
});
