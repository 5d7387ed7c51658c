// MCP elicitations on the real claude binary (pinned 2.1.332): the testkit's stdio MCP fixture
// (@modelcontextprotocol/sdk) calls `elicitInput` from its `elicit` / `elicit_url` tools; Claude
// Code relays it as an `elicitation` control request, which reaches the host as an approval of kind
// `elicitation` under `policy.approvals.elicitation` and is answered `{ action, content }`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mcpFixtureCommand, readMcpFixtureLog } from "@adaptor/testkit/mcp-fixtures";
import { InvalidOptionError, isError, ErrInvalidOption, mcpStdio, type ApprovalRequest, type Policy } from "adaptor";
import { callThenReport, harness, type Harness } from "./support.js";

let h: Harness | undefined;
let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "claude-elicit-"));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(work, { recursive: true, force: true });
});

/**
 * Runs a prompt that makes the model call the fixture's `tool` under `policy`, approving tool calls
 * and answering elicitations with `decide`; returns the elicitation asks, what `decide` threw, the
 * fixture's elicit log entries and the tool result the model read.
 */
async function elicitRun(tool: "elicit" | "elicit_url", policy: Policy, decide: (request: ApprovalRequest) => void) {
  const asked: ApprovalRequest[] = [];
  const thrown: unknown[] = [];
  h = await harness(
    callThenReport("ELICIT", `mcp__fixture__${tool}`, {}),
    {},
    {
      onApproval: (request) => {
        if (request.kind !== "elicitation") return request.approve();
        asked.push(request);
        try {
          decide(request);
        } catch (error) {
          thrown.push(error);
          request.deny("the host gave up"); // declines
        }
      },
    },
  );
  const log = join(work, "fixture.jsonl");
  const fixture = mcpFixtureCommand({ logFile: log });
  const result = await h.agent.run("ELICIT please", {
    policy,
    mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args, required: true })],
  });
  const elicited = (await readMcpFixtureLog(log)).filter((entry) => entry.event === "elicit");
  return { asked, thrown, elicited, modelRead: h.server.requests.at(-1)?.view.lastToolResult?.content, result };
}

const ASK: Policy = { approvals: { elicitation: "ask" } };

describe("claude: an MCP server's elicitation reaches the host", () => {
  it("a form accepted with content: the ask names the server, message and schema; the content reaches the server and its answer the model", async () => {
    const run = await elicitRun("elicit", ASK, (request) => request.approve({ updatedInput: { name: "Ada", age: 36 } }));
    expect(run.thrown).toEqual([]);
    expect(run.asked).toHaveLength(1);
    const [request] = run.asked;
    expect(request).toMatchObject({
      kind: "elicitation",
      title: "fixture: Who are you?",
      inputEditable: true,
      choices: [{ key: "accept" }, { key: "decline" }, { key: "cancel" }],
      suggestions: [],
      status: "approved",
    });
    expect(request!.details).toMatchObject({
      server: "fixture",
      message: "Who are you?",
      mode: "form",
      requestedSchema: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
      },
    });
    expect(run.elicited).toMatchObject([{ tool: "elicit", action: "accept", content: { name: "Ada", age: 36 } }]);
    expect(run.modelRead).toContain('elicit: accept {"name":"Ada","age":36}');
  });

  it.each([
    ["deny() declines", (request: ApprovalRequest) => request.deny("not now"), "decline"],
    ['answer("cancel") cancels', (request: ApprovalRequest) => request.answer("cancel"), "cancel"],
  ] as const)("%s: the server reads that action and no content", async (_name, decide, action) => {
    const run = await elicitRun("elicit", ASK, decide);
    expect(run.thrown).toEqual([]);
    expect(run.asked).toHaveLength(1);
    expect(run.elicited).toEqual([expect.objectContaining({ tool: "elicit", action })]);
    expect(run.elicited[0]).not.toHaveProperty("content");
    expect(run.modelRead).toContain(`elicit: ${action} null`);
  });

  it("form content that does not match the requested schema is refused with InvalidOptionError (field updatedInput) and nothing is sent; the request stays pending", async () => {
    let pendingAfter: string | undefined;
    const run = await elicitRun("elicit", ASK, (request) => {
      try {
        request.approve({ updatedInput: { age: -1 } });
      } finally {
        pendingAfter = request.status;
      }
    });
    expect(run.thrown).toHaveLength(1);
    const error = run.thrown[0];
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(isError(error, ErrInvalidOption)).toBe(true);
    expect(error).toMatchObject({ field: "updatedInput" });
    expect((error as Error).message).toContain("must have required property 'name'");
    expect((error as Error).message).toContain("/age: must be >= 0");
    expect(pendingAfter).toBe("pending");
    // The host's later deny is what the server read: the invalid content never left the SDK.
    expect(run.elicited).toEqual([expect.objectContaining({ tool: "elicit", action: "decline" })]);
  });

  it.each([
    ["auto_deny", { approvals: { elicitation: "auto_deny" } } as Policy],
    ["unset (the default)", {} as Policy],
  ])("elicitation mode %s declines without asking the host", async (_name, policy) => {
    const run = await elicitRun("elicit", policy, () => {
      throw new Error("not asked");
    });
    expect(run.asked).toEqual([]);
    expect(run.elicited).toEqual([expect.objectContaining({ tool: "elicit", action: "decline" })]);
    expect(run.result.enforcement.find((entry) => entry.field === "approvals.elicitation")).toEqual(
      policy.approvals?.elicitation ? expect.objectContaining({ enforced: true, mechanisms: ["approval"] }) : undefined,
    );
  });

  it("a URL elicitation passes its URL through; content is refused (InvalidOptionError), approve() accepts", async () => {
    const refusals: unknown[] = [];
    const run = await elicitRun("elicit_url", ASK, (request) => {
      try {
        request.approve({ updatedInput: { token: "x" } });
      } catch (error) {
        refusals.push(error);
      }
      request.approve();
    });
    expect(run.thrown).toEqual([]);
    expect(refusals).toEqual([expect.objectContaining({ field: "updatedInput" })]);
    expect(run.asked[0]).toMatchObject({ kind: "elicitation", inputEditable: false, status: "approved" });
    expect(run.asked[0]!.details).toMatchObject({
      server: "fixture",
      mode: "url",
      message: "Sign in to continue",
      url: "https://example.com/sign-in?session=fixture",
      elicitationId: "fixture-url-1",
    });
    expect(run.elicited).toEqual([expect.objectContaining({ tool: "elicit_url", action: "accept" })]);
  });
});
